import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PartnerSimulator } from '../../sandbox/simulator/server.js';
import { type OrderDeskDb, openDatabase } from '../../src/db/index.js';
import { createInflightTracker } from '../../src/jobs/inflight.js';
import { createOrderCopy, type OrderCopy } from '../../src/orders/order-copy.js';
import { withWriteThrough } from '../../src/orders/write-through.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import { clientFor, startTestSimulator } from '../helpers/partner.js';

const logger = capturedLogger();

describe('what Order Desk reads from the partner is written to the copy after the answer', () => {
  let simulator: PartnerSimulator;
  let db: OrderDeskDb;
  let copy: OrderCopy;
  let writes: number;
  const tracker = createInflightTracker();
  const now = () => new Date('2026-11-26T10:00:00.000Z');

  beforeAll(async () => {
    simulator = await startTestSimulator({ orders: 30 });
    db = await openDatabase({ databaseUrl: undefined, dataDir: ':memory:', logger });
    const real = createOrderCopy(db);
    // Counts the copy's writes; the writes themselves are the real ones.
    copy = {
      ...real,
      record: (orders, seenAt) => {
        writes++;
        return real.record(orders, seenAt);
      },
      recordStatus: (orderId, status, seenAt) => {
        writes++;
        return real.recordStatus(orderId, status, seenAt);
      },
    };
  });
  afterAll(async () => {
    await db.close();
    await simulator.stop();
  });

  const partner = () => withWriteThrough(clientFor(simulator), copy, { now, track: tracker.track });

  it('the lookup answers before its orders are written; they are written after, with the time they were read', async () => {
    writes = 0;
    const [first] = simulator.allOrders();
    if (!first) throw new Error('fixture');
    await partner().orders.find(first.id);
    // Resumed in the same turn of the event loop as the answer: the write has not started.
    expect(writes).toBe(0);
    expect(tracker.size).toBe(1);
    expect(await tracker.drain(2_000)).toBe(true);
    expect(writes).toBe(1);
    const stored = await copy.get(first.id);
    expect(stored?.referenceId).toBe(first.reference_id);
    expect(stored?.lastSeenAt.toISOString()).toBe(now().toISOString());
  });

  it('a client made for a person writes to the copy as well, and stays so when asked for no one', async () => {
    const [, second, third] = simulator.allOrders();
    if (!second || !third) throw new Error('fixture');
    const forPerson = partner().onBehalfOf('U0AGENT');
    writes = 0;
    await forPerson.orders.find(second.id);
    await forPerson.onBehalfOf(undefined).orders.find(third.id);
    expect(await tracker.drain(2_000)).toBe(true);
    expect(writes).toBe(2);
    expect((await copy.get(third.id))?.referenceId).toBe(third.reference_id);
  });

  it('a keys answer writes the status it saw, after the answer too', async () => {
    const order = simulator.addOrder({ status: 'PROCESSING' });
    const client = partner();
    await client.orders.find(order.id);
    expect(await tracker.drain(2_000)).toBe(true);
    simulator.history.setStatus(order.id, 'COMPLETED');
    writes = 0;
    await client.orders.keys(order.id);
    expect(writes).toBe(0);
    expect(await tracker.drain(2_000)).toBe(true);
    expect(writes).toBe(1);
    expect((await copy.get(order.id))?.status).toBe('COMPLETED');
    const events = await copy.eventsOf(order.id, 5);
    expect(events.map((event) => event.kind)).toEqual(['status', 'new']);
  });
});
