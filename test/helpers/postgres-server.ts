import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { freePort } from './free-port.js';

/**
 * The directory holding Debian's PostgreSQL server binaries (`initdb`, `postgres`), the highest
 * major version under /usr/lib/postgresql/<major>/bin, or undefined when none is installed.
 */
export function postgresServerBin(): string | undefined {
  let majors: string[];
  try {
    majors = readdirSync('/usr/lib/postgresql').filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  majors.sort((a, b) => Number(b) - Number(a));
  for (const major of majors) {
    const bin = join('/usr/lib/postgresql', major, 'bin');
    if (!existsSync(join(bin, 'initdb'))) continue;
    try {
      // `postgres --version` answers before the server's refusal to run as root.
      execFileSync(join(bin, 'postgres'), ['--version'], { stdio: 'ignore' });
      return bin;
    } catch {
      // try the next one
    }
  }
  return undefined;
}

/**
 * Tests that need PostgreSQL run when the server is installed. Without it they are skipped with a
 * message, except under CI=true, where a missing server must fail the run (.ci/run installs it).
 */
export const postgresTests = (() => {
  const bin = postgresServerBin();
  if (!bin && process.env.CI !== 'true') {
    console.warn(
      'PostgreSQL is not installed: the PostgreSQL tests are skipped (apt-get install postgresql).',
    );
  }
  return { bin, skip: !bin && process.env.CI !== 'true' };
})();

export interface PostgresServer {
  /** postgres://postgres@127.0.0.1:PORT/postgres (user postgres, trust authentication). */
  url: string;
  port: number;
  /** The temporary directory (data directory in `data/`, the Unix socket beside it). */
  dir: string;
  /** Stops the server as a crash would (immediate shutdown, no checkpoint); the data directory stays. */
  stop(): Promise<void>;
  /** Starts it again on the same port with the same data directory (after crash recovery). */
  start(): Promise<void>;
  /** Stops it for good and removes its temporary directory. */
  destroy(): Promise<void>;
}

const READY_TIMEOUT_MS = 15_000;

/** initdb and postgres refuse to run as root: as root they run as the `postgres` OS user. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    if (Number.isInteger(uid) && Number.isInteger(gid)) return { uid, gid };
  } catch {
    // reported below
  }
  throw new Error(
    'running as root, but there is no `postgres` OS user to run initdb and postgres as ' +
      '(Debian’s postgresql package creates it)',
  );
}

function run(
  file: string,
  args: string[],
  options: { uid?: number; gid?: number; cwd?: string; timeout?: number } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      {
        ...options,
        encoding: 'utf8',
        timeout: options.timeout ?? 30_000,
        env: { ...process.env, PGCONNECT_TIMEOUT: '5' },
      },
      (error, stdout, stderr) => {
        if (!error) return resolve({ code: 0, stdout, stderr });
        if (typeof error.code === 'number') return resolve({ code: error.code, stdout, stderr });
        reject(error);
      },
    );
  });
}

function psqlPath(): string {
  const bin = postgresTests.bin;
  return bin && existsSync(join(bin, 'psql')) ? join(bin, 'psql') : 'psql';
}

/** Runs SQL with psql against a database URL; returns the unaligned, tuples-only output, trimmed. */
export async function psql(url: string, sql: string): Promise<string> {
  const result = await run(psqlPath(), [
    '-X',
    '-q',
    '-A',
    '-t',
    '-v',
    'ON_ERROR_STOP=1',
    '-d',
    url,
    '-c',
    sql,
  ]);
  if (result.code !== 0) throw new Error(`psql failed (${result.code}): ${result.stderr.trim()}`);
  return result.stdout.trim();
}

/**
 * Creates an empty database on the server and returns its URL. The name gets a random suffix, so
 * files sharing the run's server (`sharedPostgres`) never ask for the same one.
 */
export async function createDatabase(server: SharedPostgres, name: string): Promise<string> {
  if (!/^[a-z_][a-z0-9_]{0,40}$/.test(name)) throw new Error(`not a plain database name: ${name}`);
  const unique = `${name}_${randomBytes(6).toString('hex')}`;
  await psql(server.url, `CREATE DATABASE "${unique}"`);
  const url = new URL(server.url);
  url.pathname = `/${unique}`;
  return url.toString();
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's shared PostgreSQL server (test/global-setup.ts), or '' when none is installed. */
    postgresUrl: string;
  }
}

