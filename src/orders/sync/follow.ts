import { detectOrdering } from '../../partner-api/index.js';
import { type PageWalk, walkFromNewest } from './store.js';
import type { WalkDeps } from './walks.js';

/**
 * Reads the newest page, and on while the page just read held news, `pagesPerRound` pages a round
 * (docs/architecture.md, "Follow"). Returns the backfill's walk, started here when there was none.
 */
export function createFollow(
  /** `onNewestRead`: the newest page was read and recorded, the next is due an interval from now. */
  deps: WalkDeps & { onNewestRead: () => void },
): (signal: AbortSignal, backfill: PageWalk | undefined) => Promise<PageWalk> {
  const { reads, orderCopy, store, now } = deps;
  /** Where a burst the last follow could not read whole goes on (steps from the newest page). */
  let resumeAt: number | undefined;
  return async (signal, backfill) => {
    const first = await reads.read(signal, 'follow', 1);
    const totalPages = first.totalPages ?? 1;
    const newestFirst = detectOrdering(first.orders) !== 'oldest_first';
    // The page `step` pages away from the newest: 1, 2, … newest first; N, N-1, … oldest first.
    const pageAt = (step: number) => (newestFirst ? 1 + step : totalPages - step);
    let page = first;
    // An oldest-first API keeps its newest orders on the last page.
    if (!newestFirst && totalPages > 1) {
      await orderCopy.record(first.orders, now());
      page = await reads.read(signal, 'follow', totalPages);
    }
    let news = await orderCopy.record(page.orders, now());
    deps.onNewestRead();
    // Kept in the database: every replica can say how fresh the copy is, not only the one syncing.
    await store.saveFollowedAt(now());
    // During the backfill only the newest page: the backfill itself walks the rest, page by page.
    if (!backfill?.done) news = { inserted: 0, statusChanges: 0 };
    let step = resumeAt ?? 0;
    if (resumeAt !== undefined && backfill?.done) news = { inserted: page.orders.length, statusChanges: 0 };
    resumeAt = undefined;
    // A quiet account reads the newest page alone; a busy minute costs one page more.
    const pageHeldNews = () => page.orders.length > 0 && news.inserted + news.statusChanges > 0;
    for (let pages = 1; pageHeldNews() && !signal.aborted; pages++) {
      const next = pageAt(step + 1);
      if (next < 1 || next > totalPages) break;
      if (pages >= deps.pagesPerRound) {
        resumeAt = step;
        break;
      }
      step++;
      page = await reads.read(signal, 'follow', next);
      news = await orderCopy.record(page.orders, now());
    }
    return backfill ?? { ...walkFromNewest(newestFirst ? 1 : -1, totalPages), done: totalPages <= 1 };
  };
}
