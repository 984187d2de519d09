import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuditRecord, createAuditStore } from '../../src/access/audit-store.js';
import { DatabaseStartupError, type OrderDeskDb, openDatabase } from '../../src/db/index.js';
import type { Database } from '../../src/db/schema.js';
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

    it('has every table the app uses and the indexes its reads rely on', async () => {
      const engine = db.engine;
      const names = await db.run(async (kysely) =>
        engine === 'sqlite'
          ? (await sql<{ name: string }>`select name from sqlite_master`.execute(kysely)).rows
          : (
              await sql<{
                name: string;
              }>`select tablename as name from pg_tables where schemaname = current_schema()
                union all select indexname from pg_indexes where schemaname = current_schema()`.execute(
                kysely,
              )
            ).rows,
      );
      const found = names.map((row) => row.name);
      const tables: Array<keyof Database> = [
        'audit_log',
        'orders',
        'order_events',
        'sync_state',
        'order_watches',
        'subscriptions',
        'outbox',
        'order_threads',
        'app_secrets',
      ];
      for (const name of [
        ...tables,
        'orders_created_id',
        'orders_amount_created',
        'order_events_order',
        'outbox_target',
        engine === 'sqlite' ? 'orders_fts' : 'orders_search_trgm',
      ])
        expect(found).toContain(name);
    });
  });
}

databaseContract('SQLite in memory', () =>
  openDatabase({ databaseUrl: undefined, dataDir: ':memory:', logger: capturedLogger() }),
);

describe('SQLite in DATA_DIR', () => {
  const dir = mkdtempSync(join(tmpdir(), 'order-desk-db-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  databaseContract('SQLite file', () =>
    openDatabase({ databaseUrl: undefined, dataDir: join(dir, 'contract'), logger: capturedLogger() }),
  );

  it('a file made by a pre-release build (schema steps since folded into one) is refused in words', async () => {
    const dataDir = join(dir, 'pre-release');
    mkdirSync(dataDir);
    const file = new BetterSqlite3(join(dataDir, 'order-desk.sqlite'));
    file.exec(`create table kysely_migration (name varchar(255) primary key, timestamp varchar(255) not null);
      insert into kysely_migration values ('0001_audit_log', '2026-11-01'), ('0002_order_index', '2026-11-01');`);
    file.close();
    const error = await openDatabase({ databaseUrl: undefined, dataDir, logger: capturedLogger() }).catch(
      (caught: unknown) => caught as Error,
    );
    expect(error).toBeInstanceOf(DatabaseStartupError);
    expect((error as Error).message).toContain('made by a pre-release build of Order Desk');
  });

  it('a restart opens the same file, with its lines and its schema already up to date', async () => {
    const dataDir = join(dir, 'restart');
    const first = await openDatabase({ databaseUrl: undefined, dataDir, logger: capturedLogger() });
    await createAuditStore(first).record(line('ORD-R', '2026-11-23T10:00:00.000Z'));
    await first.close();
    const second = await openDatabase({ databaseUrl: undefined, dataDir, logger: capturedLogger() });
    expect((await createAuditStore(second).forOrder('ORD-R', 10)).total).toBe(1);
    await second.close();
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
