import { setTimeout as sleep } from 'node:timers/promises';
import type { PartnerGate } from '../partner-api/index.js';
import type { SharedState } from '../state/index.js';

const COOLDOWN_KEY = 'partner:cooldown-until';

/**
 * The partner's limits are per API key: a Retry-After one replica receives holds every replica, and
 * PARTNER_API_MAX_RPS counts across all, on the shared state (down: each replica to its own view).
 */
export function createPartnerGate(
  state: SharedState,
  maxRps: number | undefined,
): PartnerGate & { cooldownActive(): boolean } {
  let knownUntil = 0;
  const limiter = maxRps
    ? state.limiter({ name: 'partner-rps', points: maxRps, durationSeconds: 1, whenDown: 'per-process' })
    : undefined;

  async function cooldownUntil(): Promise<number> {
    const shared = await state.get<number>(COOLDOWN_KEY).catch(() => undefined);
    if (typeof shared === 'number' && shared > knownUntil) knownUntil = shared;
    return knownUntil;
  }

  /** Milliseconds until the rate cap lets one more request go (0: now, and it is counted). */
  async function rateWait(): Promise<number> {
    if (!limiter) return 0;
    try {
      await limiter.consume('all');
      return 0;
    } catch (rejection) {
      const wait = (rejection as { msBeforeNext?: unknown }).msBeforeNext;
      // Anything else (a backend error without an insurance limiter) lets the request go.
      return typeof wait === 'number' ? Math.max(1, wait) : 0;
    }
  }

  return {
    async beforeRequest(maxWaitMs) {
      const startedAt = Date.now();
      for (;;) {
        const cooldownWait = (await cooldownUntil()) - Date.now();
        const waited = Date.now() - startedAt;
        if (cooldownWait > 0) {
          if (waited + cooldownWait > maxWaitMs) return { refusedForMs: cooldownWait };
          await sleep(cooldownWait);
          continue;
        }
        const wait = await rateWait();
        if (wait === 0) return undefined;
        if (waited + wait > maxWaitMs) return { refusedForMs: wait };
        await sleep(wait);
      }
    },
    async cooldown(seconds) {
      const until = Date.now() + seconds * 1000;
      // The same Retry-After seen twice (by ky's retry check, then by the final error) is one cooldown.
      if (until <= knownUntil + 1_000) return false;
      knownUntil = until;
      const shared = await state.get<number>(COOLDOWN_KEY).catch(() => undefined);
      if (typeof shared === 'number' && shared >= until) return true;
      await state.set(COOLDOWN_KEY, until, seconds * 1000).catch(() => undefined);
      return true;
    },
    cooldownActive: () => knownUntil > Date.now(),
  };
}
