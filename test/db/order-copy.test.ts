import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OrderDeskDb, openDatabase } from '../../src/db/index.js';
import { createLogger } from '../../src/logger.js';
import { createOrderCopy } from '../../src/orders/order-copy.js';
import { rowOf } from '../../src/orders/order-rows.js';
import type { CopySearch } from '../../src/orders/types.js';
import type { OrderSummary } from '../../src/partner-api/index.js';
import {
  createDatabase,
  postgresTests,
  type SharedPostgres,
  sharedPostgres,
} from '../helpers/postgres-server.js';
import { searchTextContract, searchTimesOut } from './search-text-contract.js';

const logger = createLogger({
  level: 'silent',
  secrets: [],
  destination: new Writable({ write: (_c, _e, d) => d() }),
});

const order = (
  id: string,
  extra: Partial<OrderSummary> & { title?: string; amount?: number } = {},
): OrderSummary => ({
  id,
  referenceId: extra.referenceId ?? `PO-2026-${id}`,
  status: extra.status === undefined ? 'COMPLETED' : extra.status,
  item: { id: 'ITEM-1', title: extra.title ?? 'Game Key', quantity: 1, amount: extra.amount ?? 10 },
  createdAt: extra.createdAt ?? '2026-11-20T10:00:00.000Z',
});
const at = (iso: string) => new Date(iso);

/**
 * Orders written straight into the table as the store writes them, 500 rows a statement: for tests of
 * search over thousands of orders (the store's one insert per order took seconds here).
 */
async function insertOrders(db: OrderDeskDb, orders: readonly OrderSummary[], seenAt: string) {
  const rows = orders.map((o) => rowOf(o, seenAt));
  for (let from = 0; from < rows.length; from += 500)
    await db.run((kysely) =>
      kysely
        .insertInto('orders')
        .values(rows.slice(from, from + 500))
        .execute(),
    );
}

