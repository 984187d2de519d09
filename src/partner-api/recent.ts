import type { OrderSummary } from './schemas.js';
import type { OrderPage, RecentOrders } from './types.js';

export type PageFetcher = (page: number, limit: number) => Promise<OrderPage>;

/** An order's creation time in ms; -Infinity when it has none that can be read (it sorts oldest). */
export function timeOf(order: OrderSummary): number {
  const time = order.createdAt ? Date.parse(order.createdAt) : Number.NaN;
  return Number.isNaN(time) ? Number.NEGATIVE_INFINITY : time;
}

export function newestFirst(orders: readonly OrderSummary[]): OrderSummary[] {
  return [...orders].sort((a, b) => timeOf(b) - timeOf(a));
}

/** Reads the page's direction from created_at; 'unknown' when it cannot tell (one order, equal times). */
export function detectOrdering(orders: readonly OrderSummary[]): RecentOrders['apiOrdering'] {
  const first = orders[0];
  const last = orders[orders.length - 1];
  if (!first || !last) return 'unknown';
  const delta = timeOf(first) - timeOf(last);
  if (!Number.isFinite(delta) || delta === 0) return 'unknown';
  return delta > 0 ? 'newest_first' : 'oldest_first';
}

/** The `count` most recent orders (the API's ordering is "not shown": page 1, then the last pages). */
export async function findRecentOrders(fetchPage: PageFetcher, count: number): Promise<RecentOrders> {
  // At least two per page so the direction can be read from the page itself.
  const limit = Math.max(count, 2);
  const first = await fetchPage(1, limit);
  const ordering = detectOrdering(first.orders);
  const totalPages = first.totalPages ?? 1;
  const answer = (orders: OrderSummary[], traceId: string | undefined): RecentOrders => {
    return { orders: newestFirst(orders).slice(0, count), hits: first.hits, apiOrdering: ordering, traceId };
  };
  if (ordering === 'newest_first' || totalPages <= 1) return answer(first.orders, first.traceId);
  const lastPage = await fetchPage(totalPages, limit);
  const candidates = [...first.orders, ...lastPage.orders];
  if (lastPage.orders.length < count && totalPages - 1 > 1) {
    candidates.push(...(await fetchPage(totalPages - 1, limit)).orders);
  }
  const unique = [...new Map(candidates.map((order) => [order.id, order])).values()];
  return answer(unique, lastPage.traceId ?? first.traceId);
}
