import type { BalanceReading, BalanceState } from '../blocks/index.js';
import type { AppLogger } from '../logger.js';
import { type AccountBalance, isPartnerApiError, type PartnerClient } from '../partner-api/index.js';
import { logPartnerFailure } from './partner-failures.js';

export interface BalanceService {
  /** The cached reading when fresh; otherwise one is read (concurrent callers share it). */
  current(options?: { force?: boolean }): Promise<BalanceState>;
  /** Every successful keys answer carries the balance: keep it, so finance sees it fresh for free. */
  record(balance: AccountBalance | null, orderId: string, traceId: string | undefined): void;
}

// How far back to look for a completed order before saying the balance is not available yet.
const RECENT_WINDOW = 20;
const SCAN_LIMIT = 2_000;

/**
 * The partner API reports the balance only inside an order's keys answer. So the balance is read
 * from the keys of the most recent completed order; the keys themselves are dropped on the spot
 * (only `balance` leaves this function) and never stored, logged or shown.
 */
export function createBalanceService(
  partner: PartnerClient,
  ttlSeconds: number,
  logger: AppLogger,
  clock: () => Date = () => new Date(),
): BalanceService {
  let cached: BalanceReading | undefined;
  let pending: Promise<BalanceState> | undefined;

  const fresh = () => cached !== undefined && clock().getTime() - cached.readAt.getTime() < ttlSeconds * 1000;

  async function findCompletedOrderId(): Promise<string | undefined> {
    const recent = await partner.orders.recent(RECENT_WINDOW);
    const completed = recent.orders.find((order) => order.status?.toUpperCase() === 'COMPLETED');
    if (completed) return completed.id;
    let seen = 0;
    for await (const order of partner.orders.all({ pageSize: 100, prefetch: 1 })) {
      if (order.status?.toUpperCase() === 'COMPLETED') return order.id;
      if (++seen >= SCAN_LIMIT) break;
    }
    return undefined;
  }

  async function read(): Promise<BalanceState> {
    try {
      const orderId = await findCompletedOrderId();
      if (!orderId) return { kind: 'no_completed_order' };
      const { balance, traceId } = await partner.orders.keys(orderId);
      record(balance, orderId, traceId);
      return cached ? { kind: 'reading', reading: cached } : { kind: 'no_completed_order' };
    } catch (error) {
      if (!isPartnerApiError(error)) throw error;
      // Logged here, once per reading: finance users waiting on the same reading share its failure.
      logPartnerFailure(logger, error, { where: 'balance' });
      return { kind: 'error', error };
    }
  }

  function record(balance: AccountBalance | null, orderId: string, traceId: string | undefined): void {
    if (!balance) return;
    cached = {
      balance: balance.balance,
      creditLimit: balance.creditLimit,
      readAt: clock(),
      sourceOrderId: orderId,
      traceId,
    };
  }

  return {
    current(options = {}) {
      if (!options.force && fresh() && cached) return Promise.resolve({ kind: 'reading', reading: cached });
      pending ??= read().finally(() => {
        pending = undefined;
      });
      return pending;
    },
    record,
  };
}
