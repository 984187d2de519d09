import type { OrderCopy } from '../order-copy.js';
import type { SyncReads } from './reads.js';

const RECHECK_FIRST_MS = 60_000;
const RECHECK_MAX_MS = 3_600_000;
const RECHECK_WINDOW_MS = 30 * 86_400_000;
// With the newest page once a minute, a quiet account costs ~70 requests an hour, however many are stuck.
const RECHECKS_PER_HOUR = 10;
const RECHECKS_PER_ROUND = 5;

/** Unsettled orders change in place: each is searched for by ID on a back-off (docs/architecture.md). */
export function createRecheck(deps: {
  reads: SyncReads;
  orderCopy: Pick<OrderCopy, 'record' | 'dueForCheck' | 'scheduleCheck'>;
  now: () => Date;
}): (signal: AbortSignal) => Promise<void> {
  const { reads, orderCopy, now } = deps;
  // When the re-checks of the last hour were made (a sliding hour, on this replica).
  const recent: number[] = [];
  return async (signal) => {
    const hourAgo = now().getTime() - 3_600_000;
    while (recent.length && (recent[0] ?? 0) <= hourAgo) recent.shift();
    const allowed = Math.min(RECHECKS_PER_ROUND, RECHECKS_PER_HOUR - recent.length);
    if (allowed <= 0) return;
    const due = await orderCopy.dueForCheck(now(), new Date(now().getTime() - RECHECK_WINDOW_MS), allowed);
    for (const _ of due) recent.push(now().getTime());
    for (const order of due) {
      if (signal.aborted) return;
      const page = await reads.read(signal, 'recheck', 1, order.id);
      const wanted = order.id.toLowerCase();
      const found = page.orders.filter((candidate) => candidate.id.toLowerCase() === wanted);
      if (found.length) await orderCopy.record(found, now());
      const checks = order.checks + 1;
      const waitMs = Math.min(RECHECK_FIRST_MS * 2 ** (checks - 1), RECHECK_MAX_MS);
      await orderCopy.scheduleCheck(order.id, new Date(now().getTime() + waitMs), checks);
    }
  };
}
