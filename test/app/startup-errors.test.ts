import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseStartupError, openDatabase } from '../../src/db/index.js';
import { createLogger } from '../../src/logger.js';

/**
 * Start-up errors of the SQLite file name the real cause (main.ts prints the message as it is and
 * exits). In-process: openDatabase is what start-up runs; no app is spawned.
 */
const logger = createLogger({
  level: 'silent',
  secrets: [],
  destination: new Writable({ write: (_chunk, _encoding, done) => done() }),
});

const failureOf = (dataDir: string) =>
  openDatabase({ databaseUrl: undefined, dataDir, logger }).then(
    async (db) => {
      await db.close();
      throw new Error('the database opened');
    },
    (error: unknown) => error as Error,
  );

/** Runs `work` as an unprivileged user: root writes anywhere, whatever the permissions say. */
async function unprivileged<T>(work: () => Promise<T>): Promise<T> {
  if (process.geteuid?.() !== 0) return work();
  // The drivers are loaded first, as root, so that only the file system checks change.
  await Promise.all([import('better-sqlite3'), import('kysely')]);
  process.seteuid?.('nobody');
  try {
    return await work();
  } finally {
    process.seteuid?.(0);
  }
}

describe('start-up errors of the SQLite file name the cause', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'order-desk-startup-'));
    chmodSync(root, 0o755);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('a DATA_DIR this process may not write in: said so, not as a missing file', async () => {
    const dataDir = join(root, 'read-only');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o555);
    const error = await unprivileged(() => failureOf(dataDir));
    expect(error).toBeInstanceOf(DatabaseStartupError);
    expect(error.message).toContain(`${dataDir} cannot be written by this process`);
    expect(error.message).toContain('give the user it runs as write access');
    expect(error.message).not.toMatch(/ENOENT|no such file|damaged/i);
  });

  it('a damaged file: said so, not as a matter of permissions', async () => {
    const dataDir = join(root, 'damaged');
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'order-desk.sqlite'), Buffer.alloc(8192, 'not a database '));
    const error = await failureOf(dataDir);
    expect(error).toBeInstanceOf(DatabaseStartupError);
    expect(error.message).toContain(
      'the file is damaged or is not a SQLite database (file is not a database)',
    );
    expect(error.message).toContain('restore it from a backup');
    expect(error.message).not.toMatch(/permission/i);
  });
});
