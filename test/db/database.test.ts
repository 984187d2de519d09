import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseStartupError, type OrderDeskDb, openDatabase } from '../../src/db/index.js';
import { type Engine, migrationProvider } from '../../src/db/migrations.js';
import type { Database, OrdersTable } from '../../src/db/schema.js';
import { createOrderIndex } from '../../src/orders/order-index.js';
import { createOutboxStore } from '../../src/outbox/store.js';
import { type AuditRecord, createAuditStore } from '../../src/services/audit-store.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import {
  createDatabase,
  postgresTests,
  type SharedPostgres,
  sharedPostgres,
} from '../helpers/postgres-server.js';

const line = (orderId: string, at: string, extra: Partial<AuditRecord> = {}): AuditRecord => ({
  at: new Date(at),
  userId: 'U0AGENT',
  channelId: 'C0SUPPORT',
  orderId,
  outcome: 'shown',
  via: 'command',
  keyCount: 2,
  traceId: 'trace-1',
  ...extra,
});

/** The orders table as migration 0010 left it. */
type Before0011 = { orders: OrdersTable & { csv_head: string | null; csv_tail: string | null } };

/**
 * A database left at migration 0010 (stored CSV lines, per-day blocks and their triggers) with an order
 * in it upgrades in place: the order stays, readable in keyset order, and what the export no longer
 * uses is gone.
 */
async function upgradesFromStoredCsvLines(
  engine: Engine,
  atOldVersion: () => Promise<Kysely<Before0011>>,
  reopen: () => Promise<OrderDeskDb>,
) {
  const old = await atOldVersion();
  const migrated = await new Migrator({ db: old, provider: migrationProvider(engine) }).migrateTo(
    '0010_export_days',
  );
  expect(migrated.error).toBeUndefined();
  await old
    .insertInto('orders')
    .values({
      id: 'ORD-OLD-1',
      reference_id: 'PO-OLD-1',
      status: 'COMPLETED',
      item_id: 'ITEM-1',
      title: 'Game Key',
      quantity: 1,
      amount: 10,
      created_at: '2025-01-02T03:04:05.000Z',
      search_text: 'ord-old-1 po-old-1 game key',
      first_seen_at: '2025-01-02T03:04:05.000Z',
      last_seen_at: '2025-01-02T03:04:05.000Z',
      status_version: 0,
      missing_since: null,
      next_check_at: null,
      checks: 0,
      csv_head: 'ORD-OLD-1,',
      csv_tail: ',x\r\n',
    })
    .execute();
  await old.destroy();

  const db = await reopen();
  const index = createOrderIndex(db);
  expect((await index.get('ORD-OLD-1'))?.referenceId).toBe('PO-OLD-1');
  const pages: string[][] = [];
  for await (const page of index.between(new Date('2025-01-01'), new Date('2025-01-31'), 10))
    pages.push(page.map((order) => order.id));
  expect(pages).toEqual([['ORD-OLD-1']]);
  // The order is written again as the sync would (no CSV columns to fill any more).
  await index.record(
    [
      {
        id: 'ORD-OLD-1',
        referenceId: 'PO-OLD-1',
        status: 'REFUNDED',
        item: { id: 'ITEM-1', title: 'Game Key', quantity: 1, amount: 10 },
        createdAt: '2025-01-02T03:04:05.000Z',
      },
    ],
    new Date('2026-11-25T10:00:00Z'),
  );
  expect((await index.get('ORD-OLD-1'))?.status).toBe('REFUNDED');
  const schema = await db.run(async (kysely) => {
    const tables = (await kysely.introspection.getTables()).map((table) => table);
    return {
      tables: tables.map((table) => table.name),
      orderColumns: tables.find((table) => table.name === 'orders')?.columns.map((column) => column.name),
    };
  });
  expect(schema.tables).not.toContain('export_days');
  expect(schema.tables).not.toContain('export_day_changes');
  expect(schema.orderColumns).not.toContain('csv_head');
  expect(schema.orderColumns).not.toContain('csv_tail');
  const indexes = await db.run(async (kysely) =>
    engine === 'sqlite'
      ? (
          await sql<{
            name: string;
          }>`select name from sqlite_master where type in ('index', 'trigger')`.execute(kysely)
        ).rows
      : (
          await sql<{ name: string }>`select indexname as name from pg_indexes where tablename = 'orders'
            union all select tgname as name from pg_trigger where not tgisinternal`.execute(kysely)
        ).rows,
  );
  const names = indexes.map((row) => row.name);
  expect(names).toContain('orders_created_id');
  expect(names.filter((name) => /export|csv/.test(name))).toEqual([]);
  await db.close();
}

