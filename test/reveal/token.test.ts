import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { mintRevealToken, verifyRevealToken } from '../../src/reveal/token.js';

const key = randomBytes(32);
const claims = { orderId: 'K7QX2M9PLA', product: 0, key: 2, userId: 'U0AGENT' };
const now = Date.parse('2026-11-22T10:00:00Z');

describe('one-time reveal tokens', () => {
  it('round-trips the claims within the TTL', () => {
    const token = mintRevealToken(key, claims, 300, now);
    const check = verifyRevealToken(key, token, now + 299_000);
    expect(check).toMatchObject({ ok: true, claims: { ...claims, expiresAt: now / 1000 + 300 } });
    expect(token).not.toContain('U0AGENT');
  });

  it('gives every token its own ID', () => {
    const ids = new Set(
      Array.from({ length: 50 }, () => {
        const check = verifyRevealToken(key, mintRevealToken(key, claims, 300, now), now);
        return check.ok ? check.claims.id : 'bad';
      }),
    );
    expect(ids.size).toBe(50);
  });

  it('refuses an expired token', () => {
    expect(verifyRevealToken(key, mintRevealToken(key, claims, 300, now), now + 300_000)).toMatchObject({
      ok: false,
      reason: 'expired',
      claims,
    });
  });

  it.each([
    ['another user', (payload: string[]) => payload.with(3, 'U0MEMBER')],
    ['another order', (payload: string[]) => payload.with(0, 'OTHERORDER')],
    ['another key', (payload: string[]) => payload.with(2, 0 as unknown as string)],
    ['a later expiry', (payload: string[]) => payload.with(4, (now / 1000 + 99_999) as unknown as string)],
  ])('refuses a token changed to name %s', (_what, change) => {
    const token = mintRevealToken(key, claims, 300, now);
    const [payload = '', signature] = token.split('.');
    const fields = JSON.parse(Buffer.from(payload, 'base64url').toString()) as string[];
    const forged = `${Buffer.from(JSON.stringify(change(fields))).toString('base64url')}.${signature}`;
    expect(verifyRevealToken(key, forged, now)).toEqual({ ok: false, reason: 'tampered' });
  });

  it('refuses a token signed with another key (another deployment)', () => {
    const other = randomBytes(32);
    expect(verifyRevealToken(other, mintRevealToken(key, claims, 300, now), now)).toEqual({
      ok: false,
      reason: 'tampered',
    });
  });

  it.each([undefined, '', 'abc', 'a.b.c', '../x.y', `${'a'.repeat(900)}.${'b'.repeat(200)}`, 42])(
    'refuses %j as malformed or tampered, never throwing',
    (token) => {
      const check = verifyRevealToken(key, token, now);
      expect(check.ok).toBe(false);
    },
  );
});
