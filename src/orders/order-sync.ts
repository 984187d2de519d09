import { createPeriodicJob, type Job, type JobClock, systemClock } from '../jobs/index.js';
import type { AppLogger } from '../logger.js';
import {
  detectOrdering,
  isPartnerApiError,
  MAX_PAGE_SIZE,
  type OrderPage,
  type PartnerApiError,
  type PartnerClient,
} from '../partner-api/index.js';
import type { SharedState } from '../state/index.js';
import type { OrderCopy } from './order-copy.js';

/** Which kind of read the sync made, for the metrics (a closed set). */
export type SyncRequestKind = 'backfill' | 'follow' | 'recheck' | 'reconcile';

/**
 * A page of the history the sync could not read (an unreadable answer, PAGE_TRIES times): skipped so
 * that one bad page does not hold up the rest, and read again by the reconciliation.
 */
export interface SyncGap {
  /** The page number when it was skipped (pages shift as orders arrive: the whole pass reads it again). */
  page: number;
  kind: 'backfill' | 'reconcile';
  at: string;
  /** The partner error's kind and trace ID. */
  error: string;
}

export interface SyncStatus {
  /** Orders in the copy. */
  orders: number;
  /** `done`: the whole history was read, and no skipped page (gap) waits to be read again. */
  backfill: { done: boolean; pagesRead: number; totalPages: number | null };
  /** Pages skipped as unreadable, waiting for the reconciliation to read them again. */
  gaps: SyncGap[];
  /** When the newest page was last read successfully (lag behind the partner is now minus this). */
  lastFollowAt: string | null;
  lastError: string | null;
  /** True while this replica holds the sync lease. */
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

interface BackfillCursor {
  /** The next page to read, in the API's page numbers. */
  nextPage: number;
  /** Pages the backfill walks: 1, 2, … for a newest-first API; N, N-1, … for oldest-first. */
  direction: 1 | -1;
  totalPages: number | null;
  pagesRead: number;
  done: boolean;
}

/** A walk of the whole history from its newest end: page 1 on when newest first, else the last page back. */
function walkFromNewest(direction: 1 | -1, totalPages: number | null): BackfillCursor {
  return {
    nextPage: direction === 1 ? 1 : (totalPages ?? 1),
    direction,
    totalPages,
    pagesRead: 0,
    done: false,
  };
}

const CURSOR = 'backfill';
const FOLLOWED = 'followed_at';
const RECONCILE = 'reconcile';
const GAPS = 'gaps';
// A page whose answer cannot be read is tried this many times in a row, then skipped as a gap.
const PAGE_TRIES = 3;
// Gaps kept (the oldest dropped beyond): a partner whose every page is unreadable is an outage, and
// the reconciliation reads the whole history again anyway.
const MAX_GAPS = 100;
const RECHECK_FIRST_MS = 60_000;
const RECHECK_MAX_MS = 3_600_000;
const RECHECK_WINDOW_MS = 30 * 86_400_000;
const RECHECKS_PER_HOUR = 10;
/** Unsettled orders searched for again per round, at most. */
const RECHECKS_PER_ROUND = 5;
const FIRST_BACKOFF_MS = 30_000;
const MAX_BACKOFF_MS = 600_000;

/** A partner failure as the status and a gap keep it: its kind, and its trace ID to find it by. */
const failureText = (error: PartnerApiError) =>
  `${error.kind}${error.traceId ? ` (trace ${error.traceId})` : ''}`;

/**
 * Follows the partner's order history into the copy, since the API sends no events: a periodic job
 * (one replica at a time, backing off 30 s doubling to 10 minutes after a failure), at the sync's own
 * budget (tuning.orderSyncMaxRps, counted across replicas), its requests taking the app's turns
 * beside people's at the partner. The backfill reads the whole history from its newest end and
 * keeps its cursor in the database, so a restart resumes it; pages that shift as new orders arrive are
 * harmless (orders are upserted by ID).
 */
export function createOrderSync(options: OrderSyncOptions): OrderSync {
  const { partner, orderCopy, state, now } = options;
  const log = options.logger.child({ component: 'order-sync' });
  const intervalMs = options.intervalSeconds * 1000;
  // The largest page the API allows (500): the fewest requests for the history.
  const pageSize = options.pageSize ?? MAX_PAGE_SIZE;
  const pagesPerRound = options.backfillPagesPerRound ?? 20;
  /** Where a burst the last follow could not read whole goes on (steps from the newest page). */
  let resumeFollowAt: number | undefined;
  const budget = state.limiter({
    name: 'order-sync',
    points: options.maxRps,
    durationSeconds: 1,
    whenDown: 'per-process',
  });
  let lastFollowMs = Number.NEGATIVE_INFINITY;
  // When the re-checks of the last hour were made (this replica is the one syncing).
  const recentRechecks: number[] = [];
  let lastError: string | null = null;
  let last: SyncStatus = {
    orders: 0,
    backfill: { done: false, pagesRead: 0, totalPages: null },
    gaps: [],
    lastFollowAt: null,
    lastError: null,
    leader: false,
  };

  /**
   * Waits for the sync's budget. At the partner its requests then take the app's turns, one in each
   * round of people's (partner-api/turns.ts): never ahead of a waiting person by more than one, and
   * never starved by a steady stream of lookups, which would leave the copy stale.
   */
  async function takeTurn(signal: AbortSignal): Promise<void> {
    for (;;) {
      signal.throwIfAborted();
      try {
        await budget.consume('sync');
        return;
      } catch (rejection) {
        const wait = (rejection as { msBeforeNext?: number }).msBeforeNext ?? 200;
        await systemClock.sleep(Math.max(20, wait), signal);
      }
    }
  }

  async function read(
    signal: AbortSignal,
    kind: SyncRequestKind,
    page: number,
    search?: string,
  ): Promise<OrderPage> {
    await takeTurn(signal);
    try {
      const result = await partner.orders.list({ page, limit: search ? 10 : pageSize, search, signal });
      options.onRequest?.(kind, 'ok');
      return result;
    } catch (error) {
      if (!signal.aborted) options.onRequest?.(kind, isPartnerApiError(error) ? error.kind : 'error');
      throw error;
    }
  }

  /**
   * One page of the history, tried PAGE_TRIES times while its answer cannot be read (malformed, not
   * the orders' shape); then undefined: it is recorded as a gap, and the walk goes on. Other failures
   * (the partner down, a timeout, a 429) end the round as before: the next page would fail alike.
   */
  async function readPage(
    signal: AbortSignal,
    kind: 'backfill' | 'reconcile',
    page: number,
  ): Promise<OrderPage | undefined> {
    for (let tries = 1; ; tries++) {
      try {
        return await read(signal, kind, page);
      } catch (error) {
        if (signal.aborted || !isPartnerApiError(error) || error.kind !== 'invalid_response') throw error;
        if (tries < PAGE_TRIES) continue;
        const gap: SyncGap = {
          page,
          kind,
          at: now().toISOString(),
          error: failureText(error),
        };
        log.warn(
          { page, kind, tries, traceId: error.traceId, error: error.message },
          'order page unreadable: skipped as a gap, the reconciliation reads it again',
        );
        await save(GAPS, [...(await readGaps()), gap].slice(-MAX_GAPS));
        return undefined;
      }
    }
  }

  /** What the sync keeps in the database between rounds (its cursors, the gaps), as JSON by name. */
  async function load<T>(name: string): Promise<T | undefined> {
    const text = await orderCopy.readCursor(name);
    return text ? (JSON.parse(text) as T) : undefined;
  }
  const save = (name: string, value: unknown) => orderCopy.writeCursor(name, JSON.stringify(value), now());
  const readGaps = async () => (await load<SyncGap[]>(GAPS)) ?? [];
  const readCursor = () => load<BackfillCursor>(CURSOR);

  /**
   * Reads the newest page, and further (the next page toward older orders) while the page just read
   * held new or changed orders: a burst of more than a page between two rounds is read whole. At most
   * `pagesPerRound` pages a round; a burst longer than that is taken up again the next round, from
   * where this one stopped (pages shift as orders arrive: recording is by ID, so a page read twice
   * changes nothing).
   */
  async function follow(signal: AbortSignal, cursor: BackfillCursor | undefined): Promise<BackfillCursor> {
    const first = await read(signal, 'follow', 1);
    const ordering = detectOrdering(first.orders);
    const totalPages = first.totalPages ?? 1;
    const newestFirst = ordering !== 'oldest_first';
    // The page `step` pages away from the newest: 1, 2, … newest first; N, N-1, … oldest first.
    const pageAt = (step: number) => (newestFirst ? 1 + step : totalPages - step);
    let page = first;
    // An oldest-first API keeps its newest orders on the last page.
    if (!newestFirst && totalPages > 1) {
      await orderCopy.record(first.orders, now());
      page = await read(signal, 'follow', totalPages);
    }
    let news = await orderCopy.record(page.orders, now());
    lastFollowMs = now().getTime();
    // Kept in the database: every replica can say how fresh the copy is, not only the one syncing.
    await orderCopy.writeCursor(FOLLOWED, now().toISOString(), now());
    // During the backfill only the newest page: the backfill itself walks the rest, page by page.
    if (!cursor?.done) news = { inserted: 0, statusChanges: 0 };
    let step = resumeFollowAt ?? 0;
    if (resumeFollowAt !== undefined && cursor?.done)
      news = { inserted: page.orders.length, statusChanges: 0 };
    resumeFollowAt = undefined;
    // Further only while the page held new or changed orders: the next may hold more of them. (A
    // quiet account reads the newest page alone; a busy minute costs one page more.)
    const pageHeldNews = () => page.orders.length > 0 && news.inserted + news.statusChanges > 0;
    for (let pages = 1; pageHeldNews() && !signal.aborted; pages++) {
      const next = pageAt(step + 1);
      if (next < 1 || next > totalPages) break;
      if (pages >= pagesPerRound) {
        resumeFollowAt = step;
        break;
      }
      step++;
      page = await read(signal, 'follow', next);
      news = await orderCopy.record(page.orders, now());
    }
    return cursor ?? { ...walkFromNewest(newestFirst ? 1 : -1, totalPages), done: totalPages <= 1 };
  }

  /** Reads and records the cursor's next page (or skips it as a gap); returns the cursor moved one page on. */
  async function walk<C extends BackfillCursor>(
    signal: AbortSignal,
    kind: 'backfill' | 'reconcile',
    cursor: C,
  ): Promise<C> {
    const page = await readPage(signal, kind, cursor.nextPage);
    if (page) await orderCopy.record(page.orders, now());
    const totalPages = page?.totalPages ?? cursor.totalPages;
    const nextPage = cursor.nextPage + cursor.direction;
    return {
      ...cursor,
      totalPages,
      pagesRead: cursor.pagesRead + 1,
      nextPage,
      done: page?.orders.length === 0 || nextPage < 1 || (totalPages !== null && nextPage > totalPages),
    };
  }

  async function backfill(signal: AbortSignal, cursor: BackfillCursor): Promise<BackfillCursor> {
    let current = cursor;
    for (let i = 0; i < pagesPerRound && !current.done && !signal.aborted; i++) {
      current = await walk(signal, 'backfill', current);
      // Saved after every page: a restart, here or on another replica, resumes from here.
      await save(CURSOR, current);
    }
    return current;
  }

  /**
   * Unsettled orders (not completed, refunded, cancelled or failed) beyond the newest page change
   * without moving: each is searched for by its ID on a back-off (1 minute doubling to 1 hour) until it
   * settles or is 30 days old.
   */
  async function recheck(signal: AbortSignal): Promise<void> {
    // At most 10 re-checks an hour: with the newest page once a minute, a quiet account costs about
    // 70 requests an hour, however many orders are stuck unsettled.
    // A sliding hour: any 60 minutes hold at most RECHECKS_PER_HOUR of them.
    const hourAgo = now().getTime() - 3_600_000;
    while (recentRechecks.length && (recentRechecks[0] ?? 0) <= hourAgo) recentRechecks.shift();
    const allowed = Math.min(RECHECKS_PER_ROUND, RECHECKS_PER_HOUR - recentRechecks.length);
    if (allowed <= 0) return;
    const due = await orderCopy.dueForCheck(now(), new Date(now().getTime() - RECHECK_WINDOW_MS), allowed);
    for (const _ of due) recentRechecks.push(now().getTime());
    for (const order of due) {
      if (signal.aborted) return;
      const page = await read(signal, 'recheck', 1, order.id);
      const found = page.orders.filter((candidate) => candidate.id.toLowerCase() === order.id.toLowerCase());
      if (found.length) await orderCopy.record(found, now());
      const checks = order.checks + 1;
      const waitMs = Math.min(RECHECK_FIRST_MS * 2 ** (checks - 1), RECHECK_MAX_MS);
      await orderCopy.scheduleCheck(order.id, new Date(now().getTime() + waitMs), checks);
    }
  }

  /**
   * Every reconcileHours a full pass over the history, at the budget like the backfill: it
   * catches late changes (a completed order refunded) and marks orders no longer listed (never
   * deleting them). Its cursor is in the database like the backfill's. Pages the backfill skipped
   * (gaps) make a pass due at once; a pass that ends has read every earlier gap again, and keeps only
   * the pages it could not read itself (for the next pass, on the usual schedule).
   */
  async function reconcile(signal: AbortSignal): Promise<void> {
    const hours = options.reconcileHours ?? 24;
    let pass = await load<BackfillCursor & { startedAt: string }>(RECONCILE);
    const backfillGaps = (await readGaps()).some((gap) => gap.kind === 'backfill');
    if (!pass && !backfillGaps) {
      // The backfill was the first full pass: the next one is due reconcileHours from now.
      await save(RECONCILE, { ...walkFromNewest(1, null), done: true, startedAt: now().toISOString() });
      return;
    }
    if (!pass || pass.done) {
      const last = pass ? Date.parse(pass.startedAt) : Number.NEGATIVE_INFINITY;
      if (now().getTime() - last < hours * 3_600_000 && !backfillGaps) return;
      const backfill = await readCursor();
      if (!backfill?.done) return;
      pass = { ...walkFromNewest(backfill.direction, backfill.totalPages), startedAt: now().toISOString() };
    }
    for (let i = 0; i < pagesPerRound && !pass.done && !signal.aborted; i++) {
      pass = await walk(signal, 'reconcile', pass);
      if (pass.done) {
        const startedAt = pass.startedAt;
        const gaps = (await readGaps()).filter((gap) => gap.kind === 'reconcile' && gap.at >= startedAt);
        // With pages unread, an order on them was not seen: none is marked missing this pass.
        const missing = gaps.length ? 0 : await orderCopy.markUnseenMissing(new Date(startedAt), now());
        await save(GAPS, gaps);
        log.info({ pages: pass.pagesRead, missing, gaps: gaps.length }, 'reconciliation pass done');
      }
      await save(RECONCILE, pass);
    }
  }

  async function status(): Promise<SyncStatus> {
    const [stats, cursor, followed, gaps] = await Promise.all([
      orderCopy.stats(),
      readCursor(),
      orderCopy.readCursor(FOLLOWED),
      readGaps(),
    ]);
    last = {
      orders: stats.orders,
      backfill: {
        // Not done while skipped pages wait for the reconciliation: the copy may lack their orders,
        // so it does not cover the history (finance figures and exports read the partner meanwhile).
        done: (cursor?.done ?? false) && gaps.length === 0,
        pagesRead: cursor?.pagesRead ?? 0,
        totalPages: cursor?.totalPages ?? null,
      },
      gaps,
      // Written by the replica syncing: one that is not (composing the digest, serving an export)
      // knows how fresh the copy is too.
      lastFollowAt: followed ?? null,
      lastError,
      leader: job.isLeader(),
    };
    return last;
  }

  async function round(signal: AbortSignal): Promise<'synced' | 'skipped'> {
    try {
      const saved = await readCursor();
      // Once the backfill is done, the newest page is read once per interval, no more often.
      const followDue = now().getTime() - lastFollowMs >= intervalMs;
      if (saved?.done && !followDue) return 'skipped';
      // During the backfill the newest page is still read once per interval, not once per round:
      // the backfill's page reads stay close to the number of pages.
      const cursor = saved && !followDue ? saved : await follow(signal, saved);
      await save(CURSOR, cursor);
      if (!cursor.done) {
        await backfill(signal, cursor);
      } else {
        await recheck(signal);
        await reconcile(signal);
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
    // While the backfill runs, rounds follow each other closely; the round reads the newest page once
    // per interval.
    everyMs: Math.min(intervalMs, 5_000),
    firstAfterMs: 0,
    leaseMs: Math.max(intervalMs * 3, 30_000),
    backoff: { firstMs: FIRST_BACKOFF_MS, maxMs: MAX_BACKOFF_MS },
    clock: options.clock,
    now,
    round,
    // The snapshot /healthz and /metrics read, as of this turn.
    onOutcome: () =>
      status().then(
        () => undefined,
        () => undefined,
      ),
  });

  return { ...job, status, snapshot: () => last };
}
