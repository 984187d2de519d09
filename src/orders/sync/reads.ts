import { systemClock } from '../../jobs/index.js';
import type { AppLogger } from '../../logger.js';
import { isPartnerApiError, type OrderPage, type PartnerClient } from '../../partner-api/index.js';
import type { SharedState } from '../../state/index.js';
import { failureText, type SyncRequestKind, type SyncStore } from './store.js';

// A page that cannot be read is tried this many times in a row, then skipped as a gap.
const PAGE_TRIES = 3;
// Gaps kept (the oldest dropped beyond): a partner whose every page is unreadable is an outage, and
// the reconciliation reads the whole history again anyway.
const MAX_GAPS = 100;

/** The sync's partner reads, each at the sync's own budget. */
export interface SyncReads {
  /** A page of the history (or, with `search`, the orders matching it), counted by kind. */
  read(signal: AbortSignal, kind: SyncRequestKind, page: number, search?: string): Promise<OrderPage>;
  /**
   * A page of a walk, tried PAGE_TRIES times while its answer cannot be read; then undefined, recorded
   * as a gap. Other failures (the partner down, a 429) end the round: the next page would fail alike.
   */
  readPage(signal: AbortSignal, kind: 'backfill' | 'reconcile', page: number): Promise<OrderPage | undefined>;
}

export function createSyncReads(options: {
  partner: Pick<PartnerClient, 'orders'>;
  state: SharedState;
  store: SyncStore;
  log: AppLogger;
  now: () => Date;
  maxRps: number;
  pageSize: number;
  onRequest?: ((kind: SyncRequestKind, outcome: string) => void) | undefined;
}): SyncReads {
  const { partner, store, log, now } = options;
  const budget = options.state.limiter({
    name: 'order-sync',
    points: options.maxRps,
    durationSeconds: 1,
    whenDown: 'per-process',
  });

  // Then, at the partner, its requests take the app's turns beside people's (partner-api/turns.ts).

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

  const read: SyncReads['read'] = async (signal, kind, page, search) => {
    await takeTurn(signal);
    try {
      const limit = search ? 10 : options.pageSize;
      const result = await partner.orders.list({ page, limit, search, signal });
      options.onRequest?.(kind, 'ok');
      return result;
    } catch (error) {
      if (!signal.aborted) options.onRequest?.(kind, isPartnerApiError(error) ? error.kind : 'error');
      throw error;
    }
  };

  const readPage: SyncReads['readPage'] = async (signal, kind, page) => {
    for (let tries = 1; ; tries++) {
      try {
        return await read(signal, kind, page);
      } catch (error) {
        if (signal.aborted || !isPartnerApiError(error) || error.kind !== 'invalid_response') throw error;
        if (tries < PAGE_TRIES) continue;
        log.warn(
          { page, kind, tries, traceId: error.traceId, error: error.message },
          'order page unreadable: skipped as a gap, the reconciliation reads it again',
        );
        const gap = { page, kind, at: now().toISOString(), error: failureText(error) };
        await store.saveGaps([...(await store.gaps()), gap].slice(-MAX_GAPS));
        return undefined;
      }
    }
  };

  return { read, readPage };
}
