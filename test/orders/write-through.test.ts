import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PartnerSimulator } from '../../sandbox/simulator/server.js';
import { createInflightTracker } from '../../src/app/inflight.js';
import { type OrderDeskDb, openDatabase } from '../../src/db/index.js';
import { createLogger } from '../../src/logger.js';
import { createOrderIndex, type OrderIndex } from '../../src/orders/order-index.js';
import { withWriteThrough } from '../../src/orders/write-through.js';
import { clientFor, startTestSimulator } from '../helpers/partner.js';

const logger = createLogger({
  level: 'silent',
  secrets: [],
  destination: new Writable({ write: (_c, _e, d) => d() }),
});

describe('what Order Desk reads from the partner is written to the copy after the answer', () => {
  let simulator: PartnerSimulator;
  let db: OrderDeskDb;
  let index: OrderIndex;
  let writes: number;
  const tracker = createInflightTracker();
  const now = () => new Date('2026-11-26T10:00:00.000Z');

  beforeAll(async () => {
    simulator = await startTestSimulator({ orders: 30 });
    db = await openDatabase({ databaseUrl: undefined, dataDir: ':memory:', logger });
    const real = createOrderIndex(db);
    // Counts the copy's writes (one per batch); the writes themselves are the real ones.
    index = {
      ...real,
      record: (orders, seenAt) => {
        writes++;
        return real.record(orders, seenAt);
      },
    };
  });
  afterAll(async () => {
    await db.close();
    await simulator.stop();
  });

  const partner = () =>
    withWriteThrough(clientFor(simulator), index, { now, track: tracker.track, delayMs: 50 });

  it('nothing is written before the answer; the lookups of the moment go in one write', async () => {
    writes = 0;
    const [first, second] = simulator.allOrders();
    if (!first || !second) throw new Error('fixture');
    const client = partner();
    await client.orders.find(first.id);
    await client.orders.find(second.reference_id);
    expect(await index.get(first.id)).toBeUndefined();
    expect(tracker.size).toBe(1);
    expect(await tracker.drain(2_000)).toBe(true);
    expect(writes).toBe(1);
    expect((await index.get(first.id))?.referenceId).toBe(first.reference_id);
    expect((await index.get(second.id))?.referenceId).toBe(second.reference_id);
  });

  it('a status seen after the whole order, in the same moment, is the one kept', async () => {
    const order = simulator.addOrder({ status: 'PROCESSING' });
    const client = partner();
    await client.orders.find(order.id);
    simulator.history.setStatus(order.id, 'COMPLETED');
    await client.orders.keys(order.id);
    expect(await tracker.drain(2_000)).toBe(true);
    expect((await index.get(order.id))?.status).toBe('COMPLETED');
    const events = await index.eventsOf(order.id, 5);
    expect(events.map((event) => event.kind)).toEqual(['new']);
  });
});
