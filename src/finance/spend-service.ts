import type { AppLogger } from '../logger.js';
import { asPartnerError, logFailure } from '../observability/partner-failures.js';
import { type PartnerApiError, partnerErrorCodec } from '../partner-api/index.js';
import { peekCached, peekFailure, readThrough, type SharedState, SourceFailedError } from '../state/index.js';
import { SOURCE_BACKOFF } from './balance.js';
import { type HistoryDeps, historyBetween } from './history-source.js';
import { type AmountMeaning, computeSpend, type SpendFigures } from './spend.js';

export interface SpendSnapshot {
  figures: SpendFigures | undefined;
  failure?: { error: PartnerApiError; retryAt: Date } | undefined;
}

export interface SpendService {
  /** The last figures computed (by any replica) and the last failure's back-off; never reads the partner. */
  snapshot(): Promise<SpendSnapshot>;
  /** Reads the last 30 days (once across replicas) unless fresh figures or a failed scan's back-off exist. */
  refresh(options?: { maxAgeMs?: number; force?: boolean }): Promise<SpendFigures | PartnerApiError>;
  /**
   * Starts a refresh when the figures are older than `maxAgeMs` and no back-off runs (`force`: always),
   * and calls `landed` once per `key` (a user's Home tab) when it ends; `landed` must not ask again.
   */
  refreshInBackground(
    request: { maxAgeMs: number; force?: boolean },
    key: string,
    landed: () => Promise<void>,
  ): Promise<void>;
}

const SPEND_KEY = 'finance:spend';
// Kept until replaced: old figures with their age beat no figures.
const KEEP_MS = 7 * 86_400_000;
// A large account's 30-day partner scan takes a while: the lease outlasts it, so another replica waits.
const SCAN_LEASE_MS = 300_000;

/** With the order copy covering the last 30 days, the figures are computed from it (no partner scan). */
export function createSpendService(
  options: HistoryDeps & {
    state: SharedState;
    timeZone: string;
    amountIs: AmountMeaning;
    logger: AppLogger;
  },
): SpendService {
  const { state, logger, now } = options;
  // Who waits for figures to land (a user's Home tab, published again then), each once.
  const waiting = new Map<string, () => Promise<void>>();

  async function scan(): Promise<{ value: SpendFigures; cache: boolean }> {
    const at = now();
    // 31 days back covers 30 calendar days in any time zone.
    const since = new Date(at.getTime() - 31 * 86_400_000);
    const orders = [];
    try {
      const history = await historyBetween(options, since, at);
      for await (const page of history.pages) orders.push(...page);
    } catch (error) {
      // Once per scan: replicas and users waiting on it share the failure without logging it again.
      logFailure(logger, error, 'spend', 'spend could not be computed');
      throw error;
    }
    return { value: computeSpend(orders, at, options.timeZone, options.amountIs), cache: true };
  }

  async function refresh(
    request: { maxAgeMs?: number; force?: boolean } = {},
  ): Promise<SpendFigures | PartnerApiError> {
    try {
      return await readThrough<SpendFigures>({
        state,
        key: SPEND_KEY,
        ttlMs: KEEP_MS,
        maxAgeMs: request.maxAgeMs ?? 1,
        force: request.force,
        leaseMs: SCAN_LEASE_MS,
        load: scan,
        backoff: SOURCE_BACKOFF,
        failureCodec: partnerErrorCodec,
        now: () => now().getTime(),
      });
    } catch (error) {
      if (error instanceof SourceFailedError) return asPartnerError(error.error, 'spend', 'compute spend');
      throw error;
    }
  }

  const peek = (at: number) =>
    Promise.all([peekCached<SpendFigures>(state, SPEND_KEY), peekFailure(state, SPEND_KEY, at)]);

  return {
    async snapshot() {
      const [stored, failure] = await peek(now().getTime());
      return {
        figures: stored?.value,
        failure: failure
          ? {
              error: asPartnerError(partnerErrorCodec.decode(failure.error), 'spend', 'compute spend'),
              retryAt: new Date(failure.until),
            }
          : undefined,
      };
    },
    refresh,
    async refreshInBackground({ maxAgeMs, force }, key, landed) {
      try {
        const at = now().getTime();
        const [stored, failure] = await peek(at);
        if (!force && ((stored && at - stored.storedAt < maxAgeMs) || failure)) return;
        const first = !waiting.has(key);
        waiting.set(key, landed);
        if (!first) return;
        // Not forced: figures another replica stored meanwhile are used, not scanned again.
        await refresh({ maxAgeMs: Math.max(1, maxAgeMs), force });
        const callback = waiting.get(key);
        waiting.delete(key);
        await callback?.();
      } catch (error) {
        waiting.delete(key);
        logger.error({ error: (error as Error).message }, 'spend refresh failed');
      }
    },
  };
}
