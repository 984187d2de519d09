import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import type { Kysely } from 'kysely';
import type { AppLogger } from '../logger.js';
import type { Database } from './schema.js';

/** What /healthz, /readyz and the metrics say of the database. */
export interface DatabaseHealth {
  /** It answers (false: PostgreSQL unreachable). */
  up: boolean;
  /** It answers, no write failed for the storage's sake since the last probe, the SQLite file is the same. */
  writable: boolean;
  /** Why not, one sentence for an operator; null when all is well. */
  problem: string | null;
}

// A failed write is checked again at most this often (by /readyz, or started by /healthz).
const PROBE_EVERY_MS = 1_000;

/**
 * A failure of the storage, not the query: SQLite's full disk, I/O errors, a read-only or damaged file;
 * PostgreSQL's insufficient resources (53xxx), a read-only server (25006), an I/O error (58030).
 */
export function isStorageFailure(error: unknown): boolean {
  const code = String((error as { code?: unknown } | undefined)?.code ?? '');
  return (
    /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|CORRUPT|NOTADB)/.test(code) ||
    /^53/.test(code) ||
    code === '25006' ||
    code === '58030'
  );
}

/**
 * Keeps whether the database can be written: a write failing for the storage's sake marks it not (logged
 * once); a probe write (a table created and dropped: a new page, and a commit) marks it writable again.
 */
export function writeHealth(options: {
  kysely: Kysely<Database>;
  where: string;
  log: AppLogger;
  /** The SQLite file's trouble (deleted or replaced while running), if any. */
  fileProblem: (() => string | undefined) | undefined;
}) {
  const { kysely, where, log } = options;
  let failure: string | undefined;
  let probing: Promise<void> | undefined;
  let probedAt = Number.NEGATIVE_INFINITY;

  const failed = (error: unknown) => {
    if (!isStorageFailure(error)) return;
    const message = (error as Error).message;
    if (failure === undefined)
      log.error(
        { where, code: (error as { code?: unknown }).code, error: message },
        'database cannot be written: lookups go on, what must be stored is not (see /readyz)',
      );
    failure = message;
  };

  const probe = (): Promise<void> => {
    if (failure === undefined || Date.now() - probedAt < PROBE_EVERY_MS) return probing ?? Promise.resolve();
    probedAt = Date.now();
    // A name of its own: replicas on one PostgreSQL may probe at once.
    const probeTable = `order_desk_write_probe_${randomBytes(6).toString('hex')}`;
    probing ??= kysely
      .transaction()
      .execute(async (trx) => {
        await trx.schema.createTable(probeTable).addColumn('x', 'integer').execute();
        await trx.schema.dropTable(probeTable).execute();
      })
      .then(
        () => {
          log.info({ where }, 'database can be written again');
          failure = undefined;
        },
        (error: unknown) => failed(error),
      )
      .finally(() => {
        probing = undefined;
      });
    return probing;
  };

  const health = (up: boolean): DatabaseHealth => {
    const problem = !up
      ? 'the database is unreachable'
      : (options.fileProblem?.() ??
        (failure === undefined ? null : `the database cannot be written: ${failure}`));
    return { up, writable: problem === null, problem };
  };

  return {
    failed,
    /** The state as last seen; a probe that is due starts, unawaited. */
    health(up: boolean): DatabaseHealth {
      void probe();
      return health(up);
    },
    /** The state after the probe that is due. */
    async check(up: boolean): Promise<DatabaseHealth> {
      await probe();
      return health(up);
    },
  };
}

/**
 * Notices (logged once) the SQLite file deleted or replaced while Order Desk runs, by its device and
 * inode: SQLite goes on writing to a deleted file without an error, all lost at the next start.
 */
export function watchSqliteFile(path: string, log?: AppLogger): () => string | undefined {
  const opened = statSync(path);
  let problem: string | undefined;
  return () => {
    if (problem) return problem;
    const now = statSync(path, { throwIfNoEntry: false });
    if (now && now.ino === opened.ino && now.dev === opened.dev) return undefined;
    problem = `the SQLite file ${path} was ${now ? 'replaced' : 'deleted'} while Order Desk runs: what it writes now is lost at the next start. Stop Order Desk before deleting or restoring its data`;
    log?.error({ path }, problem);
    return problem;
  };
}
