import type { OrderSummary, PartnerClient } from '../partner-api/index.js';
import type { OrderCopy } from './order-copy.js';

/**
 * The partner client, with every order it sees in normal use also written to the order copy, on a timer
 * after the answer (docs/architecture.md, "Write-through"). A database that is down only means the copy
 * learns less; a stopping process waits for tracked writes.
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
      async keys(orderId, request) {
        const answer = await orders.keys(orderId, request);
        const seenAt = options.now();
        afterTheAnswer(() => copy.recordStatus(answer.orderId, answer.status, seenAt));
        return answer;
      },
    },
  };
  return recorded;
}