/** One contract for every engine: the app must not care which database it has. */
function databaseContract(name: string, open: () => Promise<OrderDeskDb>) {
  describe(`the database contract: ${name}`, () => {
    let db: OrderDeskDb;
    beforeAll(async () => {
      db = await open();
    });
    afterAll(() => db?.close());

    it('keeps audit lines and gives one order’s newest first, with the total', async () => {
      const store = createAuditStore(db);
      await store.record(line('ORD-A', '2026-11-20T10:00:00.000Z'));
      await store.record(
        line('ORD-A', '2026-11-22T10:00:00.000Z', {
          userId: 'U0OTHER',
          outcome: 'denied',
          keyCount: 0,
          channelId: undefined,
          traceId: undefined,
        }),
      );
      await store.record(line('ORD-A', '2026-11-21T10:00:00.000Z', { via: 'reveal' }));
      await store.record(line('ORD-B', '2026-11-23T10:00:00.000Z'));
      const trail = await store.forOrder('ORD-A', 2);
      expect(trail.total).toBe(3);
      expect(trail.lines.map((l) => l.at.toISOString())).toEqual([
        '2026-11-22T10:00:00.000Z',
        '2026-11-21T10:00:00.000Z',
      ]);
      expect(trail.lines[0]).toEqual({
        at: new Date('2026-11-22T10:00:00.000Z'),
        userId: 'U0OTHER',
        channelId: undefined,
        orderId: 'ORD-A',
        outcome: 'denied',
        via: 'command',
        keyCount: 0,
        traceId: undefined,
      });
      expect((await store.forOrder('ORD-NONE', 10)).total).toBe(0);
    });

    it('deletes only what is past its retention', async () => {
      const store = createAuditStore(db);
      await store.record(line('ORD-OLD', '2025-01-01T00:00:00.000Z'));
      await store.record(line('ORD-OLD', '2026-11-01T00:00:00.000Z'));
      const deleted = await store.prune(new Date('2026-01-01T00:00:00.000Z'));
      expect(deleted).toBe(1);
      expect((await store.forOrder('ORD-OLD', 10)).total).toBe(1);
    });

    it('opening again runs no migration twice and keeps the data', async () => {
      expect(db.isUp()).toBe(true);
    });
  });
}

databaseContract('SQLite in memory', () =>
  openDatabase({ databaseUrl: undefined, dataDir: ':memory:', logger: capturedLogger() }),
);

/** The outbox as migration 0011 left it: order events' own table. */
type Before0012 = { notification_outbox: Record<string, unknown> };

/**
 * A database left at migration 0011 with an order event's post pending in `notification_outbox`
 * upgrades in place: the table is the one outbox, its row still pending (and posted once: its key is
 * taken), and the other kinds of post go in beside it.
 */
