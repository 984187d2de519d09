import {
  type DecodedImage,
  type DigitalKey,
  decodeImageKey,
  describeSize,
  normalizeKeyType,
} from '../partner-api/index.js';
import { cutToLength } from '../text/cut.js';
import { escapeMrkdwn } from './format.js';

// How one key can be shown in Slack, whatever type the partner gives it. Only the classification:
// how keys are packed into messages is key-messages.ts, what the agent is warned of is
// delivery-warnings.ts.

const MAX_PRINTABLE_KEY = 1_000;

export type KeyPiece =
  | { kind: 'code'; text: string }
  | { kind: 'image'; text: string }
  | { kind: 'link'; url: string }
  | { kind: 'plain'; text: string }
  | { kind: 'note'; text: string };

// biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
const UNPRINTABLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\ufffd]/;

function describeImage(image: DecodedImage): string {
  return `An image key (${image.format}, ${describeSize(image.bytes.length)})`;
}

/**
 * Decides how one key can be shown safely, whatever type the API gives it and however it spells it.
 * Notes name no number: keys in a code block have none, so each note stands where its key is.
 */
export function classifyKey(key: DigitalKey): KeyPiece {
  const kind = normalizeKeyType(key.type);
  const value = key.value;
  if (kind === 'pre_order' && !value)
    return { kind: 'note', text: 'A pre-order key: the partner has not released it yet.' };
  if (value === null || value === '') return { kind: 'note', text: 'A key delivered without a value.' };
  const looksLikeImage = kind === 'image' || /^data:image\//i.test(value);
  // An image is named only once its bytes say so, whatever the type field claimed.
  const image = looksLikeImage || kind === 'unknown' ? decodeImageKey(value) : undefined;
  if (image) return { kind: 'image', text: `${describeImage(image)}.` };
  if (looksLikeImage) {
    return {
      kind: 'note',
      text: `A key marked as an image (type “${escapeMrkdwn(cutToLength(key.type ?? 'image', 30))}”), but its data is not a PNG, JPEG or GIF image. Retrieve it from the partner platform.`,
    };
  }
  if (value.startsWith('data:')) {
    return {
      kind: 'note',
      text: `A file (${escapeMrkdwn(cutToLength(value.slice(5).split(/[;,]/)[0] || 'unknown type', 40))}) that Slack cannot show; retrieve it from the partner platform.`,
    };
  }
  // Measured as sent: escaped, a key of `&`s is five times as long (a section holds 3,000).
  const printable = !UNPRINTABLE.test(value) && escapeMrkdwn(value).length <= MAX_PRINTABLE_KEY;
  if (kind === 'link') {
    return printable && /^https?:\/\/[^\s<>|]+$/i.test(value)
      ? { kind: 'link', url: value }
      : {
          kind: 'note',
          text: 'A link that is not a plain web address, so Slack cannot show it safely; retrieve it from the partner platform.',
        };
  }
  if (!printable) {
    return {
      kind: 'note',
      text:
        value.length > MAX_PRINTABLE_KEY
          ? `A key ${value.length.toLocaleString('en-US')} characters long, too long to be a key to type; retrieve it from the partner platform.`
          : 'A key with control characters, so it would not read as delivered; retrieve it from the partner platform.',
    };
  }
  // A backtick would end the code block early; such a key goes out as plain text, which Slack never formats.
  if (value.includes('`')) return { kind: 'plain', text: value };
  // Text and unknown types alike: a printable value is shown as text.
  return { kind: 'code', text: value };
}
