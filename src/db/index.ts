import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Compilable, CompiledQuery, DatabaseConnection, Kysely, MigrationProvider } from 'kysely';
import type { AppLogger } from '../logger.js';
import { describeUrl } from '../text/describe-url.js';
import { type DatabaseHealth, isStorageFailure, watchSqliteFile, writeHealth } from './health.js';
import { type Engine, migrationProvider } from './migrations.js';
import type { Database } from './schema.js';
import { cachedPrepare } from './statement-cache.js';

export type { DatabaseHealth } from './health.js';
export type { Engine } from './migrations.js';
export type { Database } from './schema.js';

/** The database Order Desk keeps: SQLite in DATA_DIR by default, PostgreSQL with DATABASE_URL. */
export interface OrderDeskDb {
  readonly engine: Engine;
  /** False after a query failed because the database could not be reached, until one succeeds. */
  isUp(): boolean;
  /** Whether it can be written, and why not, for /healthz and the metrics: never waits. */
  health(): DatabaseHealth;
  /** The same, after a probe write if a write failed (at most once a second): for /readyz. */
  checkHealth(): Promise<DatabaseHealth>;
  /** Runs `query`, keeping isUp() current; rethrows. */
  run<T>(query: (db: Kysely<Database>) => Promise<T>): Promise<T>;
  /** A Kysely read whose rows come as arrays (select order): for the CSV export's 100k rows, far cheaper. */
  arrayRows(query: (db: Kysely<Database>) => Compilable): Promise<unknown[][]>;
  close(): Promise<void>;
}

export class DatabaseStartupError extends Error {
  override readonly name = 'DatabaseStartupError';
}

// Prepared SQLite statements kept for reuse, per cache (Kysely's, and the array reads').
const STATEMENT_CACHE_SIZE = 200;
// SQLite maps up to this much of its file (the whole file, for a few million orders).
const MMAP_BYTES = 1 << 30;

const OPENING: DatabaseHealth = {
  up: true,
  writable: false,
  problem: 'the database is being opened (its migrations may be running)',
};

// One lock ID for Order Desk's migrations: replicas starting together apply them one at a time.
const MIGRATION_LOCK_ID = 7_160_240_901;

type OpenOptions = { databaseUrl: string | undefined; dataDir: string; logger: AppLogger };

/**
 * The database, opened by the first query or `open()` (after the app listens: start-up does not wait
 * for the drivers and the migrations). A failed opening rejects `open()`: start-up's one-line exit.
 */
export function databaseOpenedLater(options: OpenOptions): OrderDeskDb & { open(): Promise<OrderDeskDb> } {
  let opening: Promise<OrderDeskDb> | undefined;
  let opened: OrderDeskDb | undefined;
  const open = () => {
    opening ??= openDatabase(options).then((db) => {
      opened = db;
      return db;
    });
    return opening;
  };
  return {
    engine: options.databaseUrl ? 'postgres' : 'sqlite',
    // Not open yet counts as up: the first query opens it.
    isUp: () => opened?.isUp() ?? true,
    // Not ready while it opens: the migrations may still run (a rolling deploy waits for them).
    health: () => opened?.health() ?? OPENING,
    checkHealth: async () => opened?.checkHealth() ?? OPENING,
    run: async (query) => (await open()).run(query),
    arrayRows: async (query) => (await open()).arrayRows(query),
    open,
    close: async () => (await opening?.catch(() => undefined))?.close(),
  };
}

/** Opens the database and migrates it, loading only the engine's driver (SQLite never loads `pg`). */
export async function openDatabase(
  options: OpenOptions & {
    /** The schema's migrations; tests pass the real ones plus a later one, to run the runner on it. */
    migrations?: MigrationProvider;
  },
): Promise<OrderDeskDb> {
  const log = options.logger.child({ component: 'database' });
  const provider = options.migrations ?? migrationProvider(options.databaseUrl ? 'postgres' : 'sqlite');
  if (options.databaseUrl) return openPostgres(options.databaseUrl, log, provider);
  return openSqlite(options.dataDir, log, provider);
}