/** The copy on every engine; `peer` is a second replica (another connection to the same database). */
function copyContract(name: string, open: () => Promise<{ db: OrderDeskDb; peer: OrderDeskDb }>) {
  describe(`the order copy: ${name}`, () => {
    let db: OrderDeskDb;
    let peer: OrderDeskDb;
    beforeAll(async () => {
      ({ db, peer } = await open());
    });
    afterAll(async () => {
      await db.close();
      if (peer !== db) await peer.close();
    });

    it('a new order is one event; seeing it again is none; a status change is one event with from and to', async () => {
      const copy = createOrderCopy(db);
      expect(await copy.record([order('A1', { status: 'PROCESSING' })], at('2026-11-23T10:00:00Z'))).toEqual({
        inserted: 1,
        statusChanges: 0,
      });
      expect(await copy.record([order('A1', { status: 'PROCESSING' })], at('2026-11-23T10:01:00Z'))).toEqual({
        inserted: 0,
        statusChanges: 0,
      });
      expect(await copy.record([order('A1', { status: 'COMPLETED' })], at('2026-11-23T10:02:00Z'))).toEqual({
        inserted: 0,
        statusChanges: 1,
      });
      const events = (await copy.events(0, 100)).filter((event) => event.orderId === 'A1');
      expect(events.map((event) => [event.kind, event.fromStatus, event.toStatus])).toEqual([
        ['new', null, 'PROCESSING'],
        ['status', 'PROCESSING', 'COMPLETED'],
      ]);
      expect((await copy.get('A1'))?.status).toBe('COMPLETED');
    });

    it('a sighting older than the last one changes nothing: no status runs backwards, the last-seen time stays', async () => {
      const copy = createOrderCopy(db);
      await copy.record([order('L1', { status: 'PROCESSING' })], at('2026-11-23T10:00:00Z'));
      await copy.record([order('L1', { status: 'COMPLETED' })], at('2026-11-23T10:05:00Z'));
      // A lookup's read from 10:01 written after the sync's from 10:05.
      expect(await copy.record([order('L1', { status: 'PROCESSING' })], at('2026-11-23T10:01:00Z'))).toEqual({
        inserted: 0,
        statusChanges: 0,
      });
      expect(await copy.recordStatus('L1', 'PROCESSING', at('2026-11-23T10:02:00Z'))).toEqual({
        inserted: 0,
        statusChanges: 0,
      });
      const stored = await copy.get('L1');
      expect(stored?.status).toBe('COMPLETED');
      expect(stored?.lastSeenAt.toISOString()).toBe('2026-11-23T10:05:00.000Z');
      const events = (await copy.events(0, 1_000)).filter((event) => event.orderId === 'L1');
      expect(events.map((event) => event.toStatus)).toEqual(['PROCESSING', 'COMPLETED']);
    });

    it('one order’s newest events, newest first, read through their own index (the Work Object panel)', async () => {
      const copy = createOrderCopy(db);
      const statuses = ['PENDING', 'PROCESSING', 'ON_HOLD', 'PROCESSING', 'COMPLETED'];
      for (const [minute, status] of statuses.entries()) {
        await copy.record(
          [order('EV1', { status }), order(`EV-OTHER-${minute}`, { status })],
          at(`2026-11-23T11:0${minute}:00Z`),
        );
      }
      const newest = await copy.eventsOf('EV1', 3);
      expect(newest.map((event) => [event.kind, event.fromStatus, event.toStatus])).toEqual([
        ['status', 'PROCESSING', 'COMPLETED'],
        ['status', 'ON_HOLD', 'PROCESSING'],
        ['status', 'PROCESSING', 'ON_HOLD'],
      ]);
      expect(newest.every((event) => event.orderId === 'EV1')).toBe(true);
      expect(newest[0]?.seenAt.toISOString()).toBe('2026-11-23T11:04:00.000Z');
      expect(await copy.eventsOf('NO-SUCH-ORDER', 3)).toEqual([]);
      if (db.engine === 'sqlite') {
        const plan = await db.run((kysely) =>
          sql<{
            detail: string;
          }>`explain query plan select * from order_events where order_id = ${'EV1'} order by id desc limit 5`.execute(
            kysely,
          ),
        );
        expect(plan.rows.map((row) => row.detail).join(' ')).toContain('order_events_order');
      }
    });

    it('amount ranges, narrow and wide, alone or with a status and text: the same answer on each plan', async () => {
      const copy = createOrderCopy(db);
      // 2,100 orders at 7.25 (a range that holds them all is walked newest first), five at 777 (a range
      // only they fall in is read through the amount index), two of those refunded. Amounts no other
      // test here uses.
      const base = Date.UTC(2024, 0, 1);
      const minute = (i: number) => new Date(base + i * 60_000).toISOString();
      const many = Array.from({ length: 2_100 }, (_, i) =>
        order(`AM${String(i).padStart(5, '0')}`, {
          createdAt: minute(i),
          title: 'Common Amount Title',
          amount: 7.25,
        }),
      );
      const few = [0, 1, 2, 3, 4].map((i) =>
        order(`AMX${i}`, {
          createdAt: minute(300 + i * 400),
          amount: 777,
          title: i === 4 ? 'Rare Amount Title' : 'Common Amount Title',
          status: i < 2 ? 'REFUNDED' : 'COMPLETED',
        }),
      );
      await insertOrders(db, [...many, ...few], '2026-11-23T12:00:00.000Z');
      const ids = async (query: Omit<CopySearch, 'limit'>) => {
        const found = await copy.search({ ...query, limit: 10 });
        return { ids: found.orders.map((o) => o.id), total: found.total, floor: found.totalIsFloor ?? false };
      };
      const fewNewest = ['AMX4', 'AMX3', 'AMX2', 'AMX1', 'AMX0'];
      expect(await ids({ minAmount: 700 })).toEqual({ ids: fewNewest, total: 5, floor: false });
      expect(await ids({ minAmount: 700, maxAmount: 800, statuses: ['refunded'] })).toEqual({
        ids: ['AMX1', 'AMX0'],
        total: 2,
        floor: false,
      });
      expect(await ids({ minAmount: 700, text: 'rare amount' })).toEqual({
        ids: ['AMX4'],
        total: 1,
        floor: false,
      });
      expect(await ids({ minAmount: 700, text: 'common amount', statuses: ['COMPLETED'] })).toEqual({
        ids: ['AMX3', 'AMX2'],
        total: 2,
        floor: false,
      });
      const newestAtTen = many
        .slice(-10)
        .reverse()
        .map((o) => o.id);
      expect(await ids({ minAmount: 7, maxAmount: 7.5 })).toEqual({
        ids: newestAtTen,
        total: 1_000,
        floor: true,
      });
      expect(
        await ids({ minAmount: 7, maxAmount: 7.5, text: 'common amount', statuses: ['COMPLETED'] }),
      ).toEqual({
        ids: newestAtTen,
        total: 1_000,
        floor: true,
      });
    });

    it('two replicas seeing the same new order and the same change at once write each event once', async () => {
      const a = createOrderCopy(db);
      const b = createOrderCopy(peer);
      const seen = at('2026-11-23T11:00:00Z');
      const first = await Promise.all([
        a.record([order('R1', { status: 'PENDING' })], seen),
        b.record([order('R1', { status: 'PENDING' })], seen),
      ]);
      expect(first.reduce((sum, r) => sum + r.inserted, 0)).toBe(1);
      const second = await Promise.all([
        a.record([order('R1', { status: 'COMPLETED' })], seen),
        b.record([order('R1', { status: 'COMPLETED' })], seen),
      ]);
      expect(second.reduce((sum, r) => sum + r.statusChanges, 0)).toBe(1);
      expect((await a.events(0, 1_000)).filter((event) => event.orderId === 'R1')).toHaveLength(2);
    });

    it('searches ID, reference and product title, case-insensitive, newest first, with filters and a total', async () => {
      const copy = createOrderCopy(db);
      await copy.record(
        [
          order('S1', { title: 'Elden Ring Deluxe', createdAt: '2026-11-01T10:00:00.000Z', amount: 59.99 }),
          order('S2', {
            title: 'elden ring',
            createdAt: '2026-11-03T10:00:00.000Z',
            status: 'REFUNDED',
            amount: 30,
          }),
          order('S3', {
            title: 'Other Game',
            referenceId: 'CUST-ELDEN-7',
            createdAt: '2026-11-02T10:00:00.000Z',
          }),
          order('S4', { title: '100%_off', createdAt: '2026-11-04T10:00:00.000Z' }),
        ],
        at('2026-11-23T12:00:00Z'),
      );
      const found = await copy.search({ text: 'ELDEN', limit: 10 });
      expect(found.orders.map((o) => o.id)).toEqual(['S2', 'S3', 'S1']);
      expect(found.total).toBe(3);
      expect(
        (await copy.search({ text: 'elden', statuses: ['refunded'], limit: 10 })).orders.map((o) => o.id),
      ).toEqual(['S2']);
      expect(
        (await copy.search({ text: 'elden', minAmount: 50, limit: 10 })).orders.map((o) => o.id),
      ).toEqual(['S1']);
      expect(
        (
          await copy.search({
            text: 'elden',
            createdFrom: '2026-11-02T00:00:00.000Z',
            createdTo: '2026-11-03T00:00:00.000Z',
            limit: 10,
          })
        ).orders.map((o) => o.id),
      ).toEqual(['S3']);
      // What a person types is matched literally: % and _ are not wildcards.
      expect((await copy.search({ text: '100%_', limit: 10 })).orders.map((o) => o.id)).toEqual(['S4']);
      expect((await copy.search({ text: '%', limit: 10 })).orders.map((o) => o.id)).toEqual(['S4']);
      const page = await copy.search({ text: 'elden', limit: 1, offset: 1 });
      expect(page.orders.map((o) => o.id)).toEqual(['S3']);
      expect(page.total).toBe(3);
    });

    it('a text with thousands of matches (the newest-first plan) and a rare one (the trigram plan) give the same kind of answer', async () => {
      const copy = createOrderCopy(db);
      const many = Array.from({ length: 2_500 }, (_, i) =>
        order(`C${String(i).padStart(5, '0')}`, {
          title: 'Common Widget',
          createdAt: new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString(),
          status: i % 2 ? 'COMPLETED' : 'REFUNDED',
        }),
      );
      await insertOrders(db, many, '2026-11-23T12:30:00.000Z');
      // Counted up to 1,000: past it the total is a floor, and says so.
      const common = await copy.search({ text: 'common widget', limit: 3 });
      expect(common.orders.map((o) => o.id)).toEqual(['C02499', 'C02498', 'C02497']);
      expect(common.total).toBe(1_000);
      expect(common.totalIsFloor).toBe(true);
      const filtered = await copy.search({ text: 'widget', statuses: ['REFUNDED'], limit: 2, offset: 1 });
      expect(filtered.orders.map((o) => o.id)).toEqual(['C02496', 'C02494']);
      expect(filtered.total).toBe(1_000);
      expect(filtered.totalIsFloor).toBe(true);
      const some = await copy.search({ text: 'c0012', limit: 3 });
      expect(some.total).toBe(10);
      expect(some.totalIsFloor).toBe(false);
      const rare = await copy.search({ text: 'c01234', limit: 5 });
      expect(rare.orders.map((o) => o.id)).toEqual(['C01234']);
      expect(rare.total).toBe(1);
    });

    it('part of a reference among thousands sharing its prefix: exactly the orders holding the whole text, newest first', async () => {
      const copy = createOrderCopy(db);
      // References like PO-2026-0001234: every order holds "po-2026-000", so only some parts of a
      // search for one are rare (on PostgreSQL the trigram index is asked for those parts alone).
      const titles = ['Office Suite 2024', 'Elden Ring Deluxe', 'VPN Unlimited'];
      const orders = Array.from({ length: 3_000 }, (_, i) =>
        order(`W${String(i).padStart(5, '0')}`, {
          referenceId: `PO-2026-${String(i).padStart(7, '0')}`,
          title: titles[i % titles.length],
          createdAt: new Date(Date.UTC(2023, 0, 1) + i * 60_000).toISOString(),
        }),
      );
      // Rows whose rare parts match but not the whole text, and LIKE's wildcards as literal text.
      orders.push(
        order('W-DECOY', { referenceId: 'PO-2025-0001234', createdAt: '2023-06-01T00:00:00.000Z' }),
        order('W-TITLE', { title: 'Pack 0001234', createdAt: '2023-06-02T00:00:00.000Z' }),
        order('W-PCT', { referenceId: 'CODE-1234%OFF', createdAt: '2023-06-03T00:00:00.000Z' }),
        order('W-UND', { referenceId: 'CODE-1234_OFF', createdAt: '2023-06-04T00:00:00.000Z' }),
      );
      await insertOrders(db, orders, '2026-11-23T12:35:00.000Z');
      // What the answer must be: every order in the copy whose search text holds the text, newest first.
      const all = await db.run((kysely) =>
        kysely.selectFrom('orders').select(['id', 'search_text', 'created_at']).execute(),
      );
      const expected = (text: string) =>
        all
          .filter((row) => row.search_text.includes(text.toLowerCase()))
          .sort((a, b) => (b.created_at ?? '').localeCompare(a.created_at ?? '') || b.id.localeCompare(a.id))
          .map((row) => row.id);
      for (const text of [
        '2026-0001234',
        'PO-2026-0002999',
        '2026-00012',
        '0001234',
        '1234%off',
        '1234_off',
        'deluxe po-2026-0000007',
        'ring w00042',
      ]) {
        const want = expected(text);
        const found = await copy.search({ text, limit: 10 });
        expect({ text, ids: found.orders.map((o) => o.id), total: found.total }).toEqual({
          text,
          ids: want.slice(0, 10),
          total: want.length,
        });
      }
      expect(expected('2026-0001234')).toEqual(['W01234']);
      expect(expected('1234%off')).toEqual(['W-PCT']);
      const paged = await copy.search({ text: '2026-00012', limit: 5, offset: 5 });
      expect(paged.orders.map((o) => o.id)).toEqual(expected('2026-00012').slice(5, 10));
      expect(paged.total).toBe(expected('2026-00012').length);
    });

    it('reads a range of the history newest first in keyset pages, ties by ID, nothing twice', async () => {
      const copy = createOrderCopy(db);
      const same = '2024-05-05T05:05:05.000Z';
      await copy.record(
        [
          order('K1', { createdAt: '2024-05-01T00:00:00.000Z' }),
          order('K2', { createdAt: same }),
          order('K3', { createdAt: same }),
          order('K4', { createdAt: same }),
          order('K5', { createdAt: '2024-05-09T00:00:00.000Z' }),
          order('K6', { createdAt: '2024-06-01T00:00:00.000Z' }),
        ],
        at('2026-11-23T12:40:00Z'),
      );
      const pages: string[][] = [];
      for await (const page of copy.between(
        new Date('2024-05-01T00:00:00.000Z'),
        new Date('2024-05-31T00:00:00.000Z'),
        2,
      ))
        pages.push(page.map((o) => o.id));
      expect(pages).toEqual([['K5', 'K4'], ['K3', 'K2'], ['K1']]);
    });

    it('keeps creation times in one form, so text order is time order (an offset, no milliseconds)', async () => {
      const copy = createOrderCopy(db);
      await copy.record(
        [
          order('T1', { createdAt: '2021-01-01T10:00:00+01:00' }),
          order('T2', { createdAt: '2021-01-01T09:30:00Z' }),
          order('T3', { createdAt: '2021-01-01T09:45:00.000Z' }),
        ],
        at('2026-11-23T13:10:00Z'),
      );
      const pages: string[][] = [];
      for await (const page of copy.between(
        new Date('2021-01-01T09:00:00.000Z'),
        new Date('2021-01-01T09:50:00.000Z'),
        10,
      ))
        pages.push(page.map((o) => `${o.id} ${o.createdAt}`));
      expect(pages).toEqual([
        ['T3 2021-01-01T09:45:00.000Z', 'T2 2021-01-01T09:30:00.000Z', 'T1 2021-01-01T09:00:00.000Z'],
      ]);
    });

    it('marks orders no longer listed (never deletes them), keeps cursors, prunes old events', async () => {
      const copy = createOrderCopy(db);
      await copy.record([order('M1')], at('2026-11-23T13:00:00Z'));
      // M1 was not seen since 13:00: marked once (a second pass finds nothing new to mark), and kept.
      expect(
        await copy.markUnseenMissing(at('2026-11-23T13:30:00Z'), at('2026-11-23T14:00:00Z')),
      ).toBeGreaterThan(0);
      expect(await copy.markUnseenMissing(at('2026-11-23T13:30:00Z'), at('2026-11-23T14:00:00Z'))).toBe(0);
      expect((await copy.get('M1'))?.id).toBe('M1');
      expect(await copy.readCursor('backfill')).toBeUndefined();
      await copy.writeCursor('backfill', '{"page":7}', at('2026-11-23T14:00:00Z'));
      await copy.writeCursor('backfill', '{"page":8}', at('2026-11-23T14:01:00Z'));
      expect(await copy.readCursor('backfill')).toBe('{"page":8}');
      const before = (await copy.events(0, 10_000)).length;
      const pruned = await copy.pruneEvents(at('2026-11-23T12:30:00Z'));
      expect(pruned).toBeGreaterThan(0);
      expect((await copy.events(0, 10_000)).length).toBe(before - pruned);
      expect((await copy.stats()).orders).toBeGreaterThanOrEqual(7);
    });
  });
}

copyContract('SQLite', async () => {
  const db = await openDatabase({ databaseUrl: undefined, dataDir: ':memory:', logger });
  return { db, peer: db };
});
searchTextContract('SQLite', () => openDatabase({ databaseUrl: undefined, dataDir: ':memory:', logger }));

describe.skipIf(postgresTests.skip)('on PostgreSQL', () => {
  let server: SharedPostgres;
  beforeAll(() => {
    server = sharedPostgres();
  });
  copyContract('PostgreSQL', async () => {
    const url = await createDatabase(server, 'order_copy');
    return {
      db: await openDatabase({ databaseUrl: url, dataDir: ':memory:', logger }),
      peer: await openDatabase({ databaseUrl: url, dataDir: ':memory:', logger }),
    };
  });
  searchTextContract('PostgreSQL', async () =>
    openDatabase({ databaseUrl: await createDatabase(server, 'search_text'), dataDir: ':memory:', logger }),
  );
  it('a search that cannot finish within its statement_timeout fails instead of holding a connection', async () => {
    await searchTimesOut(await createDatabase(server, 'search_timeout'));
  });
});