async function upgradesToOneOutbox(
  engine: Engine,
  atOldVersion: () => Promise<Kysely<Before0012>>,
  reopen: () => Promise<OrderDeskDb>,
) {
  const old = await atOldVersion();
  const migrated = await new Migrator({ db: old, provider: migrationProvider(engine) }).migrateTo(
    '0011_one_export_path',
  );
  expect(migrated.error).toBeUndefined();
  await old
    .insertInto('notification_outbox')
    .values({
      dedupe_key: 'channel:C0SUPPORT:7',
      kind: 'subscription',
      target: 'C0SUPPORT',
      order_id: 'ORD-OLD-1',
      event_id: 7,
      subscription_id: 'sub-1',
      body: null,
      status: 'pending',
      attempts: 0,
      next_attempt_at: '2026-11-25T10:00:00.000Z',
      created_at: '2026-11-25T10:00:00.000Z',
    })
    .execute();
  await old.destroy();

  const db = await reopen();
  const outbox = createOutboxStore(db);
  const at = new Date('2026-11-25T10:00:01.000Z');
  const [pending] = await outbox.due(at, 10, 10);
  expect(pending).toMatchObject({ dedupeKey: 'channel:C0SUPPORT:7', kind: 'subscription', eventId: 7 });
  expect(
    await outbox.enqueue(
      [
        { dedupeKey: 'channel:C0SUPPORT:7', kind: 'subscription', target: 'C0SUPPORT' },
        { dedupeKey: 'digest:C0DIGEST:2026-11-24', kind: 'digest', target: 'C0DIGEST', body: { text: 'x' } },
      ],
      at,
    ),
  ).toBe(1);
  // New rows still get IDs after the old ones (the sequence followed the table).
  expect((await outbox.find('digest:C0DIGEST:2026-11-24'))?.id).toBeGreaterThan(pending?.id ?? 0);
  expect(await outbox.counts()).toEqual({ pending: 2 });
  const tables = await db.run(async (kysely) =>
    (await kysely.introspection.getTables()).map((table) => table.name),
  );
  expect(tables).toContain('outbox');
  expect(tables).not.toContain('notification_outbox');
  await db.close();
}

/** The orders table as migration 0012 left it: lower-case search texts, titles as the partner sent them. */
type Before0013 = { orders: OrdersTable };

/** Text that does not compress, in letters no search of the test uses. */
const noise = (length: number) =>
  Array.from(randomBytes(length), (byte) => '0123456789qwxyzkjv'[byte % 18]).join('');

/** How much room the orders take (table and indexes; SQLite: the whole file's pages). */
async function ordersSize(engine: Engine, db: Kysely<Before0013> | Kysely<Database>): Promise<number> {
  if (engine === 'sqlite') {
    const { rows } = await sql<{ bytes: number }>`select page_count * page_size as bytes
      from pragma_page_count(), pragma_page_size()`.execute(db);
    return Number(rows[0]?.bytes);
  }
  const { rows } = await sql<{ bytes: string }>`select pg_total_relation_size('orders') as bytes`.execute(db);
  return Number(rows[0]?.bytes);
}

/**
 * A database left at migration 0012 with long-titled orders, accented ones (composed and not) and one
 * whose reference is over the bound upgrades in place (0013): titles cut, search texts folded, the
 * over-long order gone, the trigram index rebuilt (searches find the folded texts through it) and the
 * space given back.
 */