async function openSqlite(dataDir: string, log: AppLogger, provider: MigrationProvider) {
  const [{ default: SQLite }, { Kysely, SqliteDialect, SqliteDriver }] = await Promise.all([
    import('better-sqlite3'),
    import('kysely'),
  ]);
  const path = dataDir === ':memory:' ? ':memory:' : join(dataDir, 'order-desk.sqlite');
  let database: InstanceType<typeof SQLite>;
  try {
    if (path !== ':memory:') mkdirSync(dataDir, { recursive: true });
    database = new SQLite(path);
    // WAL, NORMAL and a memory map: see docs/operations.md, "The database" (a mapped read is faster;
    // a disk failing under it ends the process). NORMAL said here: the file's creator stays at FULL.
    database.pragma('journal_mode = WAL');
    database.pragma('synchronous = NORMAL');
    database.pragma('busy_timeout = 5000');
    database.pragma(`mmap_size = ${MMAP_BYTES}`);
  } catch (error) {
    throw new DatabaseStartupError(sqliteOpenFailure(error, dataDir, path));
  }
  const prepare = cachedPrepare((sql) => database.prepare(sql), STATEMENT_CACHE_SIZE);
  const opened = database;
  // SQLite itself rolls back a transaction a full disk or I/O error broke; Kysely's ROLLBACK would then
  // fail ("no transaction is active") and replace the real error.
  class Driver extends SqliteDriver {
    override async rollbackTransaction(connection: DatabaseConnection) {
      if (opened.inTransaction) await super.rollbackTransaction(connection);
    }
  }
  const config = { database: { prepare, close: () => opened.close() } };
  class Dialect extends SqliteDialect {
    override createDriver() {
      return new Driver(config);
    }
  }
  const kysely = new Kysely<Database>({ dialect: new Dialect(config) });
  try {
    await migrate(kysely, provider);
  } catch (error) {
    await kysely.destroy().catch(() => undefined);
    throw error instanceof DatabaseStartupError && isStorageFailure(error.cause)
      ? new DatabaseStartupError(sqliteOpenFailure(error.cause, dataDir, path))
      : error;
  }
  log.info({ engine: 'sqlite', path }, 'database ready');
  // Statements of their own (better-sqlite3 sets the array shape on the statement), run holding
  // Kysely's one connection: never in the middle of another query's transaction.
  const arrays = cachedPrepare((sql) => database.prepare(sql).raw(true), STATEMENT_CACHE_SIZE);
  const prepared = (query: CompiledQuery) =>
    kysely.connection().execute(async () => arrays(query.sql).all(...query.parameters) as unknown[][]);
  const fileProblem = path === ':memory:' ? undefined : watchSqliteFile(path, log);
  return wrap('sqlite', kysely, path, log, prepared, fileProblem);
}

/** Why the SQLite file could not be opened, naming the cause (better-sqlite3 says only "unable to open"). */
function sqliteOpenFailure(error: unknown, dataDir: string, path: string): string {
  const code = String((error as { code?: unknown }).code ?? '');
  const message = (error as Error).message;
  const where = `Order Desk could not open its SQLite file ${path} (DATA_DIR)`;
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT'))
    return `${where}: the file is damaged or is not a SQLite database (${message}). Stop Order Desk, move the file aside and restore it from a backup; started without it, Order Desk creates an empty one (the audit trail and the order copy in the old file are then not used).`;
  if (['EACCES', 'EPERM', 'EROFS', 'SQLITE_CANTOPEN'].includes(code) || code.startsWith('SQLITE_READONLY'))
    return `${where}: ${dataDir} cannot be written by this process (${code}: ${message}). Order Desk writes the file and its -wal and -shm files there: give the user it runs as write access to ${dataDir} and the file, or set DATA_DIR to a writable persistent disk.`;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC')
    return `${where}: the disk is full (${message}). Free space on the disk of ${dataDir}.`;
  if (code === 'ENOTDIR' || code === 'EEXIST')
    return `${where}: ${dataDir} is not a directory (${code}). Set DATA_DIR to a directory.`;
  return `${where}: ${message}${code ? ` (${code})` : ''}.`;
}

