import { detectOrdering, type OrderSummary, type PartnerClient, timeOf } from '../partner-api/index.js';

const PAGE_SIZE = 500;

/**
 * The orders created from `since` to `until`, page by page, only as far back as needed: page 1 says which
 * end is newest (newest first: forwards past `since`; oldest first: back from the last page; unknown: all).
 */
export async function* ordersBetween(
  partner: PartnerClient,
  since: Date,
  until: Date,
): AsyncGenerator<OrderSummary[]> {
  const from = since.getTime();
  const to = until.getTime();
  const inRange = (orders: readonly OrderSummary[]) =>
    orders.filter((order) => {
      const time = timeOf(order);
      return time >= from && time <= to;
    });
  const reachesPast = (orders: readonly OrderSummary[]) => orders.some((order) => timeOf(order) < from);

  const pages = partner.orders.pages({ pageSize: PAGE_SIZE });
  const first = await pages.next();
  if (first.done) return;
  const ordering = detectOrdering(first.value.orders);
  const totalPages = first.value.totalPages ?? 1;
  if (ordering !== 'oldest_first' || totalPages <= 1) {
    yield inRange(first.value.orders);
    if (ordering === 'newest_first' && reachesPast(first.value.orders)) {
      await pages.return(undefined);
      return;
    }
    for await (const page of pages) {
      yield inRange(page.orders);
      if (ordering === 'newest_first' && reachesPast(page.orders)) break;
    }
    return;
  }
  await pages.return(undefined);
  for (let page = totalPages; page >= 1; page--) {
    const { orders } = await partner.orders.list({ page, limit: PAGE_SIZE });
    yield inRange(orders);
    if (reachesPast(orders)) return;
  }
}
