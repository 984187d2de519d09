import type { AppLogger } from '../logger.js';
import { isPartnerApiError, type PartnerApiError, type PartnerClient } from '../partner-api/index.js';
import { logPartnerFailure } from '../services/partner-failures.js';
import { peekCached, readThrough, type SharedState } from '../state/index.js';
import { ordersBetween } from './history-window.js';
import { type AmountMeaning, computeSpend, type SpendFigures } from './spend.js';

export interface SpendService {
  /** The last figures computed (by any replica), with when; never waits for a scan. */
  cached(): Promise<SpendFigures | undefined>;
  /** Reads the last 30 days of history now (once across replicas) and keeps the figures. */
  refresh(): Promise<SpendFigures | PartnerApiError>;
  /**
   * Starts a refresh in the background when the figures are older than `maxAgeMs` (or missing), and
   * calls `then` when they land: once per `key` (a user's Home tab) however often it was asked.
   */
  refreshIfOlder(maxAgeMs: number, key: string, then: () => Promise<void>): Promise<void>;
}

const SPEND_KEY = 'finance:spend';
// Kept until replaced: old figures with their age beat no figures.
const KEEP_MS = 7 * 86_400_000;
// A 30-day scan of a large account takes a while; another replica waits for it, up to this long.
const SCAN_LOCK_MS = 120_000;

export function createSpendService(options: {
  partner: PartnerClient;
  state: SharedState;
  timeZone: string;
  amountIs: AmountMeaning;
  logger: AppLogger;
  now: () => Date;
}): SpendService {
  const { partner, state, logger, now } = options;
  let running: Promise<SpendFigures | PartnerApiError> | undefined;
  // Who waits for figures to land (a user's Home tab, published again then), each once.
  const waiting = new Map<string, () => Promise<void>>();

  async function scan(): Promise<{ value: SpendFigures | PartnerApiError; cache: boolean }> {
    const at = now();
    // 31 days back covers 30 calendar days in any time zone.
    const since = new Date(at.getTime() - 31 * 86_400_000);
    const orders = [];
    try {
      for await (const page of ordersBetween(partner, since, at)) orders.push(...page);
      return { value: computeSpend(orders, at, options.timeZone, options.amountIs), cache: true };
    } catch (error) {
      if (!isPartnerApiError(error)) throw error;
      logPartnerFailure(logger, error, { where: 'spend' });
      return { value: error, cache: false };
    }
  }

  const read = (request: { force: boolean; maxAgeMs?: number }) => {
    running ??= readThrough<SpendFigures | PartnerApiError>({
      state,
      key: SPEND_KEY,
      ttlMs: KEEP_MS,
      maxAgeMs: request.maxAgeMs,
      force: request.force,
      lockMs: SCAN_LOCK_MS,
      load: scan,
      now: () => now().getTime(),
    }).finally(() => {
      running = undefined;
    });
    return running;
  };

  const service: SpendService = {
    async cached() {
      return (await peekCached<SpendFigures>(state, SPEND_KEY))?.value;
    },
    refresh() {
      return read({ force: true });
    },
    refreshIfOlder(maxAgeMs, key, then) {
      return (async () => {
        const stored = await peekCached<SpendFigures>(state, SPEND_KEY);
        if (stored && now().getTime() - stored.storedAt < maxAgeMs) return;
        const first = !waiting.has(key);
        waiting.set(key, then);
        if (!first) return;
        // Not forced: if another replica stored fresh figures meanwhile, they are used, not rescanned.
        await read({ force: false, maxAgeMs: Math.max(1, maxAgeMs) });
        const callback = waiting.get(key);
        waiting.delete(key);
        await callback?.();
      })().catch((error: unknown) =>
        logger.error({ error: (error as Error).message }, 'spend refresh failed'),
      );
    },
  };
  return service;
}
