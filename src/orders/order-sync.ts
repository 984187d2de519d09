import { createPeriodicJob, type Job, type JobClock } from '../jobs/index.js';
import type { AppLogger } from '../logger.js';
import { isPartnerApiError, MAX_PAGE_SIZE, type PartnerClient } from '../partner-api/index.js';
import type { SharedState } from '../state/index.js';
import type { OrderCopy } from './order-copy.js';
import { createFollow } from './sync/follow.js';
import { createSyncReads } from './sync/reads.js';
import { createRecheck } from './sync/recheck.js';
import {
  createSyncStore,
  failureText,
  type SyncGap,
  type SyncRequestKind,
  type SyncStore,
} from './sync/store.js';
import { backfill, reconcile, type WalkDeps } from './sync/walks.js';

export interface SyncStatus {
  orders: number;
  /** `done`: the whole history was read, and no skipped page (gap) waits to be read again. */
  backfill: { done: boolean; pagesRead: number; totalPages: number | null };
  /** Pages skipped as unreadable, waiting for the reconciliation to read them again. */
  gaps: SyncGap[];
  /** When the newest page was last read successfully (lag behind the partner is now minus this). */
  lastFollowAt: string | null;
  lastError: string | null;
  /** This replica holds the sync lease. */
  leader: boolean;
}

/** A round follows the newest page, then backfills a few pages; stop aborts it (its cursor is saved after every page). */
export interface OrderSync extends Job<'synced'> {
  status(): Promise<SyncStatus>;
  /** The status as of the last round (for /healthz and /metrics, which must not wait on the database). */
  snapshot(): SyncStatus;
}

export interface OrderSyncOptions {
  partner: Pick<PartnerClient, 'orders'>;
  orderCopy: OrderCopy;
  state: SharedState;
  logger: AppLogger;
  now: () => Date;
  /** ORDER_SYNC_SECONDS: how often the newest page is read. */
  intervalSeconds: number;
  /** tuning.orderSyncMaxRps: the sync's own partner requests per second, across replicas. */
  maxRps: number;
  /** Pages of the backfill per round (the round stays bounded; the next round goes on). */
  backfillPagesPerRound?: number | undefined;
  pageSize?: number | undefined;
  onRequest?: ((kind: SyncRequestKind, outcome: string) => void) | undefined;
  /** tuning.orderReconcileHours: a full pass that catches late changes and orders no longer listed. */
  reconcileHours?: number | undefined;
  clock?: JobClock | undefined;
}

async function readStatus(
  orderCopy: Pick<OrderCopy, 'stats'>,
  store: SyncStore,
  lastError: string | null,
  leader: boolean,
): Promise<SyncStatus> {
  const [stats, walk, followed, gaps] = await Promise.all([
    orderCopy.stats(),
    store.backfill(),
    store.followedAt(),
    store.gaps(),
  ]);
  return {
    orders: stats.orders,
    backfill: {
      // Not done while skipped pages wait: the copy may lack their orders (finance reads the partner).
      done: (walk?.done ?? false) && gaps.length === 0,
      pagesRead: walk?.pagesRead ?? 0,
      totalPages: walk?.totalPages ?? null,
    },
    gaps,
    // Written by the replica syncing, so the others know how fresh the copy is too.
    lastFollowAt: followed ?? null,
    lastError,
    leader,
  };
}

/**
 * Follows the partner's order history into the copy, since the API sends no events: a periodic job on one
 * replica at a time, at the sync's own budget (docs/architecture.md, "The order copy and the sync").
 */
export function createOrderSync(options: OrderSyncOptions): OrderSync {
  const { orderCopy, state, now } = options;
  const log = options.logger.child({ component: 'order-sync' });
  const intervalMs = options.intervalSeconds * 1000;
  const pagesPerRound = options.backfillPagesPerRound ?? 20;
  const store = createSyncStore(orderCopy, now);
  // The largest page the API allows (500): the fewest requests for the history.
  const reads = createSyncReads({ ...options, store, log, pageSize: options.pageSize ?? MAX_PAGE_SIZE });
  const walks: WalkDeps = { reads, orderCopy, store, log, now, pagesPerRound };
  let lastFollowMs = Number.NEGATIVE_INFINITY;
  const follow = createFollow({ ...walks, onNewestRead: () => (lastFollowMs = now().getTime()) });
  const recheck = createRecheck({ reads, orderCopy, now });
  let lastError: string | null = null;
  let last: SyncStatus = {
    orders: 0,
    backfill: { done: false, pagesRead: 0, totalPages: null },
    gaps: [],
    lastFollowAt: null,
    lastError: null,
    leader: false,
  };

  async function status(): Promise<SyncStatus> {
    last = await readStatus(orderCopy, store, lastError, job.isLeader());
    return last;
  }

  async function round(signal: AbortSignal): Promise<'synced' | 'skipped'> {
    try {
      const saved = await store.backfill();
      // Once the backfill is done, the newest page is read once per interval, no more often.
      const followDue = now().getTime() - lastFollowMs >= intervalMs;
      if (saved?.done && !followDue) return 'skipped';
      // During the backfill too, so its page reads stay close to the number of pages.
      const walk = saved && !followDue ? saved : await follow(signal, saved);
      await store.saveBackfill(walk);
      if (!walk.done) {
        await backfill(walks, signal, walk);
      } else {
        await recheck(signal);
        await reconcile(walks, signal, options.reconcileHours ?? 24);
      }
      lastError = null;
      return 'synced';
    } catch (error) {
      if (signal.aborted) throw error;
      lastError = isPartnerApiError(error) ? failureText(error) : (error as Error).message;
      throw new Error(`order sync failed: ${lastError}`, { cause: error });
    }
  }

  const job = createPeriodicJob({
    name: 'order-sync',
    state,
    logger: log,
    // While the backfill runs, rounds follow each other closely.
    everyMs: Math.min(intervalMs, 5_000),
    firstAfterMs: 0,
    leaseMs: Math.max(intervalMs * 3, 30_000),
    backoff: { firstMs: 30_000, maxMs: 600_000 },
    clock: options.clock,
    now,
    round,
    onOutcome: () =>
      status().then(
        () => undefined,
        () => undefined,
      ),
  });

  return { ...job, status, snapshot: () => last };
}
