import type { PartnerClient } from '../partner-api/index.js';
import type { OrderIndex } from './order-index.js';

const afterThisTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

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
  // The write starts on a timer, not at once: better-sqlite3 writes synchronously, and started at once
  // it ran ahead of the reply's socket write (about 0.5 ms of every /order answer, measured in
  // `npm run bench` section 2). A timer runs in the event loop's next turn, after the answer has
  // left. Tracked from now, so a graceful stop still waits for it.
  const keep = (work: () => Promise<unknown>) => {
    void options.track(
      afterThisTurn()
        .then(work)
        .catch(() => undefined),
    );
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
