// Key types are "not shown" in the spec beyond `text`. Wholesale APIs spell them as MIME types, vendor
// words (CODE_TEXT, CODE_IMAGE, PRE_ORDER) or plain words (url, link). The app works with five kinds.

export type KeyKind = 'text' | 'image' | 'link' | 'pre_order' | 'unknown';

const TEXT_TYPES = new Set([
  'text',
  'text/plain',
  'plain',
  'code',
  'code_text',
  'key',
  'serial',
  'string',
  'license',
  'licence',
  'cd_key',
  'cdkey',
]);
const LINK_TYPES = new Set([
  'url',
  'link',
  'uri',
  'code_url',
  'text/uri-list',
  'redeem_url',
  'redemption_url',
]);
const IMAGE_WORDS = new Set(['image', 'code_image', 'img', 'png', 'jpeg', 'jpg', 'gif', 'picture', 'qr']);
const PRE_ORDER_TYPES = new Set(['pre_order', 'preorder', 'pre-order']);

/** Reads any spelling of a key type, case-insensitively; no type at all means text, as in the spec. */
export function normalizeKeyType(type: string | null | undefined): KeyKind {
  if (!type) return 'text';
  const word = type.trim().toLowerCase().split(';')[0]?.trim() ?? '';
  if (TEXT_TYPES.has(word)) return 'text';
  if (word.startsWith('image/') || IMAGE_WORDS.has(word)) return 'image';
  if (LINK_TYPES.has(word)) return 'link';
  if (PRE_ORDER_TYPES.has(word)) return 'pre_order';
  return 'unknown';
}

export type ImageFormat = 'PNG' | 'JPEG' | 'GIF';

export interface DecodedImage {
  format: ImageFormat;
  contentType: `image/${Lowercase<ImageFormat>}`;
  bytes: Buffer;
}

/** What the first bytes say, whatever the type field claimed. */
export function sniffImageFormat(bytes: Uint8Array): ImageFormat | undefined {
  const starts = (...signature: number[]) => signature.every((byte, index) => bytes[index] === byte);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'PNG';
  if (starts(0xff, 0xd8, 0xff)) return 'JPEG';
  if (starts(0x47, 0x49, 0x46, 0x38) && (bytes[4] === 0x37 || bytes[4] === 0x39) && bytes[5] === 0x61)
    return 'GIF';
  return undefined;
}

// Base64 (standard or URL-safe), with the line breaks some encoders add; nothing else.
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;
const DATA_URI = /^data:([^,;]*)((?:;[^,;]*)*?)(;base64)?,(.*)$/is;

/** An image key sent as raw base64 or a `data:` URI; undefined unless its bytes are a PNG, JPEG or GIF. */
export function decodeImageKey(value: string): DecodedImage | undefined {
  const trimmed = value.trim();
  const dataUri = DATA_URI.exec(trimmed);
  let payload = trimmed;
  if (dataUri) {
    if (!dataUri[3]) return undefined;
    payload = dataUri[4] ?? '';
  }
  const compact = payload.replace(/\s+/g, '');
  if (compact.length < 8 || !BASE64.test(compact)) return undefined;
  const bytes = Buffer.from(compact.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  const format = sniffImageFormat(bytes);
  if (!format) return undefined;
  return { format, contentType: `image/${format.toLowerCase() as Lowercase<ImageFormat>}`, bytes };
}

/** "14 kB", "812 bytes": how big an image key is, for the agent. */
export function describeSize(bytes: number): string {
  if (bytes < 1_000) return `${bytes} bytes`;
  if (bytes < 1_000_000) return `${Math.round(bytes / 1_000)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}
