import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OrderDeskDb, openDatabase } from '../../src/db/index.js';
import { createLinkSigningKey } from '../../src/reveal/link-key.js';
import { capturedLogger } from '../helpers/captured-logger.js';
import {
  createDatabase,
  postgresTests,
  type SharedPostgres,
  sharedPostgres,
} from '../helpers/postgres-server.js';

// The reveal links' signing key, without KEY_LINK_SECRET: made once, kept in the database, the same
// for every replica and after a restart; never taken from a setting that is not KEY_LINK_SECRET.

const now = () => new Date('2026-11-27T08:00:00Z');
const keyOf = (db: OrderDeskDb) => createLinkSigningKey({ configured: undefined, db, now }).get();

/**
 * One contract for every engine: key holders starting together (replicas on PostgreSQL; on SQLite,
 * which serves one process, holders in that process) agree on one key, and a restart keeps it.
 */
function linkKeyContract(name: string, open: () => Promise<OrderDeskDb>, replicas: number) {
  describe(`the link signing key: ${name}`, () => {
    it('holders starting together make one key between them, 32 random bytes; a restart keeps it', async () => {
      const databases = await Promise.all(Array.from({ length: replicas }, open));
      const holders = [0, 1, 2].map((i) => databases[i % databases.length] as OrderDeskDb);
      const keys = await Promise.all(holders.map(keyOf));
      expect(keys[0]).toHaveLength(32);
      for (const key of keys) expect(key.equals(keys[0] as Buffer)).toBe(true);
      await Promise.all(databases.map((db) => db.close()));
      const restarted = await open();
      expect((await keyOf(restarted)).equals(keys[0] as Buffer)).toBe(true);
      await restarted.close();
    });
  });
}

describe('SQLite in DATA_DIR', () => {
  const dir = mkdtempSync(join(tmpdir(), 'order-desk-link-key-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  linkKeyContract(
    'SQLite file',
    () => openDatabase({ databaseUrl: undefined, dataDir: join(dir, 'data'), logger: capturedLogger() }),
    1,
  );

  it('another deployment (another database) gets another key', async () => {
    const one = await openDatabase({ databaseUrl: undefined, dataDir: ':memory:', logger: capturedLogger() });
    const two = await openDatabase({ databaseUrl: undefined, dataDir: ':memory:', logger: capturedLogger() });
    expect((await keyOf(one)).equals(await keyOf(two))).toBe(false);
    await Promise.all([one.close(), two.close()]);
  });

  it('KEY_LINK_SECRET, when set, is the key and nothing is stored', async () => {
    const db = await openDatabase({ databaseUrl: undefined, dataDir: ':memory:', logger: capturedLogger() });
    const secret = 'a-link-secret-of-at-least-32-characters';
    const key = await createLinkSigningKey({ configured: secret, db, now }).get();
    expect(key.equals(Buffer.from(secret))).toBe(true);
    const rows = await db.run((kysely) => kysely.selectFrom('app_secrets').selectAll().execute());
    expect(rows).toEqual([]);
    await db.close();
  });
});

describe.skipIf(postgresTests.skip)('PostgreSQL', () => {
  let server: SharedPostgres;
  let url: string;
  beforeAll(async () => {
    server = sharedPostgres();
    url = await createDatabase(server, 'link_key');
  });
  linkKeyContract(
    'PostgreSQL',
    () => openDatabase({ databaseUrl: url, dataDir: ':memory:', logger: capturedLogger() }),
    3,
  );
});