async function openPostgres(url: string, log: AppLogger, provider: MigrationProvider): Promise<OrderDeskDb> {
  const [{ default: pg }, { Kysely, PostgresDialect, sql }] = await Promise.all([
    import('pg'),
    import('kysely'),
  ]);
  const where = describeUrl(url, 'DATABASE_URL');
  const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 5_000 });
  // An idle client that loses its server emits here; without a listener it would end the process.
  pool.on('error', (error) => log.warn({ error: error.message }, 'PostgreSQL connection lost'));
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  try {
    await sql`select 1`.execute(kysely);
  } catch (error) {
    await kysely.destroy().catch(() => undefined);
    throw new DatabaseStartupError(
      `Order Desk could not reach PostgreSQL at ${where} (DATABASE_URL): ${(error as Error).message || 'no answer'}. Start it, fix DATABASE_URL, or unset it to use a SQLite file in DATA_DIR.`,
    );
  }
  // Session-level advisory lock on one connection: replicas starting together migrate in turn.
  await kysely.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_ID})`.execute(connection);
    try {
      await migrate(connection, provider);
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`.execute(connection);
    }
  });
  log.info({ engine: 'postgres', where }, 'database ready');
  // A named statement is parsed and planned once per connection, then only bound and run.
  const prepared = async (query: CompiledQuery) => {
    const name = `order_desk_${createHash('sha1').update(query.sql).digest('hex').slice(0, 16)}`;
    const config = { name, text: query.sql, values: [...query.parameters], rowMode: 'array' as const };
    return (await pool.query<unknown[]>(config)).rows;
  };
  return wrap('postgres', kysely, where, log, prepared, undefined);
}

async function migrate(db: Kysely<Database>, provider: MigrationProvider): Promise<void> {
  const { Migrator } = await import('kysely');
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName;
    // Kysely refuses a database with migrations this build lacks: pre-release ones, now in 0001_baseline.
    if (/previously executed migration .* is missing/.test((error as Error).message))
      throw new DatabaseStartupError(
        'the database was made by a pre-release build of Order Desk, whose schema steps were since folded into one: ' +
          'start with a new database (see docs/operations.md, "Upgrades")',
        { cause: error },
      );
    throw new DatabaseStartupError(
      `Order Desk could not bring its database up to date${failed ? ` (migration ${failed})` : ''}: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

function wrap(
  engine: Engine,
  kysely: Kysely<Database>,
  where: string,
  log: AppLogger,
  prepared: (query: CompiledQuery) => Promise<unknown[][]>,
  fileProblem: (() => string | undefined) | undefined,
): OrderDeskDb {
  let up = true;
  const writes = writeHealth({ kysely, where, log, fileProblem });
  const reached = () => {
    if (!up) log.info({ where }, 'database reachable again');
    up = true;
  };
  async function run<T>(query: (db: Kysely<Database>) => Promise<T>): Promise<T> {
    try {
      const result = await query(kysely);
      reached();
      return result;
    } catch (error) {
      if (isConnectionFailure(error)) {
        if (up)
          log.warn(
            { where, error: (error as Error).message },
            'database unreachable; features that need it say so',
          );
        up = false;
      } else {
        // The database's own refusal (a SQLSTATE, or SQLite's code) is an answer: it is reachable.
        if (isDatabaseAnswer(error)) reached();
        writes.failed(error);
      }
      throw error;
    }
  }
  return {
    engine,
    isUp: () => up,
    health: () => writes.health(up),
    checkHealth: () => writes.check(up),
    run,
    arrayRows: (query) => run((db) => prepared(query(db).compile())),
    close: () => kysely.destroy(),
  };
}

/** An error the database itself answered with: PostgreSQL's five-character SQLSTATE, or SQLite's code. */
function isDatabaseAnswer(error: unknown): boolean {
  const code = String((error as { code?: unknown } | undefined)?.code ?? '');
  return /^[0-9A-Z]{5}$/.test(code) || code.startsWith('SQLITE_');
}

/** A failure to reach the server (not a bad query): node-postgres network codes, or a closed pool. */
function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: string }).code ?? '';
  const message = (error as Error).message ?? '';
  return (
    /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|57P01|57P02|57P03|08001|08003|08006)$/.test(code) ||
    /Connection terminated|timeout exceeded when trying to connect|connect ECONNREFUSED/i.test(message)
  );
}
