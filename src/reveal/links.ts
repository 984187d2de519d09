import { mintRevealToken } from './token.js';

export interface RevealLinks {
  /** False without PUBLIC_URL: image keys then get a note saying an admin can set it. */
  readonly enabled: boolean;
  /** `${PUBLIC_URL}/keys/reveal#<token>` for one image key, for one user. */
  linkFor(claims: { orderId: string; product: number; key: number; userId: string }): string | undefined;
}

export const REVEAL_PATH = '/keys/reveal';

export function createRevealLinks(options: {
  publicUrl: string | undefined;
  signingKey: Buffer;
  ttlSeconds: number;
  now?: (() => number) | undefined;
}): RevealLinks {
  const { publicUrl, signingKey, ttlSeconds } = options;
  const now = options.now ?? Date.now;
  return {
    enabled: publicUrl !== undefined,
    linkFor(claims) {
      if (!publicUrl) return undefined;
      return `${publicUrl}${REVEAL_PATH}#${mintRevealToken(signingKey, claims, ttlSeconds, now())}`;
    },
  };
}
