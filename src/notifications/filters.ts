import type { OrderEvent } from '../orders/order-copy.js';
import type { OrderSummary } from '../partner-api/index.js';
import { canonicalStatus as canonical, isSettled } from '../partner-api/statuses.js';

// Which order events a subscription or a watch is about. Pure: the router and the tests share it.

/** What a channel subscribed to (`/order-subscribe`). The parts combine with AND. */
export interface SubscriptionFilters {
  /** Orders created after the subscription. */
  newOrders: boolean;
  /** Status changes: to any status (`toStatuses` empty), or to one of `toStatuses`. */
  statusChanges: boolean;
  toStatuses: string[];
  /** Only orders of at least this amount. */
  minAmount: number | null;
  /** Only orders whose product title contains this text (case apart). */
  titleContains: string | null;
}

/**
 * A "new" event is also written when the sync first meets an old order (the backfill, a restart):
 * only orders created after the subscription (less this grace for the partner's clock) are news.
 */
export const NEW_ORDER_GRACE_MS = 10 * 60_000;

export function subscriptionMatches(
  filters: SubscriptionFilters,
  subscribedAt: Date,
  event: OrderEvent,
  order: OrderSummary,
): boolean {
  if (event.seenAt.getTime() < subscribedAt.getTime()) return false;
  let kindMatches = false;
  if (event.kind === 'new' && filters.newOrders) {
    const created = order.createdAt ? Date.parse(order.createdAt) : Number.NaN;
    kindMatches = Number.isFinite(created) && created >= subscribedAt.getTime() - NEW_ORDER_GRACE_MS;
  }
  if (event.kind === 'status' && filters.statusChanges) {
    const to = canonical(event.toStatus);
    kindMatches = filters.toStatuses.length === 0 || filters.toStatuses.map(canonical).includes(to);
  }
  if (!kindMatches) return false;
  if (filters.minAmount !== null) {
    if (order.item.amount === null || order.item.amount < filters.minAmount) return false;
  }
  if (filters.titleContains) {
    const title = order.item.title?.toLowerCase() ?? '';
    if (!title.includes(filters.titleContains.toLowerCase())) return false;
  }
  return true;
}

/**
 * A watch is answered by the first event after it was made that shows the order settled: a status
 * change to a settled status, or the order first seen already settled (the copy did not know it).
 */
export function watchAnswered(watchedSince: Date, event: OrderEvent): boolean {
  return event.seenAt >= watchedSince && isSettled(event.toStatus);
}
