import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PartnerSimulator } from '../../sandbox/simulator/server.js';
import { type OrderDeskDb, openDatabase } from '../../src/db/index.js';
import { createLogger } from '../../src/logger.js';
import { createOrderCopy } from '../../src/orders/order-copy.js';
import { createOrderSync, type OrderSync } from '../../src/orders/order-sync.js';
import { createPartnerClient } from '../../src/partner-api/index.js';
import { createMemoryState, type SharedState } from '../../src/state/index.js';
import { startTestSimulator } from '../helpers/partner.js';
import { until } from '../helpers/until.js';

const logger = createLogger({
  level: 'silent',
  secrets: [],
  destination: new Writable({ write: (_c, _e, d) => d() }),
});

describe('the order sync against the simulator', () => {
  let simulator: PartnerSimulator;
  let db: OrderDeskDb;
  let state: SharedState;
  const syncs: OrderSync[] = [];
  // One clock for the partner's history and the sync's windows (re-check, reconcile): the history is
  // anchored at its start, so the test reads the same on any day.
  let clock = Date.parse('2026-11-20T09:00:00.000Z');
  beforeAll(async () => {
    simulator = await startTestSimulator({ orders: 450, now: () => clock });
  });
  afterAll(() => simulator.stop());
  afterEach(async () => {
    for (const sync of syncs.splice(0)) await sync.stop();
    await db?.close();
    await state?.close();
  });

  const partner = () =>
    createPartnerClient({
      baseUrl: simulator.url,
      apiKey: simulator.apiKey,
      timeoutMs: 5_000,
      maxConcurrency: 4,
      queryParams: { search: 'search', page: 'page', limit: 'limit' },
    });
  async function setUp() {
    db = await openDatabase({ databaseUrl: undefined, dataDir: ':memory:', logger });
    state = createMemoryState();
    return createOrderCopy(db);
  }
  const syncWith = (
    orderCopy: ReturnType<typeof createOrderCopy>,
    extra: { pagesPerRound?: number; maxRps?: number; logger?: typeof logger } = {},
  ) => {
    const kinds: string[] = [];
    const sync = createOrderSync({
      partner: partner(),
      orderCopy,
      state,
      logger: extra.logger ?? logger,
      now: () => new Date(clock),
      intervalSeconds: 60,
      maxRps: extra.maxRps ?? 50,
      pageSize: 100,
      backfillPagesPerRound: extra.pagesPerRound ?? 2,
      onRequest: (kind) => kinds.push(kind),
    });
    syncs.push(sync);
    return { sync, kinds };
  };

  it('backfills the whole history in bounded rounds, each order once, resuming after a restart', async () => {
    const orderCopy = await setUp();
    const first = syncWith(orderCopy);
    expect(await first.sync.runOnce()).toBe('synced');
    expect((await first.sync.status()).backfill).toEqual({ done: false, pagesRead: 2, totalPages: 5 });
    await first.sync.stop();
    // A new sync (a restart) goes on from the saved cursor, not from the start.
    const second = syncWith(orderCopy);
    let rounds = 0;
    while (!(await second.sync.status()).backfill.done && rounds++ < 10) await second.sync.runOnce();
    const status = await second.sync.status();
    expect(status.backfill.done).toBe(true);
    expect(status.backfill.pagesRead).toBe(5);
    expect(status.orders).toBe(simulator.allOrders().length);
    // Page reads: 5 backfill pages, plus the newest page once per round: no page read twice otherwise.
    expect(second.kinds.filter((kind) => kind === 'backfill')).toHaveLength(3);
    const events = await orderCopy.events(0, 10_000);
    expect(events.filter((event) => event.kind === 'new')).toHaveLength(simulator.allOrders().length);
  });

  it('follows: once the backfill is done, the newest page once per interval; a new order found in the next round, one event', async () => {
    const orderCopy = await setUp();
    const { sync, kinds } = syncWith(orderCopy, { pagesPerRound: 10 });
    await sync.runOnce();
    expect((await sync.status()).backfill.done).toBe(true);
    const before = (await orderCopy.events(0, 10_000)).length;
    const added = simulator.addOrder({ status: 'PROCESSING' });
    // Not due yet: nothing is read.
    const reads = kinds.length;
    clock += 30_000;
    expect(await sync.runOnce()).toBe('skipped');
    expect(kinds).toHaveLength(reads);
    clock += 31_000;
    expect(await sync.runOnce()).toBe('synced');
    expect((await orderCopy.get(added.id))?.status).toBe('PROCESSING');
    const events = (await orderCopy.events(0, 10_000)).slice(before);
    expect(events.map((event) => [event.orderId, event.kind])).toEqual([[added.id, 'new']]);
    // The newest page, and the next (the newest held news, so the next might too); the rest of the
    // round's reads are re-checks of unsettled orders, no reconciliation yet.
    expect(kinds.slice(reads).filter((kind) => kind !== 'recheck')).toEqual(['follow', 'follow']);
  });

  it('re-checks unsettled orders beyond the newest page on a back-off, and reconciles the whole history after ORDER_RECONCILE_HOURS', async () => {
    const orderCopy = await setUp();
    const { sync, kinds } = syncWith(orderCopy, { pagesPerRound: 10 });
    await sync.runOnce();
    expect((await sync.status()).backfill.done).toBe(true);
    // An old unsettled order completes: not on the newest page, so only a re-check finds it.
    const old = simulator
      .allOrders()
      .slice(150)
      .find((o) => o.status === 'PROCESSING' || o.status === 'PENDING');
    expect(old).toBeDefined();
    simulator.history.complete(old?.id ?? '');
    let rounds = 0;
    // At most 10 re-checks an hour, the longest-waiting first: a few hours of rounds reach it.
    while ((await orderCopy.get(old?.id ?? ''))?.status !== 'COMPLETED' && rounds++ < 200) {
      clock += 360_000;
      await sync.runOnce();
    }
    expect((await orderCopy.get(old?.id ?? ''))?.status).toBe('COMPLETED');
    expect(kinds).toContain('recheck');
    // A completed order deep in the history is refunded: the reconciliation pass finds it.
    const completed = simulator
      .allOrders()
      .slice(200)
      .find((o) => o.status === 'COMPLETED');
    simulator.history.refund(completed?.id ?? '');
    clock += 25 * 3_600_000;
    rounds = 0;
    while ((await orderCopy.get(completed?.id ?? ''))?.status !== 'REFUNDED' && rounds++ < 10) {
      clock += 61_000;
      await sync.runOnce();
    }
    expect((await orderCopy.get(completed?.id ?? ''))?.status).toBe('REFUNDED');
    expect(kinds).toContain('reconcile');
    const refunds = (await orderCopy.events(0, 10_000)).filter(
      (event) => event.orderId === completed?.id && event.kind === 'status',
    );
    expect(refunds.map((event) => [event.fromStatus, event.toStatus])).toEqual([['COMPLETED', 'REFUNDED']]);
  });

  it('a quiet account costs at most 70 sync requests an hour at the default 60 s (measured over an hour of rounds)', async () => {
    const orderCopy = await setUp();
    const { sync, kinds } = syncWith(orderCopy, { pagesPerRound: 10 });
    await sync.runOnce();
    expect((await sync.status()).backfill.done).toBe(true);
    // Past the first re-checks' back-offs (they double to an hour), then one hour of rounds every 20 s:
    // three rounds per 60 s interval, so 120 rounds an hour where a follow is not due and only the
    // re-check budget (10 an hour) stands between them and the partner; more rounds would only cost
    // time, not chances.
    clock += 2 * 3_600_000;
    await sync.runOnce();
    const start = kinds.length;
    for (let i = 0; i < 180; i++) {
      clock += 20_000;
      await sync.runOnce();
    }
    const hour = kinds.slice(start);
    expect(hour.filter((kind) => kind === 'follow')).toHaveLength(60);
    expect(hour.length).toBeLessThanOrEqual(70);
  });

  it('one replica syncs at a time (a lease); the other takes over when it stops', async () => {
    const orderCopy = await setUp();
    const a = syncWith(orderCopy);
    const b = syncWith(orderCopy);
    expect(await a.sync.runOnce()).toBe('synced');
    expect(await b.sync.runOnce()).toBe('skipped');
    expect(b.kinds).toHaveLength(0);
    await a.sync.stop();
    expect(await b.sync.runOnce()).toBe('synced');
  });

  it('a stop ends a partner read under way: the round ends at once, no back-off, the lease free', async () => {
    const orderCopy = await setUp();
    const { sync, kinds } = syncWith(orderCopy);
    // The partner holds its answers far longer than any stop may take.
    simulator.faults.set({ latencyMs: 60_000 });
    try {
      const inFlight = simulator.stats.inFlight;
      const round = sync.runOnce();
      await until('the sync to be waiting for the partner', () => simulator.stats.inFlight > inFlight);
      // The partner holds its answer for a minute, past the client's 5 s timeout (which would end the
      // round 'failed') and the test's own: a round that ends 'stopped' was cut short by the stop.
      await sync.stop();
      expect(await round).toBe('stopped');
      // Not counted as a partner failure, and no back-off: another replica syncs at once.
      expect(kinds).toEqual([]);
      simulator.faults.reset();
      const { sync: next } = syncWith(orderCopy);
      expect(await next.runOnce()).toBe('synced');
    } finally {
      simulator.faults.reset();
    }
  });

  it('a partner outage: the round fails once, then the sync backs off without asking again', async () => {
    const orderCopy = await setUp();
    const { sync, kinds } = syncWith(orderCopy);
    simulator.faults.set({ errorRate: 1, errorStatus: 401 });
    try {
      expect(await sync.runOnce()).toBe('failed');
      const asked = kinds.length;
      expect(await sync.runOnce()).toBe('backing_off');
      expect(kinds).toHaveLength(asked);
      expect((await sync.status()).lastError).toMatch(/^unauthorized/);
    } finally {
      simulator.faults.reset();
    }
  });

  it('stays within ORDER_SYNC_MAX_RPS, measured at the simulator', async () => {
    const orderCopy = await setUp();
    // The round reads 6 pages (5 of the backfill, the newest once more). At 5 a second, the 6th is the
    // first one over the budget: it must wait for the next one-second window. One window change is the
    // shortest sample that can show the cap (without it all six go within a few ms), and it is real
    // time, measured where the partner sees it.
    const maxRps = 5;
    const { sync } = syncWith(orderCopy, { pagesPerRound: 10, maxRps });
    simulator.resetStats();
    const startedAt = performance.now();
    await sync.runOnce();
    const times = simulator.arrivals
      .map((arrival) => arrival.at)
      .filter((at) => at >= startedAt)
      .sort((x, y) => x - y);
    expect(times).toHaveLength(maxRps + 1);
    // Fixed one-second windows of 5: the 6th a window later (the window opens at the first request's
    // turn, before the partner sees it: up to a couple of hundred ms on a loaded 2-core machine).
    expect((times[maxRps] ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(750);
  });

  it('a page unreadable three times is skipped as a gap: the backfill goes on in the same round; the gap is logged and in the status; the reconciliation reads it again at once', async () => {
    const orderCopy = await setUp();
    const lines: string[] = [];
    const capture = createLogger({
      level: 'info',
      secrets: [],
      destination: new Writable({
        write: (chunk, _encoding, done) => {
          lines.push(...String(chunk).split('\n').filter(Boolean));
          done();
        },
      }),
    });
    const { sync, kinds } = syncWith(orderCopy, { pagesPerRound: 10, logger: capture });
    simulator.faults.onPage(3, 3, { malformed: 'not-json' });
    try {
      expect(await sync.runOnce()).toBe('synced');
      const status = await sync.status();
      expect(status.gaps).toEqual([
        { page: 3, kind: 'backfill', at: new Date(clock).toISOString(), error: 'invalid_response' },
      ]);
      // Every other page read in this one round; the copy does not cover the history yet.
      expect(status.backfill).toEqual({ done: false, pagesRead: 5, totalPages: 5 });
      expect(status.orders).toBe(simulator.allOrders().length - 100);
      expect(status.lastError).toBeNull();
      // Page 3 tried three times; no back-off of the whole backfill.
      expect(kinds.filter((kind) => kind === 'backfill')).toHaveLength(7);
      const warnings = lines.filter((line) => line.includes('order page unreadable'));
      expect(warnings).toHaveLength(1);
      expect(JSON.parse(warnings[0] ?? '{}')).toMatchObject({ page: 3, kind: 'backfill', tries: 3 });

      // The next round: the reconciliation is due at once for a gap, reads the whole history again
      // (page 3 reads well now), and clears it.
      clock += 61_000;
      expect(await sync.runOnce()).toBe('synced');
      const after = await sync.status();
      expect(after.gaps).toEqual([]);
      expect(after.backfill.done).toBe(true);
      expect(after.orders).toBe(simulator.allOrders().length);
      expect(kinds.filter((kind) => kind === 'reconcile')).toHaveLength(5);
      expect(lines.some((line) => line.includes('reconciliation pass done'))).toBe(true);
    } finally {
      simulator.faults.reset();
    }
  });

  it('a page the reconciliation cannot read: a gap of its own, no order marked missing, read again by the next pass', async () => {
    const orderCopy = await setUp();
    const { sync } = syncWith(orderCopy, { pagesPerRound: 10 });
    expect(await sync.runOnce()).toBe('synced');
    clock += 61_000;
    await sync.runOnce(); // the first reconciliation is due ORDER_RECONCILE_HOURS (24) from here
    simulator.faults.onPage(4, 3, { malformed: 'truncated' });
    try {
      clock += 25 * 3_600_000;
      expect(await sync.runOnce()).toBe('synced');
      const status = await sync.status();
      expect(status.gaps).toMatchObject([{ page: 4, kind: 'reconcile' }]);
      // The orders of page 4 were not seen by this pass: none is marked missing for it.
      const missing = await db.run((kysely) =>
        kysely.selectFrom('orders').select('id').where('missing_since', 'is not', null).execute(),
      );
      expect(missing).toEqual([]);
      expect(status.backfill.done).toBe(false);
      // Not due again at once for its own gap (a page that stays unreadable must not loop passes).
      clock += 61_000;
      await sync.runOnce();
      expect((await sync.status()).gaps).toHaveLength(1);
      clock += 25 * 3_600_000;
      await sync.runOnce();
      expect(await sync.status()).toMatchObject({ gaps: [], backfill: { done: true } });
    } finally {
      simulator.faults.reset();
    }
  });

  it('a page unreadable twice is read on its third try: no gap', async () => {
    const orderCopy = await setUp();
    const { sync, kinds } = syncWith(orderCopy, { pagesPerRound: 10 });
    simulator.faults.onPage(2, 2, { malformed: 'schema' });
    try {
      expect(await sync.runOnce()).toBe('synced');
      const status = await sync.status();
      expect(status.gaps).toEqual([]);
      expect(status.backfill.done).toBe(true);
      expect(status.orders).toBe(simulator.allOrders().length);
      expect(kinds.filter((kind) => kind === 'backfill')).toHaveLength(7);
    } finally {
      simulator.faults.reset();
    }
  });

  // Last: it adds 420 orders to the simulator the other tests count.
  it('follows a burst longer than a page (and longer than a round) whole, each new order one event', async () => {
    const orderCopy = await setUp();
    const { sync, kinds } = syncWith(orderCopy, { pagesPerRound: 3 });
    while (!(await sync.status()).backfill.done) await sync.runOnce();
    const before = (await orderCopy.events(0, 100_000)).length;
    // 420 orders between two rounds: more than four pages of 100, more than a round's three.
    const burst = simulator.history.arrive(420, { status: 'PROCESSING', completeAfterMs: null });
    const reads = kinds.length;
    clock += 61_000;
    await sync.runOnce();
    // Three pages a round at most (pagesPerRound); the next round goes on from there.
    const firstRound = kinds.slice(reads).filter((kind) => kind === 'follow').length;
    expect(firstRound).toBe(3);
    clock += 61_000;
    await sync.runOnce();
    for (const order of burst) expect((await orderCopy.get(order.id))?.status).toBe('PROCESSING');
    const events = (await orderCopy.events(0, 100_000)).slice(before).filter((event) => event.kind === 'new');
    expect(events).toHaveLength(burst.length);
    // Then quiet again (once the last resumed page shows nothing new): one newest page a round.
    clock += 61_000;
    await sync.runOnce();
    const quiet = kinds.length;
    clock += 61_000;
    await sync.runOnce();
    expect(kinds.slice(quiet).filter((kind) => kind === 'follow')).toEqual(['follow']);
  });
});
