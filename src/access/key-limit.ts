import { RateLimiterRes } from 'rate-limiter-flexible';
import type { AppLogger } from '../logger.js';
import type { SharedState } from '../state/index.js';

export type RetrievalDecision =
  | { allowed: true; used: number }
  | { allowed: false; reason: 'limit'; retryAfterMs: number; max: number }
  | { allowed: false; reason: 'unavailable' };

export interface KeyRetrievalLimit {
  /** Counts one retrieval for the user, or refuses it. Called before any keys request reaches the partner. */
  take(userId: string): Promise<RetrievalDecision>;
  /** Un-counts one retrieval that delivered nothing (the partner failed during a reveal). */
  giveBack(userId: string): Promise<void>;
}

const HOUR_MS = 3_600_000;
const WARN_AT = 0.8;

/** KEYS_MAX_RETRIEVALS_PER_HOUR per user across replicas, audit alerts at 80% and the limit; fails closed. */
export function createKeyRetrievalLimit(options: {
  state: SharedState;
  max: number;
  logger: AppLogger;
  alert: (text: string) => Promise<void>;
}): KeyRetrievalLimit {
  const { state, max, logger } = options;
  const limiter = state.limiter({
    name: 'key-retrievals',
    points: max,
    durationSeconds: 3_600,
    whenDown: 'fail',
  });
  const warnAt = Math.max(1, Math.ceil(max * WARN_AT));

  async function alertOnce(kind: 'warn' | 'limit', userId: string, text: string) {
    try {
      if (await state.claim(`keys-alert:${kind}:${userId}`, HOUR_MS)) await options.alert(text);
    } catch (error) {
      logger.warn({ userId, kind, error: (error as Error).message }, 'key retrieval alert not sent');
    }
  }

  return {
    async take(userId) {
      try {
        const result = await limiter.consume(userId);
        if (result.consumedPoints >= warnAt && result.consumedPoints < max + 1)
          await alertOnce(
            'warn',
            userId,
            `:warning: <@${userId}> has retrieved keys ${result.consumedPoints} times within the hour: ${Math.round((100 * result.consumedPoints) / max)}% of the limit of ${max}.`,
          );
        return { allowed: true, used: result.consumedPoints };
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) {
          await alertOnce(
            'limit',
            userId,
            `:no_entry: <@${userId}> reached the limit of ${max} key retrievals within the hour; further requests are refused for ${Math.ceil(rejection.msBeforeNext / 60_000)} minutes.`,
          );
          return { allowed: false, reason: 'limit', retryAfterMs: rejection.msBeforeNext, max };
        }
        logger.error(
          { userId, error: (rejection as Error).message },
          'key retrievals cannot be counted (shared state unreachable): keys are withheld',
        );
        return { allowed: false, reason: 'unavailable' };
      }
    },
    async giveBack(userId) {
      await limiter
        .reward(userId, 1)
        .catch((error: unknown) =>
          logger.warn({ userId, error: (error as Error).message }, 'a retrieval could not be un-counted'),
        );
    },
  };
}
