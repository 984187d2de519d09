import type { AppLogger } from '../logger.js';

// At most one line per minute, however many forged tokens arrive: the log is not a flood target either.
const WINDOW_MS = 60_000;

/**
 * Tokens that are not ours (malformed or tampered) name nobody: they are counted and logged here, at
 * most once a minute with how many came, and never posted to the audit channel, which anyone on the
 * internet could otherwise fill.
 */
export function createForgedTokenLog(logger: AppLogger, now: () => number = Date.now) {
  let windowStart = Number.NEGATIVE_INFINITY;
  let unlogged = 0;
  return {
    record: () => {
      unlogged++;
      if (now() - windowStart < WINDOW_MS) return;
      logger.warn(
        { event: 'reveal_forged_token', count: unlogged, windowSeconds: WINDOW_MS / 1000 },
        'reveal requests with a token Order Desk did not sign (malformed or changed): refused',
      );
      windowStart = now();
      unlogged = 0;
    },
  };
}
