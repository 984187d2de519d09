import type { AppLogger } from '../logger.js';

const WINDOW_MS = 60_000;

/**
 * Tokens that are not ours name nobody: logged at most once a minute with how many came (the log is no
 * flood target either), never posted to the audit channel, which anyone could otherwise fill.
 */
export function createForgedTokenLog(logger: AppLogger) {
  let windowStart = Number.NEGATIVE_INFINITY;
  let unlogged = 0;
  return {
    record: () => {
      unlogged++;
      if (Date.now() - windowStart < WINDOW_MS) return;
      logger.warn(
        { event: 'reveal_forged_token', count: unlogged, windowSeconds: WINDOW_MS / 1000 },
        'reveal requests with a token Order Desk did not sign (malformed or changed): refused',
      );
      windowStart = Date.now();
      unlogged = 0;
    },
  };
}
