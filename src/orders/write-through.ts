import type { PartnerClient } from '../partner-api/index.js';
import type { OrderIndex } from './order-index.js';

/**
 * The partner client, with every order Order Desk sees in normal use (a lookup, a search, the recent
 * orders, a keys answer's status) also written to the index, in the background: the user's answer
 * never waits for the database, and a database that is down only means the index learns less (its
 * outage is logged once by the database layer).
 */
export function withWriteThrough(
  partner: PartnerClient,
  index: OrderIndex,
  options: { now: () => Date; track: <T>(work: Promise<T>) => Promise<T> },
): PartnerClient {
  const keep = (work: () => Promise<unknown>) => {
    void options.track(work().catch(() => undefined));
  };
  const { orders } = partner;
  return {
    ...partner,
    orders: {
      ...orders,
      async list(params) {
        const page = await orders.list(params);
        keep(() => index.record(page.orders, options.now()));
        return page;
      },
      async find(query) {
        const result = await orders.find(query);
        keep(() => index.record(result.orders, options.now()));
        return result;
      },
      async recent(count) {
        const result = await orders.recent(count);
        keep(() => index.record(result.orders, options.now()));
        return result;
      },
      async keys(orderId) {
        const answer = await orders.keys(orderId);
        keep(() => index.recordStatus(answer.orderId, answer.status, options.now()));
        return answer;
      },
    },
  };
}
