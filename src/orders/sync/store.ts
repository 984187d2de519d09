import type { PartnerApiError } from '../../partner-api/index.js';
import type { OrderCopy } from '../order-copy.js';

// What the sync keeps in the database between rounds, by name, as JSON: the backfill's cursor, when
// the newest page was last read, the reconciliation's pass and the pages skipped as gaps. A restart,
// here or on another replica, goes on from them.

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

/** A walk over the history's pages: the backfill's, or a reconciliation pass's. */
export interface PageWalk {
  /** The next page to read, in the API's page numbers. */
  nextPage: number;
  /** Pages the walk takes: 1, 2, … for a newest-first API; N, N-1, … for oldest-first. */
  direction: 1 | -1;
  totalPages: number | null;
  pagesRead: number;
  done: boolean;
}

export type ReconcilePass = PageWalk & { startedAt: string };

/** A walk of the whole history from its newest end: page 1 on when newest first, else the last page back. */
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

export interface SyncStore {
  backfill(): Promise<PageWalk | undefined>;
  saveBackfill(walk: PageWalk): Promise<void>;
  reconcile(): Promise<ReconcilePass | undefined>;
  saveReconcile(pass: ReconcilePass): Promise<void>;
  gaps(): Promise<SyncGap[]>;
  saveGaps(gaps: SyncGap[]): Promise<void>;
  /** When the newest page was last read (ISO), by whichever replica synced. */
  followedAt(): Promise<string | undefined>;
  saveFollowedAt(at: Date): Promise<void>;
}

export function createSyncStore(
  orderCopy: Pick<OrderCopy, 'readCursor' | 'writeCursor'>,
  now: () => Date,
): SyncStore {
  const load = async <T>(name: string): Promise<T | undefined> => {
    const text = await orderCopy.readCursor(name);
    return text ? (JSON.parse(text) as T) : undefined;
  };
  const save = (name: string, value: unknown) => orderCopy.writeCursor(name, JSON.stringify(value), now());
  return {
    backfill: () => load<PageWalk>('backfill'),
    saveBackfill: (walk) => save('backfill', walk),
    reconcile: () => load<ReconcilePass>('reconcile'),
    saveReconcile: (pass) => save('reconcile', pass),
    gaps: async () => (await load<SyncGap[]>('gaps')) ?? [],
    saveGaps: (gaps) => save('gaps', gaps),
    followedAt: async () => (await orderCopy.readCursor('followed_at')) ?? undefined,
    saveFollowedAt: (at) => orderCopy.writeCursor('followed_at', at.toISOString(), now()),
  };
}