/**
 * The PostgreSQL server the whole run shares (started once by test/global-setup.ts), for files that
 * only need databases of their own (`createDatabase`). A file that stops or kills its server starts
 * its own with `startPostgresServer`.
 */
export type SharedPostgres = Pick<PostgresServer, 'url'>;

export function sharedPostgres(): SharedPostgres {
  const url = inject('postgresUrl');
  if (!url)
    throw new Error('no shared PostgreSQL server: test/global-setup.ts starts one when it is installed');
  return { url };
}

/**
 * A real PostgreSQL server on a random loopback port, in a temporary directory, tuned for tests
 * (no fsync). As root, initdb and postgres run as the `postgres` OS user, which owns the directory.
 */
export async function startPostgresServer(
  options: {
    maxConnections?: number;
    /** The server's CPU priority (nice), inherited by each connection's process; else the caller's. */
    priority?: number;
  } = {},
): Promise<PostgresServer> {
  const bin = postgresTests.bin;
  if (!bin) throw new Error('PostgreSQL is not installed; .ci/run installs it (apt-get install postgresql)');
  const user = serverUser();
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'order-desk-postgres-'));
  const data = join(dir, 'data');
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let child: ChildProcess | undefined;
  let output = '';
  const tail = () => output.slice(-2_000).trim();
  // A test process that ends without destroy() must not leave a server running.
  const onExit = () => child?.kill('SIGQUIT');

  try {
    if (user) chownSync(dir, user.uid, user.gid);
    const initdb = await run(
      join(bin, 'initdb'),
      ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-locale', '--no-sync'],
      { ...user, cwd: dir },
    );
    if (initdb.code !== 0)
      throw new Error(`initdb failed (${initdb.code}): ${(initdb.stderr || initdb.stdout).slice(-2_000)}`);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  /**
   * Resolves when the server logs that it accepts connections (the event PostgreSQL gives: it says so
   * once its startup or crash recovery is done); rejects if it exits first or stays silent too long.
   */
  function ready(server: ChildProcess): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const done = (error?: Error) => {
        clearTimeout(timer);
        server.stdout?.off('data', check);
        server.stderr?.off('data', check);
        server.off('exit', exited);
        if (error) reject(error);
        else resolve();
      };
      // `output` is appended by the collector registered first, so it already holds this chunk.
      const check = () => {
        if (output.includes('database system is ready to accept connections')) done();
      };
      const exited = (code: number | null, signal: string | null) =>
        done(new Error(`postgres exited (${code ?? signal}): ${tail()}`));
      const timer = setTimeout(
        () =>
          done(new Error(`postgres was not ready on port ${port} after ${READY_TIMEOUT_MS} ms: ${tail()}`)),
        READY_TIMEOUT_MS,
      );
      server.stdout?.on('data', check);
      server.stderr?.on('data', check);
      server.once('exit', exited);
      check();
    });
  }

  async function start() {
    if (child) return;
    output = '';
    // No synchronous_commit=off: with it a commit sits in shared WAL buffers for up to ~600 ms, and
    // stop() (an immediate shutdown) loses it, so a crash test would see committed rows vanish.
    // With fsync=off, a synchronous commit costs one write() and no fsync.
    const server = spawn(
      join(bin as string, 'postgres'),
      [
        '-D',
        data,
        '-p',
        String(port),
        '-k',
        dir,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'fsync=off',
        '-c',
        'full_page_writes=off',
        '-c',
        `max_connections=${options.maxConnections ?? 100}`,
      ],
      { ...user, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = server;
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-8_000);
    };
    server.stdout?.on('data', collect);
    server.stderr?.on('data', collect);
    server.once('error', (error) => {
      output += `\n${error.message}`;
    });
    process.once('exit', onExit);
    // At once, before any connection's process is forked from it, so that each inherits it. Only a
    // scheduling preference: a server that has already exited is reported by ready() below.
    if (options.priority !== undefined && server.pid !== undefined) {
      try {
        setPriority(server.pid, options.priority);
      } catch {
        // exited already
      }
    }
    try {
      await ready(server);
    } catch (error) {
      await stop();
      throw error;
    }
  }

  async function stop() {
    const running = child;
    child = undefined;
    process.off('exit', onExit);
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    // SIGQUIT is PostgreSQL's immediate shutdown: children are killed, nothing is checkpointed, and
    // the next start runs crash recovery. (SIGKILL would orphan the backends and block a restart.)
    running.kill('SIGQUIT');
    const timer = setTimeout(() => running.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }

  try {
    await start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url,
    port,
    dir,
    stop,
    start,
    async destroy() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