async function upgradesToBoundedSearchText(
  engine: Engine,
  atOldVersion: () => Promise<Kysely<Before0013>>,
  reopen: () => Promise<OrderDeskDb>,
) {
  const old = await atOldVersion();
  const migrated = await new Migrator({ db: old, provider: migrationProvider(engine) }).migrateTo(
    '0012_one_outbox',
  );
  expect(migrated.error).toBeUndefined();
  const row = (id: string, title: string, reference = `PO-${id}`) => ({
    id,
    reference_id: reference,
    status: 'COMPLETED',
    item_id: 'ITEM-1',
    title,
    quantity: 1,
    amount: 10,
    created_at: `2025-01-02T03:04:${id.slice(-2)}.000Z`,
    // What the code before 0013 stored: lower case, nothing else.
    search_text: [id, reference, title].join(' ').toLowerCase(),
    first_seen_at: '2025-01-02T03:04:05.000Z',
    last_seen_at: '2025-01-02T03:04:05.000Z',
    status_version: 0,
    missing_since: null,
    next_check_at: null,
    checks: 0,
  });
  const long = Array.from({ length: 16 }, (_, i) =>
    // Text that does not compress (PostgreSQL would store a repeated one in a few bytes).
    row(`LONG-${String(i).padStart(2, '0')}`, `Huge Bundle ${i} Wool Sock 👩‍👩‍👧 ${noise(20_000)}`),
  );
  await old
    .insertInto('orders')
    .values([
      ...long,
      row('ACC-01', 'CAFÉ OLÉ'),
      row('ACC-02', 'Cafe\u0301 Cre\u0300me'),
      row('ACC-03', 'Straße nach İstanbul'),
      row('REF-99', 'Fine title', `PO-${'9'.repeat(150)}`),
    ])
    .execute();
  const before = await ordersSize(engine, old);
  await old.destroy();

  const db = await reopen();
  const index = createOrderIndex(db);
  const ids = async (text: string) => (await index.search({ text, limit: 50 })).orders.map((o) => o.id);
  expect(await ids('cafe')).toEqual(['ACC-02', 'ACC-01']);
  expect(await ids('cafe\u0301')).toEqual(['ACC-02', 'ACC-01']);
  expect(await ids('creme')).toEqual(['ACC-02']);
  expect(await ids('strasse')).toEqual(['ACC-03']);
  expect(await ids('istanbul')).toEqual(['ACC-03']);
  expect(await ids('huge bundle 7')).toEqual(['LONG-07']);
  expect(await index.get('REF-99')).toBeUndefined();
  const title = (await index.get('LONG-03'))?.item.title ?? '';
  expect([...title].length).toBeLessThanOrEqual(500);
  expect(title.startsWith('Huge Bundle 3 Wool Sock 👩‍👩‍👧 ')).toBe(true);
  expect(title.endsWith('…')).toBe(true);
  const after = await db.run((kysely) => ordersSize(engine, kysely));
  expect(after).toBeLessThan(before / 4);
  // The trigram index follows later changes again (SQLite's trigger is back).
  await index.record(
    [
      {
        id: 'ACC-01',
        referenceId: 'PO-ACC-01',
        status: 'COMPLETED',
        item: { id: 'ITEM-1', title: 'Crème Brûlée', quantity: 1, amount: 10 },
        createdAt: '2025-01-02T03:04:01.000Z',
      },
    ],
    new Date('2026-11-25T10:00:00Z'),
  );
  expect(await ids('brulee')).toEqual(['ACC-01']);
  expect(await ids('ole')).toEqual([]);
  await db.close();
}

