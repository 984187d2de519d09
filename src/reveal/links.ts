import type { LinkSigningKey } from './link-key.js';
import { mintRevealToken } from './token.js';

export interface RevealLinks {
  /**
   * What makes `${PUBLIC_URL}/keys/reveal#<token>` for one image key, for one user (undefined without
   * PUBLIC_URL); resolves once the signing key is read.
   */
  minter(): Promise<(claims: LinkClaims) => string | undefined>;
}

export interface LinkClaims {
  orderId: string;
  product: number;
  key: number;
  userId: string;
}

export const REVEAL_PATH = '/keys/reveal';

export function createRevealLinks(options: {
  publicUrl: string | undefined;
  signingKey: LinkSigningKey;
  ttlSeconds: number;
  now?: (() => number) | undefined;
}): RevealLinks {
  const { publicUrl, signingKey, ttlSeconds } = options;
  const now = options.now ?? Date.now;
  return {
    async minter() {
      if (!publicUrl) return () => undefined;
      const key = await signingKey.get();
      return (claims) => `${publicUrl}${REVEAL_PATH}#${mintRevealToken(key, claims, ttlSeconds, now())}`;
    },
  };
}
