import { type DigitalKey, decodeImageKey, describeSize, normalizeKeyType } from '../partner-api/index.js';
import { cutToLength } from '../text/cut.js';
import { escapeMrkdwn } from './format.js';

// How one key can be shown in Slack, whatever type the partner gives it (packing: key-messages.ts).

const MAX_PRINTABLE_KEY = 1_000;

export type KeyPiece =
  | { kind: 'code'; text: string }
  | { kind: 'image'; text: string }
  | { kind: 'link'; url: string }
  | { kind: 'plain'; text: string }
  | { kind: 'note'; text: string };

const note = (text: string): KeyPiece => ({ kind: 'note', text });

// biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
const UNPRINTABLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\ufffd]/;

/** How one key can be shown safely. Notes name no number (code blocks have none): each is by its key. */
export function classifyKey(key: DigitalKey): KeyPiece {
  const kind = normalizeKeyType(key.type);
  const value = key.value;
  if (kind === 'pre_order' && !value) return note('A pre-order key: the partner has not released it yet.');
  if (value === null || value === '') return note('A key delivered without a value.');
  const looksLikeImage = kind === 'image' || /^data:image\//i.test(value);
  // An image is named only once its bytes say so, whatever the type field claimed.
  const image = looksLikeImage || kind === 'unknown' ? decodeImageKey(value) : undefined;
  if (image)
    return { kind: 'image', text: `An image key (${image.format}, ${describeSize(image.bytes.length)}).` };
  if (looksLikeImage)
    return note(
      `A key marked as an image (type “${escapeMrkdwn(cutToLength(key.type ?? 'image', 30))}”), but its data is not a PNG, JPEG or GIF image. Retrieve it from the partner platform.`,
    );
  if (value.startsWith('data:'))
    return note(
      `A file (${escapeMrkdwn(cutToLength(value.slice(5).split(/[;,]/)[0] || 'unknown type', 40))}) that Slack cannot show; retrieve it from the partner platform.`,
    );
  // Measured as sent: escaped, a key of `&`s is five times as long (a section holds 3,000).
  const printable = !UNPRINTABLE.test(value) && escapeMrkdwn(value).length <= MAX_PRINTABLE_KEY;
  if (kind === 'link')
    return printable && /^https?:\/\/[^\s<>|]+$/i.test(value)
      ? { kind: 'link', url: value }
      : note(
          'A link that is not a plain web address, so Slack cannot show it safely; retrieve it from the partner platform.',
        );
  if (!printable)
    return note(
      value.length > MAX_PRINTABLE_KEY
        ? `A key ${value.length.toLocaleString('en-US')} characters long, too long to be a key to type; retrieve it from the partner platform.`
        : 'A key with control characters, so it would not read as delivered; retrieve it from the partner platform.',
    );
  // A backtick would end the code block early; such a key goes out as plain text, which Slack never formats.
  if (value.includes('`')) return { kind: 'plain', text: value };
  // Text and unknown types alike: a printable value is shown as text.
  return { kind: 'code', text: value };
}
