import type { OrderEvent } from '../orders/order-copy.js';
import type { OrderSummary } from '../partner-api/index.js';
import { canonicalStatus as canonical, isSettled } from '../partner-api/statuses.js';

/** What a channel subscribed to (`/order-subscribe`). The parts combine with AND. */
export interface SubscriptionFilters {
  /** Orders created after the subscription. */
  newOrders: boolean;
  /** Status changes: to any status (`toStatuses` empty), or to one of `toStatuses`. */
  statusChanges: boolean;
  toStatuses: string[];
  minAmount: number | null;
  /** Only orders whose product title contains this text (case apart). */
  titleContains: string | null;
}

// A "new" event is also written when the sync first meets an old order (the backfill, a restart):
// only orders created after the subscription (less this grace for the partner's clock) are news.
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
  const { amount, title } = order.item;
  if (filters.minAmount !== null && (amount === null || amount < filters.minAmount)) return false;
  const wanted = filters.titleContains?.toLowerCase();
  return !wanted || (title?.toLowerCase() ?? '').includes(wanted);
}

/** A watch is answered by the first event after it that shows the order settled (or first seen settled). */
export function watchAnswered(watchedSince: Date, event: OrderEvent): boolean {
  return event.seenAt >= watchedSince && isSettled(event.toStatus);
}
