import type { OrderSummary, PartnerClient } from '../partner-api/index.js';
import type { OrderCopy } from './order-copy.js';

/**
 * The partner client, with every order Order Desk sees in normal use (a lookup, a search, the recent
 * orders, a keys answer's status) also written to the order copy, with the time it was read. A
 * database that is down only means the copy learns less (its outage is logged once by the database
 * layer); a stopping process waits for the writes under way (they are tracked).
 *
 * The write starts on a timer, after the code that asked has answered: the reply to Slack is written
 * to its socket a turn of the event loop after it is sent (fetch streams the body), and a write
 * started with the lookup ran first, on the event loop, and held every answer back until it was done.
 * Readers of the copy right after a lookup may not see that lookup's orders yet: they use the
 * partner's answer, which is newer (flows/lookup-order.ts).
 */
export function withWriteThrough(
  partner: PartnerClient,
  copy: OrderCopy,
  options: { now: () => Date; track: <T>(work: Promise<T>) => Promise<T> },
): PartnerClient {
  const afterTheAnswer = (write: () => Promise<unknown>) => {
    const turn = new Promise<void>((resolve) => setTimeout(resolve, 0));
    void options.track(turn.then(write).catch(() => undefined));
  };
  /** A read whose answer's orders go to the copy, after the answer. */
  const recording =
    <A extends unknown[], R extends { orders: readonly OrderSummary[] }>(read: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const result = await read(...args);
      const seenAt = options.now();
      afterTheAnswer(() => copy.record(result.orders, seenAt));
      return result;
    };
  const { orders } = partner;
  const recorded: PartnerClient = {
    ...partner,
    onBehalfOf: (userId) => (userId ? withWriteThrough(partner.onBehalfOf(userId), copy, options) : recorded),
    orders: {
      ...orders,
      list: recording(orders.list),
      find: recording(orders.find),
      recent: recording(orders.recent),
      async keys(orderId) {
        const answer = await orders.keys(orderId);
        const seenAt = options.now();
        afterTheAnswer(() => copy.recordStatus(answer.orderId, answer.status, seenAt));
        return answer;
      },
    },
  };
  return recorded;
}
