import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

// A one-time link to one image key: `${PUBLIC_URL}/keys/reveal#<token>`. The token sits in the URL
// fragment, which browsers never send, so no unfurler, proxy or access log sees it. It holds no key
// (fetched again at reveal time), only which key, for whom, until when, and a random ID used once.

export interface RevealClaims {
  orderId: string;
  /** Position of the key in the keys answer: product index, key index within it. */
  product: number;
  key: number;
  userId: string;
  /** Unix seconds. */
  expiresAt: number;
  /** Random ID: the token works once across every replica. */
  id: string;
}

export type TokenCheck =
  | { ok: true; claims: RevealClaims }
  | { ok: false; reason: 'malformed' | 'tampered' }
  /** Signed by us, so its claims can be trusted for the audit, but too late. */
  | { ok: false; reason: 'expired'; claims: RevealClaims };

const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

function sign(key: Buffer, payload: string): string {
  return createHmac('sha256', key).update(payload).digest('base64url');
}

export function mintRevealToken(
  key: Buffer,
  claims: Omit<RevealClaims, 'id' | 'expiresAt'>,
  ttlSeconds: number,
  now: number = Date.now(),
): string {
  const body: RevealClaims = {
    ...claims,
    expiresAt: Math.floor(now / 1000) + ttlSeconds,
    id: randomBytes(12).toString('base64url'),
  };
  const payload = Buffer.from(
    JSON.stringify([body.orderId, body.product, body.key, body.userId, body.expiresAt, body.id]),
  ).toString('base64url');
  return `${payload}.${sign(key, payload)}`;
}

/** Checks shape, signature (in constant time) and expiry, in that order. */
export function verifyRevealToken(key: Buffer, token: unknown, now: number = Date.now()): TokenCheck {
  if (typeof token !== 'string' || token.length > 1_000 || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token))
    return { ok: false, reason: 'malformed' };
  const [payload = '', signature = ''] = token.split('.');
  const expected = Buffer.from(sign(key, payload));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given))
    return { ok: false, reason: 'tampered' };
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (!Array.isArray(fields) || fields.length !== 6) return { ok: false, reason: 'malformed' };
  const [orderId, product, keyIndex, userId, expiresAt, id] = fields as unknown[];
  if (
    typeof orderId !== 'string' ||
    !ID_PATTERN.test(orderId) ||
    !Number.isInteger(product) ||
    !Number.isInteger(keyIndex) ||
    typeof userId !== 'string' ||
    !/^[UW][A-Z0-9]+$/.test(userId) ||
    !Number.isInteger(expiresAt) ||
    typeof id !== 'string' ||
    !ID_PATTERN.test(id)
  )
    return { ok: false, reason: 'malformed' };
  const claims = { orderId, product, key: keyIndex, userId, expiresAt, id } as RevealClaims;
  if (claims.expiresAt * 1000 <= now) return { ok: false, reason: 'expired', claims };
  return { ok: true, claims };
}
