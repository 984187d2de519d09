import type { AppLogger } from '../../logger.js';
import type { OrderCopy } from '../order-copy.js';
import type { SyncReads } from './reads.js';
import { type PageWalk, type ReconcilePass, type SyncStore, walkFromNewest } from './store.js';

// The two walks over the whole history, a few pages a round, their cursors in the database.

export interface WalkDeps {
  reads: SyncReads;
  orderCopy: Pick<OrderCopy, 'record' | 'markUnseenMissing'>;
  store: SyncStore;
  log: AppLogger;
  now: () => Date;
  pagesPerRound: number;
}

/** Reads and records the walk's next page (or skips it as a gap); returns the walk one page on. */
async function step<W extends PageWalk>(
  deps: WalkDeps,
  signal: AbortSignal,
  kind: 'backfill' | 'reconcile',
  walk: W,
): Promise<W> {
  const page = await deps.reads.readPage(signal, kind, walk.nextPage);
  if (page) await deps.orderCopy.record(page.orders, deps.now());
  const totalPages = page?.totalPages ?? walk.totalPages;
  const nextPage = walk.nextPage + walk.direction;
  const done = page?.orders.length === 0 || nextPage < 1 || (totalPages !== null && nextPage > totalPages);
  return { ...walk, totalPages, pagesRead: walk.pagesRead + 1, nextPage, done };
}

/** A round's pages of the backfill, its cursor saved after every page (a restart resumes from it). */
export async function backfill(deps: WalkDeps, signal: AbortSignal, walk: PageWalk): Promise<PageWalk> {
  let current = walk;
  for (let i = 0; i < deps.pagesPerRound && !current.done && !signal.aborted; i++) {
    current = await step(deps, signal, 'backfill', current);
    await deps.store.saveBackfill(current);
  }
  return current;
}

/** The pass to go on with this round, a new one when due; undefined when none is due. */
async function duePass(deps: WalkDeps, reconcileHours: number, backfillGaps: boolean) {
  const { store, now } = deps;
  const pass = await store.reconcile();
  if (!pass && !backfillGaps) {
    // The backfill was the first full pass: the next one is due reconcileHours from now.
    await store.saveReconcile({ ...walkFromNewest(1, null), done: true, startedAt: now().toISOString() });
    return undefined;
  }
  if (pass && !pass.done) return pass;
  const last = pass ? Date.parse(pass.startedAt) : Number.NEGATIVE_INFINITY;
  if (now().getTime() - last < reconcileHours * 3_600_000 && !backfillGaps) return undefined;
  const backfilled = await store.backfill();
  if (!backfilled?.done) return undefined;
  return { ...walkFromNewest(backfilled.direction, backfilled.totalPages), startedAt: now().toISOString() };
}

/**
 * Every reconcileHours a full pass (docs/architecture.md, "Reconcile"). Pages the backfill skipped make
 * a pass due at once; a pass that ends keeps only the gaps it left itself.
 */
export async function reconcile(deps: WalkDeps, signal: AbortSignal, reconcileHours: number): Promise<void> {
  const { store, now } = deps;
  const backfillGaps = (await store.gaps()).some((gap) => gap.kind === 'backfill');
  let pass: ReconcilePass | undefined = await duePass(deps, reconcileHours, backfillGaps);
  for (let i = 0; pass && i < deps.pagesPerRound && !pass.done && !signal.aborted; i++) {
    pass = await step(deps, signal, 'reconcile', pass);
    if (pass.done) {
      const { startedAt } = pass;
      const gaps = (await store.gaps()).filter((gap) => gap.kind === 'reconcile' && gap.at >= startedAt);
      // With pages unread, an order on them was not seen: none is marked missing this pass.
      const missing = gaps.length ? 0 : await deps.orderCopy.markUnseenMissing(new Date(startedAt), now());
      await store.saveGaps(gaps);
      deps.log.info({ pages: pass.pagesRead, missing, gaps: gaps.length }, 'reconciliation pass done');
    }
    await store.saveReconcile(pass);
  }
}