describe('SQLite in DATA_DIR', () => {
  const dir = mkdtempSync(join(tmpdir(), 'order-desk-db-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  databaseContract('SQLite file', () =>
    openDatabase({ databaseUrl: undefined, dataDir: join(dir, 'contract'), logger: capturedLogger() }),
  );

  it('a restart opens the same file, with its lines and its schema already up to date', async () => {
    const dataDir = join(dir, 'restart');
    const first = await openDatabase({ databaseUrl: undefined, dataDir, logger: capturedLogger() });
    await createAuditStore(first).record(line('ORD-R', '2026-11-23T10:00:00.000Z'));
    await first.close();
    const second = await openDatabase({ databaseUrl: undefined, dataDir, logger: capturedLogger() });
    expect((await createAuditStore(second).forOrder('ORD-R', 10)).total).toBe(1);
    await second.close();
  });

  it('a file from before the one export path (migration 0010) upgrades in place', async () => {
    const dataDir = join(dir, 'upgrade');
    mkdirSync(dataDir, { recursive: true });
    await upgradesFromStoredCsvLines(
      'sqlite',
      async () =>
        new Kysely<Before0011>({
          dialect: new SqliteDialect({ database: new BetterSqlite3(join(dataDir, 'order-desk.sqlite')) }),
        }),
      () => openDatabase({ databaseUrl: undefined, dataDir, logger: capturedLogger() }),
    );
  });
  it('a file from before the one outbox (migration 0011) upgrades in place, its pending posts kept', async () => {
    const dataDir = join(dir, 'upgrade-outbox');
    mkdirSync(dataDir, { recursive: true });
    await upgradesToOneOutbox(
      'sqlite',
      async () =>
        new Kysely<Before0012>({
          dialect: new SqliteDialect({ database: new BetterSqlite3(join(dataDir, 'order-desk.sqlite')) }),
        }),
      () => openDatabase({ databaseUrl: undefined, dataDir, logger: capturedLogger() }),
    );
  });
  it('a file from before bounded search texts (migration 0012) upgrades in place', async () => {
    const dataDir = join(dir, 'upgrade-search-text');
    mkdirSync(dataDir, { recursive: true });
    await upgradesToBoundedSearchText(
      'sqlite',
      async () =>
        new Kysely<Before0013>({
          dialect: new SqliteDialect({ database: new BetterSqlite3(join(dataDir, 'order-desk.sqlite')) }),
        }),
      () => openDatabase({ databaseUrl: undefined, dataDir, logger: capturedLogger() }),
    );
  });
});

describe.skipIf(postgresTests.skip)('PostgreSQL', () => {
  let server: SharedPostgres;
  beforeAll(() => {
    server = sharedPostgres();
  });

  databaseContract('PostgreSQL', async () =>
    openDatabase({
      databaseUrl: await createDatabase(server, 'contract'),
      dataDir: ':memory:',
      logger: capturedLogger(),
    }),
  );

  it('a database from before the one export path (migration 0010) upgrades in place', async () => {
    const url = await createDatabase(server, 'upgrade');
    await upgradesFromStoredCsvLines(
      'postgres',
      async () =>
        new Kysely<Before0011>({
          dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url }) }),
        }),
      () => openDatabase({ databaseUrl: url, dataDir: ':memory:', logger: capturedLogger() }),
    );
  });

  it('a database from before the one outbox (migration 0011) upgrades in place, its pending posts kept', async () => {
    const url = await createDatabase(server, 'upgrade_outbox');
    await upgradesToOneOutbox(
      'postgres',
      async () =>
        new Kysely<Before0012>({
          dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url }) }),
        }),
      () => openDatabase({ databaseUrl: url, dataDir: ':memory:', logger: capturedLogger() }),
    );
  });

  it('a database from before bounded search texts (migration 0012) upgrades in place', async () => {
    const url = await createDatabase(server, 'upgrade_search_text');
    await upgradesToBoundedSearchText(
      'postgres',
      async () =>
        new Kysely<Before0013>({
          dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url }) }),
        }),
      () => openDatabase({ databaseUrl: url, dataDir: ':memory:', logger: capturedLogger() }),
    );
  });

  it('replicas starting together migrate once (an advisory lock), and all of them work', async () => {
    const url = await createDatabase(server, 'replicas');
    const replicas = await Promise.all(
      [0, 1, 2].map(() => openDatabase({ databaseUrl: url, dataDir: ':memory:', logger: capturedLogger() })),
    );
    await createAuditStore(replicas[0] as OrderDeskDb).record(line('ORD-P', '2026-11-23T10:00:00.000Z'));
    for (const replica of replicas)
      expect((await createAuditStore(replica).forOrder('ORD-P', 10)).total).toBe(1);
    await Promise.all(replicas.map((replica) => replica.close()));
  });

  it('unreachable at start: one clear error naming it without the password', async () => {
    const error = await openDatabase({
      databaseUrl: 'postgres://order-desk:s3cret-pw@127.0.0.1:1/orders',
      dataDir: ':memory:',
      logger: capturedLogger(),
    }).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(DatabaseStartupError);
    expect((error as Error).message).toContain(
      'could not reach PostgreSQL at postgres://127.0.0.1:1/orders (DATABASE_URL)',
    );
    expect((error as Error).message).not.toContain('s3cret-pw');
  });
});
