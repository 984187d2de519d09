// The search text contract, run on every engine by order-copy.test.ts (one PostgreSQL server for both).
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OrderDeskDb, openDatabase } from '../../src/db/index.js';
import { createLogger } from '../../src/logger.js';
import { createOrderCopy, MATCH_COUNT_CAP } from '../../src/orders/order-copy.js';
import { rowOf } from '../../src/orders/order-rows.js';
import type { OrderSummary } from '../../src/partner-api/index.js';
import { codePointLength } from '../../src/text/code-points.js';

const logLines: string[] = [];
const logger = createLogger({
  level: 'info',
  secrets: [],
  destination: new Writable({
    write(chunk, _encoding, done) {
      logLines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  }),
});

const order = (id: string, title: string, createdAt: string, referenceId = `PO-${id}`): OrderSummary => ({
  id,
  referenceId,
  status: 'COMPLETED',
  item: { id: 'ITEM-1', title, quantity: 1, amount: 10 },
  createdAt,
});
const minute = (base: number, i: number) => new Date(base + i * 60_000).toISOString();
const seenAt = new Date('2026-11-25T12:00:00Z');

// Few matches each: the trigram plan (SQLite's FTS5; PostgreSQL's trigram index, or its rare parts).
const RARE = [
  order('R01', 'CAFÉ OLÉ Special', '2024-01-01T00:01:00.000Z'),
  order('R02', 'Cafe\u0301 Ole\u0301 Blend', '2024-01-01T00:02:00.000Z'),
  order('R03', 'İstanbul Guide', '2024-01-01T00:03:00.000Z'),
  order('R04', 'Fußball Straßenschuh', '2024-01-01T00:04:00.000Z'),
  order('R05', 'Voucher 1_0% Gift', '2024-01-01T00:05:00.000Z'),
  order('R06', 'Voucher 100% Gift', '2024-01-01T00:06:00.000Z'),
  order('R07', 'Party 🎉🎉 Pack', '2024-01-01T00:07:00.000Z'),
  order('R08', '❤️ Love Pack', '2024-01-01T00:08:00.000Z'),
  order('R09', '👩‍👩‍👧 Family Bundle', '2024-01-01T00:09:00.000Z'),
  order('R10', 'Promo 12%_OFF \\ backslash', '2024-01-01T00:10:00.000Z'),
];

/** Each text, and the orders it must find (newest first). */
const RARE_TABLE: Array<[string, string[]]> = [
  ['1_0%', ['R05']],
  ['100%', ['R06']],
  ['0%', ['R06', 'R05']],
  ['CAFÉ OLÉ', ['R02', 'R01']],
  ['cafe ole', ['R02', 'R01']],
  ['cafe\u0301', ['R02', 'R01']],
  ['Café', ['R02', 'R01']],
  ['istanbul', ['R03']],
  ['İSTANBUL', ['R03']],
  ['strasse', ['R04']],
  ['FUSSBALL', ['R04']],
  ['🎉🎉', ['R07']],
  ['y 🎉', ['R07']],
  ['❤', ['R08']],
  ['❤️ love', ['R08']],
  ['👩‍👩‍👧', ['R09']],
  ['2%_o', ['R10']],
  ['2%o', []],
  ['\\ back', ['R10']],
  ['%', ['R10', 'R06', 'R05']],
  ['_', ['R10', 'R05']],
  // An accent or a variation selector alone folds to nothing: no order, not every order.
  ['\u0301', []],
  ['\uFE0F', []],
];

// Thousands of matches each (SQLite's newest-first plan past 2,000 matches; PostgreSQL's trigram
// index on the whole text, no part being rare): two groups, interleaved in time.
const GROUP = 2_050;
const base = Date.UTC(2025, 0, 1);
const COMMON = Array.from({ length: GROUP * 2 }, (_, i) =>
  i % 2
    ? order(`B${String(i).padStart(5, '0')}`, 'Merino 1_0% Wool_Sock Straße', minute(base, i))
    : order(`A${String(i).padStart(5, '0')}`, 'Merino 100% Wool_Sock Café', minute(base, i)),
);
const newest = (prefix: string, count: number) =>
  COMMON.filter((o) => o.id.startsWith(prefix))
    .slice(-count)
    .reverse()
    .map((o) => o.id);

/** The same texts on every engine and on each plan: what an agent types is text. */
export function searchTextContract(name: string, open: () => Promise<OrderDeskDb>) {
  describe(`search text: ${name}`, () => {
    let db: OrderDeskDb;
    beforeAll(async () => {
      db = await open();
    });
    afterAll(() => db?.close());

    it('rare texts: wildcards are literal, case and accents apart (composed or not), emoji whole', async () => {
      const copy = createOrderCopy(db);
      await copy.record(RARE, seenAt);
      const found: Record<string, string[]> = {};
      for (const [text] of RARE_TABLE)
        found[text] = (await copy.search({ text, limit: 20 })).orders.map((o) => o.id);
      expect(found).toEqual(Object.fromEntries(RARE_TABLE));
    });

    it('common texts (thousands of matches): the same, on the plan for common text', async () => {
      const copy = createOrderCopy(db);
      // Written straight into the table, 500 rows a statement (as the store would write them): the
      // store's one insert per order would take seconds here.
      for (let at = 0; at < COMMON.length; at += 500) {
        const rows = COMMON.slice(at, at + 500).map((o) => rowOf(o, seenAt.toISOString()));
        await db.run((kysely) => kysely.insertInto('orders').values(rows).execute());
      }
      const table: Array<[string, string[]]> = [
        ['100% wool', newest('A', 3)],
        ['1_0%', newest('B', 3)],
        ['1_0% WOOL_SOCK', newest('B', 3)],
        ['wool_sock', [...newest('', 3)]],
        ['CAFÉ', newest('A', 3)],
        ['cafe\u0301', newest('A', 3)],
        ['STRASSE', newest('B', 3)],
      ];
      for (const [text, ids] of table) {
        const found = await copy.search({ text, limit: 3 });
        expect({ text, ids: found.orders.map((o) => o.id), total: found.total }).toEqual({
          text,
          ids,
          total: MATCH_COUNT_CAP,
        });
      }
      // The rare texts again among thousands of others (on PostgreSQL a fresh sample now tells rare
      // trigrams from common ones: the trigram index is asked for the rare parts, the whole text checked).
      const fresh = createOrderCopy(db);
      const unaffected = [
        'CAFÉ OLÉ',
        'cafe ole',
        'istanbul',
        'FUSSBALL',
        '🎉🎉',
        'y 🎉',
        '❤',
        '👩‍👩‍👧',
        '2%_o',
        '\\ back',
      ];
      for (const [text, ids] of RARE_TABLE.filter(([text]) => unaffected.includes(text)))
        expect({ text, ids: (await fresh.search({ text, limit: 20 })).orders.map((o) => o.id) }).toEqual({
          text,
          ids,
        });
      // The last page of the count: no order of the other group, whatever the plan.
      const deep = await copy.search({ text: '1_0%', limit: 10, offset: 990 });
      expect(deep.orders.map((o) => o.id[0])).toEqual(Array(10).fill('B'));
    });

    it('a 20,000-character title is kept as 500 code points, found by its start, not its end', async () => {
      const copy = createOrderCopy(db);
      const title = `Longtitle ${'👩‍👩‍👧'.repeat(200)}${'x'.repeat(20_000)}ENDMARK`;
      await copy.record([order('LONG1', title, '2023-01-01T00:00:00.000Z')], seenAt);
      const stored = await copy.get('LONG1');
      expect(codePointLength(stored?.item.title ?? '')).toBeLessThanOrEqual(500);
      expect(stored?.item.title?.endsWith('…')).toBe(true);
      expect((await copy.search({ text: 'longtitle', limit: 5 })).orders.map((o) => o.id)).toEqual(['LONG1']);
      expect((await copy.search({ text: 'endmark', limit: 5 })).orders).toEqual([]);
      // Seen again unchanged: nothing to rewrite (the stored title is compared cut).
      expect(await copy.record([order('LONG1', title, '2023-01-01T00:00:00.000Z')], seenAt)).toEqual({
        inserted: 0,
        statusChanges: 0,
      });
    });

    it('an ID or a reference over 100 characters is refused, logged once and counted; the rest of the page is kept', async () => {
      const refusals: string[] = [];
      const linesBefore = logLines.length;
      const copy = createOrderCopy(db, { logger, onRefused: (field) => refusals.push(field) });
      const page = [
        order('OK1', 'Fine', '2023-02-01T00:00:00.000Z'),
        order('X'.repeat(101), 'Long ID', '2023-02-01T00:00:01.000Z'),
        order('REF1', 'Long reference', '2023-02-01T00:00:02.000Z', `PO-${'9'.repeat(200)}`),
      ];
      expect(await copy.record(page, seenAt)).toEqual({
        inserted: 1,
        statusChanges: 0,
        refused: 2,
      });
      expect(await copy.record(page, seenAt)).toMatchObject({ inserted: 0, refused: 2 });
      expect(refusals).toEqual(['id', 'reference']);
      expect(await copy.get('REF1')).toBeUndefined();
      const logged = logLines
        .slice(linesBefore)
        .filter((line) => line.includes('order not kept in the copy'));
      expect(logged).toHaveLength(2);
      expect(logged.every((line) => line.length < 1_000)).toBe(true);
    });

    it('text under three characters is looked for in the newest orders only, and the answer says so', async () => {
      // Three orders newer than every other: the window of three holds just them.
      const windowed = createOrderCopy(db, { shortTextWindow: 3 });
      await windowed.record(
        ['N1', 'N2', 'N3'].map((id, i) =>
          order(id, id === 'N1' ? 'Zq Newest' : 'Newest', `2030-01-0${i + 1}T00:00:00.000Z`),
        ),
        seenAt,
      );
      expect(await windowed.search({ text: 'zq', limit: 5 })).toMatchObject({
        orders: [expect.objectContaining({ id: 'N1' })],
        newestOnly: 3,
      });
      // An older order's two characters: not in the window, so not found (and not read for).
      expect(await windowed.search({ text: '❤', limit: 5 })).toMatchObject({ orders: [], newestOnly: 3 });
      // The default window holds them all; three characters or more search every order.
      expect((await createOrderCopy(db).search({ text: '❤', limit: 5 })).orders.map((o) => o.id)).toEqual([
        'R08',
      ]);
      expect((await windowed.search({ text: 'zq newest', limit: 5 })).newestOnly).toBeUndefined();
    });

    it('search text over 100 code points is matched on its start, cut between graphemes', async () => {
      const copy = createOrderCopy(db);
      const found = await copy.search({ text: `longtitle ${'👩‍👩‍👧'.repeat(40)}`, limit: 5 });
      expect(found.orders.map((o) => o.id)).toEqual(['LONG1']);
    });
  });
}

/** PostgreSQL: a search that cannot finish within its statement_timeout fails instead of holding a connection. */
export async function searchTimesOut(url: string) {
  const db = await openDatabase({ databaseUrl: url, dataDir: ':memory:', logger });
  const copy = createOrderCopy(db, { searchTimeoutMs: 300 });
  await copy.record([order('T1', 'Timeout Test', '2023-03-01T00:00:00.000Z')], seenAt);
  expect((await copy.search({ text: 'timeout', limit: 5 })).orders).toHaveLength(1);
  // Another session holds the table: the search waits on its lock until the timeout ends it.
  const holder = new pg.Client({ connectionString: url });
  await holder.connect();
  await holder.query('begin');
  await holder.query('lock table orders in access exclusive mode');
  // The lock is held until the rollback below: the search ends only because its statement_timeout
  // ends it (PostgreSQL says so), or never.
  await expect(copy.search({ text: 'timeout', limit: 5 })).rejects.toThrow(/statement timeout/);
  await holder.query('rollback');
  await holder.end();
  // The connection went back to the pool as it was: other statements have no timeout.
  expect(
    (await db.run((kysely) => sql<{ statement_timeout: string }>`show statement_timeout`.execute(kysely)))
      .rows[0]?.statement_timeout,
  ).toBe('0');
  expect((await copy.search({ text: 'timeout', limit: 5 })).orders).toHaveLength(1);
  await db.close();
}
