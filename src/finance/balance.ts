import type { AppLogger } from '../logger.js';
import { asPartnerError, logFailure } from '../observability/partner-failures.js';
import type { OrderCopy } from '../orders/order-copy.js';
import { type AccountBalance, type PartnerClient, partnerErrorCodec } from '../partner-api/index.js';
import {
  type BackoffPolicy,
  type CacheResult,
  peekCached,
  peekFailure,
  readThrough,
  type SharedState,
  SourceFailedError,
  storeCached,
} from '../state/index.js';
import type { BalanceReading, BalanceState } from './balance-reading.js';

export interface BalanceService {
  /**
   * The cached reading when younger than `maxAgeMs` (default the TTL), else one read across replicas.
   * After a failed read, `background` reads (the watch, the digest) wait out the back-off; a person's
   * question goes past it once the failure is 30 s old. `force` (Refresh) reads even when fresh.
   */
  current(options?: { force?: boolean; maxAgeMs?: number; background?: boolean }): Promise<BalanceState>;
  /** Every successful keys answer carries the balance: keep it, so finance sees it fresh for free. */
  record(balance: AccountBalance | null, orderId: string, traceId: string | undefined): void;
}

export interface BalanceServiceOptions {
  partner: PartnerClient;
  state: SharedState;
  ttlSeconds: number;
  logger: AppLogger;
  onCache?: ((result: CacheResult) => void) | undefined;
  clock?: (() => Date) | undefined;
  /** When the partner's newest orders hold no completed one, the copy's newest completed one is used. */
  orderCopy?: Pick<OrderCopy, 'search'> | undefined;
}

/** 30 s after the first failure, doubling to 10 minutes: an outage is not made worse by asking. */
export const SOURCE_BACKOFF: BackoffPolicy = { firstMs: 30_000, maxMs: 600_000 };

// How far back to look for a completed order before saying the balance is not available yet.
const RECENT_WINDOW = 20;
const SCAN_LIMIT = 2_000;
// A person's question reads past a back-off at most this often (as readThrough's forced reads do).
const PERSON_READ_EVERY_MS = 30_000;
const BALANCE_KEY = 'balance';
// The last reading, kept long after the cached one expires: shown (with its age) when a read fails.
const LAST_KEY = 'balance:last';
const LAST_KEPT_MS = 30 * 24 * 3_600_000;

interface StoredReading extends Omit<BalanceReading, 'readAt'> {
  readAt: string;
}

type StoredState = { kind: 'reading'; reading: StoredReading } | Exclude<BalanceState, { kind: 'reading' }>;

const reviveReading = (stored: StoredReading): BalanceReading => ({
  ...stored,
  readAt: new Date(stored.readAt),
});

/**
 * The partner API reports the balance only inside an order's keys answer, so it is read from the
 * newest completed order's keys, which are dropped on the spot (never stored, logged or shown).
 */
export function createBalanceService(options: BalanceServiceOptions): BalanceService {
  const { partner, state, logger } = options;
  const clock = options.clock ?? (() => new Date());
  const ttlMs = options.ttlSeconds * 1000;

  function keepLast(reading: StoredReading): void {
    void storeCached(state, LAST_KEY, reading, LAST_KEPT_MS, () => clock().getTime()).catch(() => undefined);
  }

  function readingOf(balance: AccountBalance, orderId: string, traceId: string | undefined): StoredReading {
    return {
      balance: balance.balance,
      creditLimit: balance.creditLimit,
      readAt: clock().toISOString(),
      sourceOrderId: orderId,
      traceId,
    };
  }

  async function read(): Promise<{ value: StoredState; cache: boolean }> {
    try {
      const found = await findCompletedOrder(partner, options.orderCopy);
      if (!('id' in found)) return { value: { kind: 'no_completed_order', ...found }, cache: true };
      const orderId = found.id;
      const { balance, traceId } = await partner.orders.keys(orderId);
      // Not a failure, and nothing to keep: the next read asks again.
      if (!balance) return { value: { kind: 'not_reported', orderId, traceId }, cache: false };
      const reading = readingOf(balance, orderId, traceId);
      keepLast(reading);
      return { value: { kind: 'reading', reading }, cache: true };
    } catch (error) {
      // Logged here, once per reading: finance users waiting on the same reading share its failure.
      logFailure(logger, error, 'balance', 'the balance could not be read');
      throw error;
    }
  }

  return {
    async current(request = {}) {
      try {
        const force =
          request.force === true ||
          (!request.background &&
            (await pastBackoff(state, clock, request.maxAgeMs ?? ttlMs).catch(() => false)));
        const stored = await readThrough<StoredState>({
          state,
          key: BALANCE_KEY,
          ttlMs,
          maxAgeMs: request.maxAgeMs,
          force,
          load: read,
          backoff: SOURCE_BACKOFF,
          failureCodec: partnerErrorCodec,
          onResult: options.onCache,
          now: () => clock().getTime(),
        });
        return stored.kind === 'reading'
          ? { kind: 'reading', reading: reviveReading(stored.reading) }
          : stored;
      } catch (error) {
        if (!(error instanceof SourceFailedError)) throw error;
        // A fault of Order Desk's own is still said on the Home tab, plainly, and logged with its cause.
        const last = await peekCached<StoredReading>(state, LAST_KEY);
        return {
          kind: 'error',
          error: asPartnerError(error.error, 'balance', 'read the balance'),
          retryAt: error.retryAt,
          read: error.read,
          last: last && reviveReading(last.value),
        };
      }
    },
    record(balance, orderId, traceId) {
      if (!balance || ttlMs === 0) return;
      const stored = { kind: 'reading', reading: readingOf(balance, orderId, traceId) } satisfies StoredState;
      keepLast(stored.reading);
      void storeCached(state, BALANCE_KEY, stored, ttlMs, () => clock().getTime()).catch(() => undefined);
    },
  };
}

/** The newest completed order, or what was looked at without finding one. */
async function findCompletedOrder(
  partner: PartnerClient,
  orderCopy: BalanceServiceOptions['orderCopy'],
): Promise<{ id: string } | { checked: number; copyChecked: boolean }> {
  const recent = await partner.orders.recent(RECENT_WINDOW);
  const completed = recent.orders.find((order) => order.status?.toUpperCase() === 'COMPLETED');
  if (completed) return { id: completed.id };
  // The copy knows every order; undefined when there is none or it could not be read.
  const fromCopy = await orderCopy?.search({ statuses: ['COMPLETED'], limit: 1 }).catch(() => undefined);
  const copied = fromCopy?.orders[0]?.id;
  if (copied) return { id: copied };
  let seen = 0;
  for await (const order of partner.orders.all({ pageSize: 100, prefetch: 1 })) {
    if (order.status?.toUpperCase() === 'COMPLETED') return { id: order.id };
    if (++seen >= SCAN_LIMIT) break;
  }
  return { checked: Math.max(seen, recent.orders.length), copyChecked: fromCopy !== undefined };
}

/** A person's question goes past a running back-off (see `current`) unless a fresh reading is there. */
async function pastBackoff(state: SharedState, clock: () => Date, maxAgeMs: number): Promise<boolean> {
  const now = clock().getTime();
  const failure = await peekFailure(state, BALANCE_KEY, now);
  if (!failure || now - failure.failedAt < PERSON_READ_EVERY_MS) return false;
  const cached = await peekCached<StoredState>(state, BALANCE_KEY);
  return !(cached && now - cached.storedAt < maxAgeMs);
}
