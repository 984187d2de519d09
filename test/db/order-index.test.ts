import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OrderDeskDb, openDatabase } from '../../src/db/index.js';
import { csvLines, csvRow } from '../../src/finance/csv.js';
import { createLogger } from '../../src/logger.js';
import { type CsvChunk, createOrderIndex } from '../../src/orders/order-index.js';
import type { OrderSummary } from '../../src/partner-api/index.js';
import {
  createDatabase,
  type PostgresServer,
  postgresTests,
  startPostgresServer,
} from '../helpers/postgres-server.js';

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

/** The index on every engine; `peer` is a second replica (another connection to the same database). */
function indexContract(name: string, open: () => Promise<{ db: OrderDeskDb; peer: OrderDeskDb }>) {
  describe(`the order index: ${name}`, () => {
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
      const index = createOrderIndex(db);
      expect(await index.record([order('A1', { status: 'PROCESSING' })], at('2026-11-23T10:00:00Z'))).toEqual(
        {
          inserted: 1,
          statusChanges: 0,
          events: 1,
        },
      );
      expect(await index.record([order('A1', { status: 'PROCESSING' })], at('2026-11-23T10:01:00Z'))).toEqual(
        {
          inserted: 0,
          statusChanges: 0,
          events: 0,
        },
      );
      expect(await index.record([order('A1', { status: 'COMPLETED' })], at('2026-11-23T10:02:00Z'))).toEqual({
        inserted: 0,
        statusChanges: 1,
        events: 1,
      });
      const events = (await index.events(0, 100)).filter((event) => event.orderId === 'A1');
      expect(events.map((event) => [event.kind, event.fromStatus, event.toStatus])).toEqual([
        ['new', null, 'PROCESSING'],
        ['status', 'PROCESSING', 'COMPLETED'],
      ]);
      expect((await index.get('A1'))?.status).toBe('COMPLETED');
    });

    it('two replicas seeing the same new order and the same change at once write each event once', async () => {
      const a = createOrderIndex(db);
      const b = createOrderIndex(peer);
      const seen = at('2026-11-23T11:00:00Z');
      const first = await Promise.all([
        a.record([order('R1', { status: 'PENDING' })], seen),
        b.record([order('R1', { status: 'PENDING' })], seen),
      ]);
      expect(first.reduce((sum, r) => sum + r.events, 0)).toBe(1);
      const second = await Promise.all([
        a.record([order('R1', { status: 'COMPLETED' })], seen),
        b.record([order('R1', { status: 'COMPLETED' })], seen),
      ]);
      expect(second.reduce((sum, r) => sum + r.events, 0)).toBe(1);
      expect((await a.events(0, 1_000)).filter((event) => event.orderId === 'R1')).toHaveLength(2);
    });

    it('searches ID, reference and product title, case-insensitive, newest first, with filters and a total', async () => {
      const index = createOrderIndex(db);
      await index.record(
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
      const found = await index.search({ text: 'ELDEN', limit: 10 });
      expect(found.orders.map((o) => o.id)).toEqual(['S2', 'S3', 'S1']);
      expect(found.total).toBe(3);
      expect(
        (await index.search({ text: 'elden', statuses: ['refunded'], limit: 10 })).orders.map((o) => o.id),
      ).toEqual(['S2']);
      expect(
        (await index.search({ text: 'elden', minAmount: 50, limit: 10 })).orders.map((o) => o.id),
      ).toEqual(['S1']);
      expect(
        (
          await index.search({
            text: 'elden',
            createdFrom: '2026-11-02T00:00:00.000Z',
            createdTo: '2026-11-03T00:00:00.000Z',
            limit: 10,
          })
        ).orders.map((o) => o.id),
      ).toEqual(['S3']);
      // What a person types is matched literally: % and _ are not wildcards.
      expect((await index.search({ text: '100%_', limit: 10 })).orders.map((o) => o.id)).toEqual(['S4']);
      expect((await index.search({ text: '%', limit: 10 })).orders.map((o) => o.id)).toEqual(['S4']);
      const page = await index.search({ text: 'elden', limit: 1, offset: 1 });
      expect(page.orders.map((o) => o.id)).toEqual(['S3']);
      expect(page.total).toBe(3);
    });

    it('a text with thousands of matches (the newest-first plan) and a rare one (the trigram plan) give the same kind of answer', async () => {
      const index = createOrderIndex(db);
      const many = Array.from({ length: 2_500 }, (_, i) =>
        order(`C${String(i).padStart(5, '0')}`, {
          title: 'Common Widget',
          createdAt: new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString(),
          status: i % 2 ? 'COMPLETED' : 'REFUNDED',
        }),
      );
      await index.record(many, at('2026-11-23T12:30:00Z'));
      // Counted up to 1,000: past it the total is a floor, and says so.
      const common = await index.search({ text: 'common widget', limit: 3 });
      expect(common.orders.map((o) => o.id)).toEqual(['C02499', 'C02498', 'C02497']);
      expect(common.total).toBe(1_000);
      expect(common.totalIsFloor).toBe(true);
      const filtered = await index.search({ text: 'widget', statuses: ['REFUNDED'], limit: 2, offset: 1 });
      expect(filtered.orders.map((o) => o.id)).toEqual(['C02496', 'C02494']);
      expect(filtered.total).toBe(1_000);
      expect(filtered.totalIsFloor).toBe(true);
      const some = await index.search({ text: 'c0012', limit: 3 });
      expect(some.total).toBe(10);
      expect(some.totalIsFloor).toBe(false);
      const rare = await index.search({ text: 'c01234', limit: 5 });
      expect(rare.orders.map((o) => o.id)).toEqual(['C01234']);
      expect(rare.total).toBe(1);
    });

    it('part of a reference among thousands sharing its prefix: exactly the orders holding the whole text, newest first', async () => {
      const index = createOrderIndex(db);
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
      await index.record(orders, at('2026-11-23T12:35:00Z'));
      // What the answer must be: every indexed order whose search text holds the text, newest first.
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
        const found = await index.search({ text, limit: 10 });
        expect({ text, ids: found.orders.map((o) => o.id), total: found.total }).toEqual({
          text,
          ids: want.slice(0, 10),
          total: want.length,
        });
      }
      expect(expected('2026-0001234')).toEqual(['W01234']);
      expect(expected('1234%off')).toEqual(['W-PCT']);
      const paged = await index.search({ text: '2026-00012', limit: 5, offset: 5 });
      expect(paged.orders.map((o) => o.id)).toEqual(expected('2026-00012').slice(5, 10));
      expect(paged.total).toBe(expected('2026-00012').length);
    });

    it('reads a range of the history newest first in keyset pages, ties by ID, nothing twice', async () => {
      const index = createOrderIndex(db);
      const same = '2024-05-05T05:05:05.000Z';
      await index.record(
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
      for await (const page of index.between(
        new Date('2024-05-01T00:00:00.000Z'),
        new Date('2024-05-31T00:00:00.000Z'),
        2,
      ))
        pages.push(page.map((o) => o.id));
      expect(pages).toEqual([['K5', 'K4'], ['K3', 'K2'], ['K1']]);
    });

    it('exports a range as CSV lines newest first in chunks, ties by ID, nothing twice; only completed when asked', async () => {
      const index = createOrderIndex(db);
      const same = '2023-03-03T03:03:03.000Z';
      const orders = [
        order('C1', { createdAt: '2023-03-01T00:00:00.000Z' }),
        order('C2', { createdAt: same, status: 'PENDING' }),
        order('C3', { createdAt: same }),
        order('C4', { createdAt: same, title: 'Quote "me", \n please' }),
        order('C5', { createdAt: '2023-03-09T00:00:00.000Z', status: 'REFUNDED' }),
        order('C6', { createdAt: '2023-04-01T00:00:00.000Z' }),
      ];
      await index.record(orders, at('2026-11-23T12:40:00Z'));
      const range = [new Date('2023-03-01T00:00:00.000Z'), new Date('2023-03-31T00:00:00.000Z')] as const;
      const chunks: CsvChunk[] = [];
      for await (const chunk of index.csvBetween(...range, {
        currencyCell: 'EUR',
        completedOnly: false,
        chunkSize: 2,
      }))
        chunks.push(chunk);
      // Lines as the partner's pages are formatted: the same orders through csvRow and csv-stringify.
      const expected = (ids: string[]) =>
        csvLines(
          ids.map((id) => csvRow(orders.find((candidate) => candidate.id === id) ?? order(id), 'EUR')),
        );
      expect(chunks).toEqual([
        { csv: expected(['C5', 'C4']), read: 2, written: 2 },
        { csv: expected(['C3', 'C2']), read: 2, written: 2 },
        { csv: expected(['C1']), read: 1, written: 1 },
      ]);
      const completed: CsvChunk[] = [];
      for await (const chunk of index.csvBetween(...range, {
        currencyCell: 'EUR',
        completedOnly: true,
        chunkSize: 3,
      }))
        completed.push(chunk);
      expect(completed).toEqual([
        { csv: expected(['C4', 'C3']), read: 3, written: 2 },
        { csv: expected(['C1']), read: 2, written: 1 },
      ]);
    });

    it('a status change rewrites the stored line; orders stored without one are formatted before an export', async () => {
      const index = createOrderIndex(db);
      const range = [new Date('2022-02-01T00:00:00.000Z'), new Date('2022-02-28T00:00:00.000Z')] as const;
      const read = async () => {
        let csv = '';
        for await (const chunk of index.csvBetween(...range, {
          currencyCell: '',
          completedOnly: false,
          chunkSize: 100,
        }))
          csv += chunk.csv;
        return csv;
      };
      const first = order('L1', { createdAt: '2022-02-02T00:00:00.000Z' });
      const second = order('L2', { createdAt: '2022-02-03T00:00:00.000Z', title: '=1+1' });
      await index.record([first, second], at('2026-11-23T12:50:00Z'));
      await index.record([{ ...first, status: 'REFUNDED' }], at('2026-11-23T12:51:00Z'));
      expect(await read()).toBe(
        csvLines([csvRow(second, undefined), csvRow({ ...first, status: 'REFUNDED' }, undefined)]),
      );
      // As orders written before the lines were stored (migration 0008), or after a migration cleared them.
      await db.run((kysely) =>
        kysely
          .updateTable('orders')
          .set({ csv_head: null, csv_tail: null })
          .where('id', 'in', ['L1', 'L2'])
          .execute(),
      );
      expect(await read()).toBe(
        csvLines([csvRow(second, undefined), csvRow({ ...first, status: 'REFUNDED' }, undefined)]),
      );
      const stored = await db.run((kysely) =>
        kysely.selectFrom('orders').select('csv_head').where('id', 'in', ['L1', 'L2']).execute(),
      );
      expect(stored.map((row) => row.csv_head).every((head) => typeof head === 'string')).toBe(true);
    });

    it('keeps creation times in one form, so text order is time order (an offset, no milliseconds)', async () => {
      const index = createOrderIndex(db);
      await index.record(
        [
          order('T1', { createdAt: '2021-01-01T10:00:00+01:00' }),
          order('T2', { createdAt: '2021-01-01T09:30:00Z' }),
          order('T3', { createdAt: '2021-01-01T09:45:00.000Z' }),
        ],
        at('2026-11-23T13:10:00Z'),
      );
      const pages: string[][] = [];
      for await (const page of index.between(
        new Date('2021-01-01T09:00:00.000Z'),
        new Date('2021-01-01T09:50:00.000Z'),
        10,
      ))
        pages.push(page.map((o) => `${o.id} ${o.createdAt}`));
      expect(pages).toEqual([
        ['T3 2021-01-01T09:45:00.000Z', 'T2 2021-01-01T09:30:00.000Z', 'T1 2021-01-01T09:00:00.000Z'],
      ]);
    });

    it('an order seen again rewrites a stale line; a line missing mid-export is formatted, never skipped', async () => {
      const index = createOrderIndex(db);
      const range = [new Date('2020-02-01T00:00:00.000Z'), new Date('2020-02-28T00:00:00.000Z')] as const;
      const orders = ['S1', 'S2', 'S3', 'S4'].map((id, i) =>
        order(id, { createdAt: `2020-02-0${i + 1}T00:00:00.000Z` }),
      );
      await index.record(orders, at('2026-11-23T13:20:00Z'));
      // A replica of an older version changed S1's status and left its line as it was.
      await db.run((kysely) =>
        kysely.updateTable('orders').set({ status: 'REFUNDED' }).where('id', '=', 'S1').execute(),
      );
      const refunded = { ...(orders[0] as OrderSummary), status: 'REFUNDED' };
      await index.record([refunded], at('2026-11-23T13:21:00Z'));
      // Seen again with the status its row already had: its line is rewritten all the same.
      const rewritten = await db.run((kysely) =>
        kysely
          .selectFrom('orders')
          .select(['csv_head', 'csv_tail'])
          .where('id', '=', 'S1')
          .executeTakeFirst(),
      );
      expect((rewritten?.csv_head ?? '') + (rewritten?.csv_tail ?? '')).toBe(
        csvLines([csvRow(refunded, undefined)]),
      );
      const chunks: string[] = [];
      for await (const chunk of index.csvBetween(...range, {
        currencyCell: '',
        completedOnly: false,
        chunkSize: 2,
      })) {
        chunks.push(chunk.csv.toString());
        // After the first chunk, an older replica writes S1 again without its line.
        if (chunks.length === 1)
          await db.run((kysely) =>
            kysely.updateTable('orders').set({ csv_head: null }).where('id', '=', 'S1').execute(),
          );
      }
      expect(chunks.join('')).toBe(
        csvLines(
          [orders[3], orders[2], orders[1], refunded].map((o) => csvRow(o as OrderSummary, undefined)),
        ),
      );
    });

    it('formats the lines of every stored order without one, a batch at a time, stopping when told', async () => {
      const index = createOrderIndex(db);
      const many = Array.from({ length: 520 }, (_, i) =>
        order(`B${String(i).padStart(4, '0')}`, { createdAt: '2019-05-05T05:05:05.000Z' }),
      );
      await index.record([...many, order('B-NOTIME', { createdAt: null })], at('2026-11-23T13:30:00Z'));
      // As after migration 0008: every order stored without its line.
      await db.run((kysely) =>
        kysely.updateTable('orders').set({ csv_head: null, csv_tail: null }).execute(),
      );
      const missing = async () =>
        Number(
          (
            await db.run((kysely) =>
              kysely
                .selectFrom('orders')
                .select((eb) => eb.fn.countAll<number | string>().as('n'))
                .where('csv_head', 'is', null)
                .executeTakeFirstOrThrow(),
            )
          ).n,
        );
      const before = await missing();
      expect(before).toBeGreaterThanOrEqual(521);
      expect(await index.formatMissingLines(() => true)).toBe(500);
      expect(await missing()).toBe(before - 500);
      expect(await index.formatMissingLines()).toBe(before - 500);
      expect(await missing()).toBe(0);
    });

    it('marks orders no longer listed (never deletes them), keeps cursors, prunes old events', async () => {
      const index = createOrderIndex(db);
      await index.record([order('M1')], at('2026-11-23T13:00:00Z'));
      await index.markMissing(['M1'], at('2026-11-23T14:00:00Z'));
      expect((await index.get('M1'))?.id).toBe('M1');
      expect(await index.readCursor('backfill')).toBeUndefined();
      await index.writeCursor('backfill', '{"page":7}', at('2026-11-23T14:00:00Z'));
      await index.writeCursor('backfill', '{"page":8}', at('2026-11-23T14:01:00Z'));
      expect(await index.readCursor('backfill')).toBe('{"page":8}');
      const before = (await index.events(0, 10_000)).length;
      const pruned = await index.pruneEvents(at('2026-11-23T12:30:00Z'));
      expect(pruned).toBeGreaterThan(0);
      expect((await index.events(0, 10_000)).length).toBe(before - pruned);
      expect((await index.stats()).orders).toBeGreaterThanOrEqual(7);
    });

    /** The export of a range: its bytes, and which chunks came from days' blocks (bytes, not text). */
    const exportOf = async (
      index: ReturnType<typeof createOrderIndex>,
      from: string,
      to: string,
      options: { currencyCell?: string; completedOnly?: boolean } = {},
    ) => {
      const chunks: CsvChunk[] = [];
      const asked = {
        currencyCell: options.currencyCell ?? 'EUR',
        completedOnly: options.completedOnly ?? false,
      };
      const exported = await index.csvExport(new Date(from), new Date(to), { ...asked, chunkSize: 3 });
      for await (const chunk of exported.chunks) chunks.push(chunk);
      // The size said before the read is the size read (nothing changes in between here)...
      expect(chunks.reduce((sum, chunk) => sum + Buffer.byteLength(chunk.csv), 0)).toBe(exported.bytes);
      // ...and the lines are csvBetween's.
      const again: CsvChunk[] = [];
      for await (const chunk of index.csvBetween(new Date(from), new Date(to), { ...asked, chunkSize: 3 }))
        again.push(chunk);
      expect(again).toEqual(chunks);
      return {
        csv: chunks.map((chunk) => chunk.csv.toString()).join(''),
        read: chunks.reduce((sum, chunk) => sum + chunk.read, 0),
        written: chunks.reduce((sum, chunk) => sum + chunk.written, 0),
        fromBlocks: chunks.filter((chunk) => Buffer.isBuffer(chunk.csv)).length,
      };
    };
    // Three days of 2018, orders at several times of each day (two at the same time: ties by ID).
    const dayOrders = [
      order('D01', { createdAt: '2018-06-01T00:00:00.000Z' }),
      order('D02', { createdAt: '2018-06-01T09:30:00.000Z', status: 'PENDING' }),
      order('D03', { createdAt: '2018-06-01T23:59:59.999Z', title: 'Line\nbreak, "quoted"' }),
      order('D04', { createdAt: '2018-06-02T04:00:00.000Z' }),
      order('D05', { createdAt: '2018-06-02T04:00:00.000Z', status: 'REFUNDED' }),
      order('D06', { createdAt: '2018-06-02T20:00:00.000Z', title: 'Ünïcode 🎮' }),
      order('D07', { createdAt: '2018-06-03T01:00:00.000Z' }),
      order('D08', { createdAt: '2018-06-03T22:00:00.000Z', status: 'PENDING' }),
      // A leap second: no Date reads it, so it is stored as sent, after the day's last millisecond.
      // It is in its date's block, and read once whichever way the day is read.
      order('D10', { createdAt: '2018-06-01T23:59:60Z' }),
    ];
    const expectedCsv = (orders: OrderSummary[], currency = 'EUR') =>
      csvLines(
        [...orders]
          .sort((a, b) => ((b.createdAt ?? '') + b.id < (a.createdAt ?? '') + a.id ? -1 : 1))
          .map((o) => csvRow(o, currency)),
      );

    it('joins each changed day once; an export reads joined days as blocks, byte for byte the rows, in any time zone', async () => {
      const index = createOrderIndex(db);
      await index.record(dayOrders, at('2026-11-23T15:00:00Z'));
      const ranges = [
        // UTC days whole; Berlin (+02:00 in June) days: the first and last UTC days partial; one day.
        ['2018-06-01T00:00:00.000Z', '2018-06-03T23:59:59.999Z'],
        ['2018-05-31T22:00:00.000Z', '2018-06-03T21:59:59.999Z'],
        ['2018-06-02T00:00:00.000Z', '2018-06-02T23:59:59.999Z'],
      ] as const;
      const before = [];
      for (const [from, to] of ranges) before.push(await exportOf(index, from, to));
      for (const completedOnly of [false, true])
        before.push(await exportOf(index, ranges[0][0], ranges[0][1], { completedOnly }));
      expect(before.every((result) => result.fromBlocks === 0)).toBe(true);
      expect(before[0]?.csv).toBe(expectedCsv(dayOrders));
      expect(await index.buildExportDays('EUR')).toBeGreaterThanOrEqual(3);
      // Nothing changed since: nothing to join.
      expect(await index.buildExportDays('EUR')).toBe(0);
      const after = [];
      for (const [from, to] of ranges) after.push(await exportOf(index, from, to));
      for (const completedOnly of [false, true])
        after.push(await exportOf(index, ranges[0][0], ranges[0][1], { completedOnly }));
      expect(after.map(({ csv, read, written }) => ({ csv, read, written }))).toEqual(
        before.map(({ csv, read, written }) => ({ csv, read, written })),
      );
      // A chunk per day read as a block: three whole days; Berlin: 06-01 and 06-02 whole, the rest by
      // rows; one day; three days, all orders or the completed ones.
      expect(after.map((result) => result.fromBlocks)).toEqual([3, 2, 1, 3, 3]);
      expect(after[4]).toMatchObject({
        csv: expectedCsv(dayOrders.filter((o) => o.status === 'COMPLETED')),
        read: 9,
        written: 6,
      });
    });

    it('a change after a day was joined: the export shows it at once (that day by rows); the next build joins it again', async () => {
      const index = createOrderIndex(db);
      await index.buildExportDays('EUR');
      const range = ['2018-06-01T00:00:00.000Z', '2018-06-03T23:59:59.999Z'] as const;
      const seen = at('2026-11-23T15:10:00Z');
      // Seen again unchanged: the days stay joined.
      await index.record(dayOrders, seen);
      expect(await index.buildExportDays('EUR')).toBe(0);
      const now = dayOrders.map((o) => (o.id === 'D04' ? { ...o, status: 'REFUNDED' } : o));
      // A status change (06-02), a new order (06-03), an order moved from 06-01 to 06-03.
      const moved = { ...(dayOrders[1] as OrderSummary), createdAt: '2018-06-03T12:00:00.000Z' };
      const added = order('D09', { createdAt: '2018-06-03T05:00:00.000Z' });
      await index.record([now[3] as OrderSummary, added, moved], seen);
      const current = [...now.filter((o) => o.id !== moved.id), moved, added];
      // Each changed day marked once (06-03 changed twice).
      const marks = await db.run((kysely) =>
        kysely
          .selectFrom('export_day_changes')
          .select('day')
          .where('day', 'in', ['2018-06-01', '2018-06-02', '2018-06-03'])
          .execute(),
      );
      expect(marks.map((mark) => mark.day).sort()).toEqual(['2018-06-01', '2018-06-02', '2018-06-03']);
      const changed = await exportOf(index, ...range);
      expect(changed.csv).toBe(expectedCsv(current));
      expect(changed.fromBlocks).toBe(0);
      expect(await index.buildExportDays('EUR')).toBe(3);
      const rejoined = await exportOf(index, ...range);
      expect(rejoined).toEqual({ ...changed, fromBlocks: 3 });
      // Another currency: the days joined with EUR are not used, and the next build joins them again.
      const usd = await exportOf(index, ...range, { currencyCell: 'USD' });
      expect(usd).toMatchObject({ csv: expectedCsv(current, 'USD'), fromBlocks: 0 });
      expect(await index.buildExportDays('USD')).toBeGreaterThanOrEqual(3);
      expect(await exportOf(index, ...range, { currencyCell: 'USD' })).toEqual({ ...usd, fromBlocks: 3 });
    });

    it('a day changed after the export was planned is read by rows in its place: the change is in the file, in order', async () => {
      const index = createOrderIndex(db);
      await index.buildExportDays('EUR');
      const range = [new Date('2018-06-01T00:00:00.000Z'), new Date('2018-06-03T23:59:59.999Z')] as const;
      const planned = await index.csvExport(...range, {
        currencyCell: 'EUR',
        completedOnly: false,
        chunkSize: 3,
      });
      // The middle day changes after the plan, before its block is read.
      const renamed = {
        ...(dayOrders[5] as OrderSummary),
        item: { ...(dayOrders[5] as OrderSummary).item, title: 'Renamed' },
      };
      await index.record([renamed], at('2026-11-23T15:15:00Z'));
      const chunks: CsvChunk[] = [];
      for await (const chunk of planned.chunks) chunks.push(chunk);
      const csv = chunks.map((chunk) => chunk.csv.toString()).join('');
      expect(csv).toContain(',Renamed,');
      // The first and last days from their blocks, the middle one by rows: the same file as now.
      expect(chunks.filter((chunk) => Buffer.isBuffer(chunk.csv))).toHaveLength(2);
      expect(csv).toBe((await exportOf(index, range[0].toISOString(), range[1].toISOString())).csv);
    });

    it('a day with an order not formatted yet is not joined; its export formats it and reads it by rows', async () => {
      const index = createOrderIndex(db);
      const orders = [
        order('N1', { createdAt: '2017-03-04T10:00:00.000Z' }),
        order('N2', { createdAt: '2017-03-04T11:00:00.000Z' }),
      ];
      await index.record(orders, at('2026-11-23T15:20:00Z'));
      await db.run((kysely) =>
        kysely.updateTable('orders').set({ csv_head: null, csv_tail: null }).where('id', '=', 'N1').execute(),
      );
      await index.buildExportDays('EUR');
      const range = ['2017-03-04T00:00:00.000Z', '2017-03-04T23:59:59.999Z'] as const;
      const exported = await exportOf(index, ...range);
      expect(exported).toMatchObject({ csv: expectedCsv(orders), fromBlocks: 0 });
      // The export formatted N1: the day is joined at the next build.
      expect(await index.buildExportDays('EUR')).toBe(1);
      expect(await exportOf(index, ...range)).toEqual({ ...exported, fromBlocks: 1 });
    });

    it.skipIf(name === 'SQLite')(
      'a day a writer is changing (not committed yet) is not joined until it commits; the writer then marks it again',
      async () => {
        const index = createOrderIndex(db);
        const writer = createOrderIndex(peer);
        const first = order('W1', { createdAt: '2016-08-08T08:00:00.000Z', status: 'PENDING' });
        await index.buildExportDays('EUR');
        // The new order marks its day (committed).
        await index.record([first], at('2026-11-23T15:30:00Z'));
        const range = ['2016-08-08T00:00:00.000Z', '2016-08-08T23:59:59.999Z'] as const;
        const { sql } = await import('kysely');
        await peer.kysely.transaction().execute(async (trx) => {
          await sql`update orders set status = 'COMPLETED' where id = 'W1'`.execute(trx);
          // Not joined while a change of the day is not committed: the join would hold the old line,
          // and that change's mark could be taken for one the join had seen.
          expect(await index.buildExportDays('EUR')).toBe(0);
        });
        // Committed: its change row is there, the day is joined now.
        expect(await index.buildExportDays('EUR')).toBe(1);
        // That change left the stored line as it was (as an older replica would): seen again, the line
        // is rewritten, which marks the day again.
        await writer.record([{ ...first, status: 'COMPLETED' }], at('2026-11-23T15:31:00Z'));
        expect(await index.buildExportDays('EUR')).toBe(1);
        expect(await exportOf(index, ...range)).toMatchObject({
          csv: expectedCsv([{ ...first, status: 'COMPLETED' }]),
          fromBlocks: 1,
        });
      },
    );
  });
}

indexContract('SQLite', async () => {
  const db = await openDatabase({ databaseUrl: undefined, dataDir: ':memory:', logger });
  return { db, peer: db };
});

describe.skipIf(postgresTests.skip)('on PostgreSQL', () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgresServer();
  }, 30_000);
  afterAll(() => server?.destroy());
  indexContract('PostgreSQL', async () => {
    const url = await createDatabase(server, 'order_index');
    return {
      db: await openDatabase({ databaseUrl: url, dataDir: ':memory:', logger }),
      peer: await openDatabase({ databaseUrl: url, dataDir: ':memory:', logger }),
    };
  });
});
