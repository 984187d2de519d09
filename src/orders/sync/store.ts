import type { PartnerApiError } from '../../partner-api/index.js';
import type { OrderCopy } from '../order-copy.js';

// What the sync keeps between rounds, as JSON by name in the database: a restart, anywhere, goes on from it.

/** Which kind of read the sync made, for the metrics (a closed set). */
export type SyncRequestKind = 'backfill' | 'follow' | 'recheck' | 'reconcile';

/** A page the sync could not read (PAGE_TRIES times): skipped, and read again by the reconciliation. */
export interface SyncGap {
  /** The page number when it was skipped (pages shift as orders arrive: the whole pass reads it again). */
  page: number;
  kind: 'backfill' | 'reconcile';
  at: string;
  error: string;
}

/** A walk over the history's pages: the backfill's, or a reconciliation pass's. */
export interface PageWalk {
  nextPage: number;
  /** Pages the walk takes: 1, 2, … for a newest-first API; N, N-1, … for oldest-first. */
  direction: 1 | -1;
  totalPages: number | null;
  pagesRead: number;
  done: boolean;
}

export type ReconcilePass = PageWalk & { startedAt: string };

/** A walk of the whole history from its newest end. */
export function walkFromNewest(direction: 1 | -1, totalPages: number | null): PageWalk {
  return {
    nextPage: direction === 1 ? 1 : (totalPages ?? 1),
    direction,
    totalPages,
    pagesRead: 0,
    done: false,
  };
}

/** A partner failure as the status and a gap keep it: its kind, and its trace ID to find it by. */
export const failureText = (error: PartnerApiError) =>
  `${error.kind}${error.traceId ? ` (trace ${error.traceId})` : ''}`;

export type SyncStore = ReturnType<typeof createSyncStore>;

export function createSyncStore(orderCopy: Pick<OrderCopy, 'readCursor' | 'writeCursor'>, now: () => Date) {
  const load = async <T>(name: string): Promise<T | undefined> => {
    const text = await orderCopy.readCursor(name);
    return text ? (JSON.parse(text) as T) : undefined;
  };
  const save = (name: string, value: unknown) => orderCopy.writeCursor(name, JSON.stringify(value), now());
  return {
    backfill: () => load<PageWalk>('backfill'),
    saveBackfill: (walk: PageWalk) => save('backfill', walk),
    reconcile: () => load<ReconcilePass>('reconcile'),
    saveReconcile: (pass: ReconcilePass) => save('reconcile', pass),
    gaps: async () => (await load<SyncGap[]>('gaps')) ?? [],
    saveGaps: (gaps: SyncGap[]) => save('gaps', gaps),
    /** When the newest page was last read (ISO), by whichever replica synced. */
    followedAt: async () => (await orderCopy.readCursor('followed_at')) ?? undefined,
    saveFollowedAt: (at: Date) => orderCopy.writeCursor('followed_at', at.toISOString(), now()),
  };
}
