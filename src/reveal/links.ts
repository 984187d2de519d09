import type { LinkSigningKey } from './link-key.js';
import { mintRevealToken } from './token.js';

export interface RevealLinks {
  /** Makes `${PUBLIC_URL}/keys/reveal#<token>` links (undefined without PUBLIC_URL), once the key is read. */
  minter(): Promise<(claims: LinkClaims) => string | undefined>;
}

type LinkClaims = Parameters<typeof mintRevealToken>[1];

export const REVEAL_PATH = '/keys/reveal';

export function createRevealLinks(options: {
  publicUrl: string | undefined;
  signingKey: LinkSigningKey;
  ttlSeconds: number;
  now: () => number;
}): RevealLinks {
  const { publicUrl, signingKey, ttlSeconds, now } = options;
  return {
    async minter() {
      if (!publicUrl) return () => undefined;
      const key = await signingKey.get();
      return (claims) => `${publicUrl}${REVEAL_PATH}#${mintRevealToken(key, claims, ttlSeconds, now())}`;
    },
  };
}
