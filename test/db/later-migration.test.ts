import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MigrationProvider, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { type Engine, openDatabase } from '../../src/db/index.js';
import { migrationProvider } from '../../src/db/migrations.js';
import { createOutboxStore, type OutboxEntry } from '../../src/outbox/store.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import { createDatabase, postgresTests, sharedPostgres } from '../helpers/postgres-server.js';

const post: OutboxEntry = {
  dedupeKey: 'notice:U0AGENT:1',
  kind: 'notice',
  target: 'U0AGENT',
  body: { text: 'You will be told when ORD-1 settles.' },
};

/**
 * The runner's contract for the migrations that come after the baseline: a database in use gets the
 * new one once, keeps its rows, and a later start runs nothing again.
 */
function laterMigrationContract(
  engine: Engine,
  where: () => Promise<{ databaseUrl?: string; dataDir: string }>,
) {
  it(`${engine}: a migration added after the baseline runs once on a database in use and keeps its rows`, async () => {
    const location = await where();
    const open = (migrations?: MigrationProvider) =>
      openDatabase({ databaseUrl: undefined, ...location, logger: capturedLogger(), migrations });

    const first = await open();
    expect(await createOutboxStore(first).enqueue([post], new Date('2026-11-23T10:00:00.000Z'))).toBe(1);
    await first.close();

    let runs = 0;
    const baseline = migrationProvider(engine);
    const withLater: MigrationProvider = {
      getMigrations: async () => ({
        ...(await baseline.getMigrations()),
        '0002_outbox_note': {
          up: async (db) => {
            runs += 1;
            await db.schema
              .alterTable('outbox')
              .addColumn('note', 'text', (column) => column.notNull().defaultTo('none'))
              .execute();
          },
        },
      }),
    };

    const second = await open(withLater);
    expect(runs).toBe(1);
    // The row written before is still there, with the new column's default, and reads as before.
    const rows = await second.run(
      async (kysely) =>
        (await sql<{ dedupe_key: string; note: string }>`select dedupe_key, note from outbox`.execute(kysely))
          .rows,
    );
    expect(rows).toEqual([{ dedupe_key: post.dedupeKey, note: 'none' }]);
    expect(await createOutboxStore(second).find(post.dedupeKey)).toMatchObject({
      body: post.body,
      status: 'pending',
    });
    await second.close();

    const third = await open(withLater);
    expect(runs).toBe(1);
    const applied = await third.run(
      async (kysely) =>
        (await sql<{ name: string }>`select name from kysely_migration order by name`.execute(kysely)).rows,
    );
    expect(applied.map((row) => row.name)).toEqual(['0001_baseline', '0002_outbox_note']);
    await third.close();
  });
}

describe('migrations after the baseline', () => {
  const dir = mkdtempSync(join(tmpdir(), 'order-desk-later-migration-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  laterMigrationContract('sqlite', async () => ({ dataDir: join(dir, 'data') }));

  describe.skipIf(postgresTests.skip)('PostgreSQL', () => {
    laterMigrationContract('postgres', async () => ({
      databaseUrl: await createDatabase(sharedPostgres(), 'later_migration'),
      dataDir: ':memory:',
    }));
  });
});
