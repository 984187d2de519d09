import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PartnerSimulator } from '../../sandbox/simulator/server.js';
import { type OrderDeskDb, openDatabase } from '../../src/db/index.js';
import { createBalanceService } from '../../src/finance/balance.js';
import { createLogger } from '../../src/logger.js';
import { createOrderCopy } from '../../src/orders/order-copy.js';
import { createMemoryState } from '../../src/state/index.js';
import { clientFor, startTestSimulator } from '../helpers/partner.js';

// The balance as a person asks for it (the Home tab, the workflow step) and as the background jobs
// read it, against the simulator: a person's question is answered by a recovered partner at once;
// the back-off holds only background reads. And the copy's newest completed order gives the
// balance when the partner's newest orders hold none.

const logger = createLogger({
  level: 'silent',
  secrets: [],
  destination: new Writable({ write: (_chunk, _encoding, done) => done() }),
});

describe('the balance service', () => {
  let simulator: PartnerSimulator;
  let db: OrderDeskDb;
  let clock: Date;
  beforeAll(async () => {
    simulator = await startTestSimulator({ orders: 60 });
    db = await openDatabase({ databaseUrl: undefined, dataDir: ':memory:', logger });
    clock = new Date('2026-11-25T10:00:00.000Z');
  });
  afterAll(async () => {
    await db?.close();
    await simulator?.stop();
  });

  const service = (orderCopy?: ReturnType<typeof createOrderCopy>) =>
    createBalanceService({
      partner: clientFor(simulator, {
        retry: { limit: 0, backoffMs: 5, maxBackoffMs: 5, maxRetryAfterMs: 0 },
      }),
      state: createMemoryState(),
      ttlSeconds: 60,
      logger,
      clock: () => clock,
      orderCopy,
    });

  it('after the partner recovers, a person is answered by it, not by the old error until the back-off ends; background reads keep the back-off', async () => {
    const balance = service();
    simulator.balance = { balance: 1_234.5, credit_limit: 500 };
    // A first reading, then the cached one expires and the partner goes down.
    expect(await balance.current()).toMatchObject({ kind: 'reading', reading: { balance: 1_234.5 } });
    clock = new Date(clock.getTime() + 120_000);
    simulator.faults.set({ errorRate: 1, errorStatus: 503 });
    const failed = await balance.current();
    expect(failed).toMatchObject({ kind: 'error', read: true });
    // The last balance read stays known (its age is shown; the runway is still computed from it).
    expect(failed.kind === 'error' && failed.last).toMatchObject({ balance: 1_234.5, creditLimit: 500 });
    // A second failure, past the first back-off: the back-off doubles to a minute.
    clock = new Date(clock.getTime() + 31_000);
    expect(await balance.current({ background: true })).toMatchObject({ kind: 'error', read: true });
    const retryAt = (await balance.current({ background: true })) as { retryAt?: Date };
    expect(retryAt.retryAt?.getTime()).toBe(clock.getTime() + 60_000);

    // Recovered, well inside that back-off.
    simulator.faults.reset();
    simulator.balance = { balance: 999, credit_limit: 500 };
    clock = new Date(clock.getTime() + 31_000);
    expect(await balance.current({ background: true })).toMatchObject({ kind: 'error', read: false });
    expect(await balance.current()).toMatchObject({ kind: 'reading', reading: { balance: 999 } });
    // And the reading serves the background too.
    expect(await balance.current({ background: true })).toMatchObject({ kind: 'reading' });
  });

  it('while the partner is down, people asking add at most one partner read per 30 s', async () => {
    const balance = service();
    simulator.faults.set({ errorRate: 1, errorStatus: 503 });
    try {
      expect(await balance.current()).toMatchObject({ kind: 'error', read: true });
      const listsRead = () => simulator.recorded.filter((r) => r.path === '/v1/partners/orders').length;
      simulator.resetStats();
      clock = new Date(clock.getTime() + 1_000);
      const soon = [await balance.current(), await balance.current()];
      expect(soon.map((answer) => answer.kind === 'error' && answer.read)).toEqual([false, false]);
      expect(listsRead()).toBe(0);
      clock = new Date(clock.getTime() + 30_000);
      const later = [await balance.current(), await balance.current()];
      expect(later.map((answer) => answer.kind === 'error' && answer.read)).toEqual([true, false]);
      expect(listsRead()).toBe(1);
    } finally {
      simulator.faults.reset();
    }
  });

  it("the partner's newest orders hold no completed one: the copy's newest completed order gives the balance, with no scan", async () => {
    const copy = createOrderCopy(db);
    const seen = [];
    for await (const order of clientFor(simulator).orders.all()) seen.push(order);
    await copy.record(seen, clock);
    const newestCompleted = simulator.allOrders().find((order) => order.status === 'COMPLETED');
    // 25 newer orders, none completed: more than the 20 newest the balance looks at first.
    for (let i = 0; i < 25; i++) simulator.addOrder({ status: 'PROCESSING' });
    simulator.balance = { balance: 4_321, credit_limit: 0 };
    simulator.resetStats();
    const state = await service(copy).current();
    expect(state).toMatchObject({
      kind: 'reading',
      reading: { balance: 4_321, sourceOrderId: newestCompleted?.id },
    });
    // The first page only, then the keys: the history was not walked.
    const lists = simulator.recorded.filter((r) => r.path === '/v1/partners/orders');
    expect(lists).toHaveLength(1);
  });
});
