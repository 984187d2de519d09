import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { PartnerSimulator } from '../../sandbox/simulator/server.js';
import { type OrderDeskDb, openDatabase } from '../../src/db/index.js';
import { createLogger } from '../../src/logger.js';
import { createOrderCopy } from '../../src/orders/order-copy.js';
import { createOrderSync, type OrderSync } from '../../src/orders/order-sync.js';
import { createMemoryState, type SharedState } from '../../src/state/index.js';
import { wallClock } from '../helpers/clock.js';
import { clientFor, startTestSimulator } from '../helpers/partner.js';

const logger = createLogger({
  level: 'silent',
  secrets: [],
  destination: new Writable({ write: (_c, _e, d) => d() }),
});

describe('the sync over histories as APIs order them', () => {
  let simulator: PartnerSimulator | undefined;
  let db: OrderDeskDb | undefined;
  let state: SharedState | undefined;
  let sync: OrderSync | undefined;
  afterEach(async () => {
    await sync?.stop();
    await db?.close();
    await state?.close();
    await simulator?.stop();
  });

  async function start(ordering: 'newest_first' | 'oldest_first') {
    simulator = await startTestSimulator({ orders: 730, ordering });
    db = await openDatabase({ databaseUrl: undefined, dataDir: ':memory:', logger });
    state = createMemoryState();
    const orderCopy = createOrderCopy(db);
    const pagesRead: number[] = [];
    sync = createOrderSync({
      partner: clientFor(simulator),
      orderCopy,
      state,
      logger,
      // The simulator dates its orders on the real clock: the sync runs on it too.
      now: () => new Date(wallClock()),
      intervalSeconds: 60,
      maxRps: 100,
      pageSize: 100,
      backfillPagesPerRound: 2,
      onRequest: () => pagesRead.push(1),
    });
    return { orderCopy, pagesRead, sim: simulator, sync };
  }

  it('an oldest-first history: the backfill starts from its last page (the newest orders) and reads every page once', async () => {
    const { orderCopy, sim, sync: s } = await start('oldest_first');
    await s.runOnce();
    // After the first round (the newest page, then two more going back), the newest orders are in.
    const newest = [...sim.allOrders()]
      .sort((a, b) => b.created_at.localeCompare(a.created_at))
      .slice(0, 100);
    for (const order of newest) expect(await orderCopy.get(order.id)).toBeDefined();
    // Its backfill walks back from the last page: the middle of the history is not read yet.
    const middle = [...sim.allOrders()].sort((a, b) => a.created_at.localeCompare(b.created_at))[350];
    expect(await orderCopy.get(middle?.id ?? '')).toBeUndefined();
    while (!(await s.status()).backfill.done) await s.runOnce();
    expect((await s.status()).orders).toBe(730);
    expect((await s.status()).backfill.pagesRead).toBe(8);
  });

  it('pages that shift as new orders arrive during the backfill: nothing is missed, nothing counted twice', async () => {
    const { orderCopy, sim, sync: s } = await start('newest_first');
    await s.runOnce();
    // 150 new orders arrive at the newest end: every later page now starts 150 orders further down.
    sim.history.arrive(150);
    while (!(await s.status()).backfill.done) await s.runOnce();
    // The follow of a later round picks up the newest ones; the backfill saw each older one at least once.
    await s.stop();
    sync = undefined;
    const next = createOrderSync({
      partner: clientFor(sim),
      orderCopy,
      state: state as SharedState,
      logger,
      // Two minutes later (a later round).
      now: () => new Date(wallClock() + 120_000),
      intervalSeconds: 60,
      maxRps: 100,
      pageSize: 200,
    });
    sync = next;
    await next.runOnce();
    expect((await next.status()).orders).toBe(880);
    const news = (await orderCopy.events(0, 10_000)).filter((event) => event.kind === 'new');
    expect(news).toHaveLength(880);
  });
});
