import { deflateSync } from 'node:zlib';
import { JPEG_KEY_SAMPLE_BASE64 } from './jpeg-sample.js';

// Image keys as real wholesale APIs deliver them: a small picture of the code, as base64 bytes. PNG
// and GIF are drawn here from the key's own text (so a test can check that the image shown is the
// key); JPEG is a shipped sample, as a JPEG encoder is not worth writing for a simulator.

// A 5x7 font for the characters keys use: each glyph is 7 rows of 5 bits.
const GLYPHS: Record<string, number[]> = {
  A: [14, 17, 17, 31, 17, 17, 17],
  B: [30, 17, 17, 30, 17, 17, 30],
  C: [14, 17, 16, 16, 16, 17, 14],
  D: [30, 17, 17, 17, 17, 17, 30],
  E: [31, 16, 16, 30, 16, 16, 31],
  F: [31, 16, 16, 30, 16, 16, 16],
  G: [14, 17, 16, 23, 17, 17, 15],
  H: [17, 17, 17, 31, 17, 17, 17],
  I: [14, 4, 4, 4, 4, 4, 14],
  J: [7, 2, 2, 2, 2, 18, 12],
  K: [17, 18, 20, 24, 20, 18, 17],
  L: [16, 16, 16, 16, 16, 16, 31],
  M: [17, 27, 21, 21, 17, 17, 17],
  N: [17, 17, 25, 21, 19, 17, 17],
  O: [14, 17, 17, 17, 17, 17, 14],
  P: [30, 17, 17, 30, 16, 16, 16],
  Q: [14, 17, 17, 17, 21, 18, 13],
  R: [30, 17, 17, 30, 20, 18, 17],
  S: [15, 16, 16, 14, 1, 1, 30],
  T: [31, 4, 4, 4, 4, 4, 4],
  U: [17, 17, 17, 17, 17, 17, 14],
  V: [17, 17, 17, 17, 17, 10, 4],
  W: [17, 17, 17, 21, 21, 21, 10],
  X: [17, 17, 10, 4, 10, 17, 17],
  Y: [17, 17, 10, 4, 4, 4, 4],
  Z: [31, 1, 2, 4, 8, 16, 31],
  '0': [14, 17, 19, 21, 25, 17, 14],
  '1': [4, 12, 4, 4, 4, 4, 14],
  '2': [14, 17, 1, 2, 4, 8, 31],
  '3': [31, 2, 4, 2, 1, 17, 14],
  '4': [2, 6, 10, 18, 31, 2, 2],
  '5': [31, 16, 30, 1, 1, 17, 14],
  '6': [6, 8, 16, 30, 17, 17, 14],
  '7': [31, 1, 2, 4, 8, 8, 8],
  '8': [14, 17, 17, 14, 17, 17, 14],
  '9': [14, 17, 17, 15, 1, 2, 12],
  '-': [0, 0, 0, 31, 0, 0, 0],
  ' ': [0, 0, 0, 0, 0, 0, 0],
};

const SCALE = 3;
const PADDING = 8;

interface Bitmap {
  width: number;
  height: number;
  /** One byte a pixel: 1 ink, 0 paper. */
  pixels: Uint8Array;
}

/** Draws `text` (upper-cased; unknown characters as blanks) in the 5x7 font. */
export function drawText(text: string): Bitmap {
  const chars = [...text.toUpperCase()];
  const width = PADDING * 2 + chars.length * 6 * SCALE;
  const height = PADDING * 2 + 7 * SCALE;
  const pixels = new Uint8Array(width * height);
  chars.forEach((char, index) => {
    const glyph = GLYPHS[char] ?? GLYPHS[' '] ?? [];
    glyph.forEach((row, y) => {
      for (let x = 0; x < 5; x++) {
        if (!((row >> (4 - x)) & 1)) continue;
        for (let dy = 0; dy < SCALE; dy++)
          for (let dx = 0; dx < SCALE; dx++) {
            const px = PADDING + (index * 6 + x) * SCALE + dx;
            const py = PADDING + y * SCALE + dy;
            pixels[py * width + px] = 1;
          }
      }
    });
  });
  return { width, height, pixels };
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (CRC_TABLE[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Uint8Array): Buffer {
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/** An 8-bit greyscale PNG: dark ink on white. */
export function encodePng(bitmap: Bitmap): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(bitmap.width, 0);
  header.writeUInt32BE(bitmap.height, 4);
  header.set([8, 0, 0, 0, 0], 8); // bit depth 8, greyscale, deflate, no filter method, no interlace
  const raw = Buffer.alloc((bitmap.width + 1) * bitmap.height);
  for (let y = 0; y < bitmap.height; y++) {
    raw[y * (bitmap.width + 1)] = 0; // filter: none
    for (let x = 0; x < bitmap.width; x++)
      raw[y * (bitmap.width + 1) + 1 + x] = bitmap.pixels[y * bitmap.width + x] ? 0x22 : 0xff;
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(raw)),
    pngChunk('IEND', new Uint8Array(0)),
  ]);
}

/**
 * A two-colour GIF. Its LZW stream sends a clear code before every two pixels, so the code table
 * never grows and the codes stay 3 bits wide: larger than real LZW, and far simpler.
 */
export function encodeGif(bitmap: Bitmap): Buffer {
  const CLEAR = 4;
  const END = 5;
  const codes: number[] = [];
  for (let i = 0; i < bitmap.pixels.length; i++) {
    if (i % 2 === 0) codes.push(CLEAR);
    codes.push(bitmap.pixels[i] ? 1 : 0);
  }
  codes.push(END);
  const packed: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const code of codes) {
    buffer |= code << bits;
    bits += 3;
    while (bits >= 8) {
      packed.push(buffer & 0xff);
      buffer >>= 8;
      bits -= 8;
    }
  }
  if (bits > 0) packed.push(buffer & 0xff);
  const blocks: number[] = [];
  for (let i = 0; i < packed.length; i += 255) {
    const chunk = packed.slice(i, i + 255);
    blocks.push(chunk.length, ...chunk);
  }
  const screen = Buffer.alloc(7);
  screen.writeUInt16LE(bitmap.width, 0);
  screen.writeUInt16LE(bitmap.height, 2);
  screen.set([0x81, 0, 0], 4); // global colour table of 4 entries (2^(1+1)), background 0
  const image = Buffer.alloc(10);
  image[0] = 0x2c;
  image.writeUInt16LE(0, 1);
  image.writeUInt16LE(0, 3);
  image.writeUInt16LE(bitmap.width, 5);
  image.writeUInt16LE(bitmap.height, 7);
  image[9] = 0;
  return Buffer.concat([
    Buffer.from('GIF89a', 'latin1'),
    screen,
    Buffer.from([0xff, 0xff, 0xff, 0x22, 0x22, 0x22, 0, 0, 0, 0, 0, 0]),
    image,
    Buffer.from([2]), // LZW minimum code size
    Buffer.from(blocks),
    Buffer.from([0, 0x3b]),
  ]);
}

export type SimImageFormat = 'png' | 'jpeg' | 'gif';

/** The image of a key's code, as base64 bytes (what the API sends) in the format asked for. */
export function keyImageBase64(code: string, format: SimImageFormat): string {
  if (format === 'jpeg') return JPEG_KEY_SAMPLE_BASE64;
  const bitmap = drawText(code);
  return (format === 'gif' ? encodeGif(bitmap) : encodePng(bitmap)).toString('base64');
}
