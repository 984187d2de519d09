import type { OrderSummary, PartnerClient } from '../partner-api/index.js';
import type { OrderIndex } from './order-index.js';

/** How long what was seen waits before it is written to the copy (together with what follows). */
export const WRITE_BEHIND_MS = 100;

interface SeenBatch {
  /** Orders seen whole (a lookup, a search, the recent orders), by ID: the last seen wins. */
  orders: Map<string, OrderSummary>;
  /** Statuses seen alone (a keys answer), for orders not seen whole in the same batch. */
  statuses: Map<string, string | null>;
  seenAt: Date;
}

/**
 * The partner client, with every order Order Desk sees in normal use (a lookup, a search, the recent
 * orders, a keys answer's status) also written to the order copy, after the answer: what is seen
 * waits WRITE_BEHIND_MS, then goes in one write with whatever else was seen meanwhile.
 * - Why not at once: the reply to Slack is written to its socket a turn of the event loop after the
 *   answer is sent (fetch streams the body), and a copy write started with the lookup ran first, on
 *   the event loop: 0.6 ms of every answer (bench section 2).
 * - A burst of lookups costs one transaction, not one each.
 * - A database that is down only means the copy learns less (its outage is logged once by the
 *   database layer). A stopping process waits for the pending write (it is tracked).
 */
export function withWriteThrough(
  partner: PartnerClient,
  index: OrderIndex,
  options: {
    now: () => Date;
    track: <T>(work: Promise<T>) => Promise<T>;
    delayMs?: number;
  },
): PartnerClient {
  let pending: SeenBatch | undefined;
  const write = async (batch: SeenBatch) => {
    if (batch.orders.size > 0) await index.record([...batch.orders.values()], batch.seenAt);
    for (const [orderId, status] of batch.statuses) await index.recordStatus(orderId, status, batch.seenAt);
  };
  const batch = (): SeenBatch => {
    if (pending) {
      pending.seenAt = options.now();
      return pending;
    }
    const opened: SeenBatch = { orders: new Map(), statuses: new Map(), seenAt: options.now() };
    pending = opened;
    const due = new Promise<void>((resolve) => setTimeout(resolve, options.delayMs ?? WRITE_BEHIND_MS));
    void options.track(
      due
        .then(() => {
          pending = undefined;
          return write(opened);
        })
        .catch(() => undefined),
    );
    return opened;
  };
  const seen = (orders: OrderSummary[]) => {
    if (orders.length === 0) return;
    const into = batch();
    for (const order of orders) {
      into.orders.set(order.id, order);
      into.statuses.delete(order.id);
    }
  };
  const seenStatus = (orderId: string, status: string | null) => {
    const into = batch();
    const whole = into.orders.get(orderId);
    if (whole) into.orders.set(orderId, { ...whole, status });
    else into.statuses.set(orderId, status);
  };
  const { orders } = partner;
  return {
    ...partner,
    orders: {
      ...orders,
      async list(params) {
        const page = await orders.list(params);
        seen(page.orders);
        return page;
      },
      async find(query) {
        const result = await orders.find(query);
        seen(result.orders);
        return result;
      },
      async recent(count) {
        const result = await orders.recent(count);
        seen(result.orders);
        return result;
      },
      async keys(orderId) {
        const answer = await orders.keys(orderId);
        seenStatus(answer.orderId, answer.status);
        return answer;
      },
    },
  };
}
