import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';
import { BUILT_APP_DIR } from './helpers/app-process.js';
import { postgresTests, startPostgresServer } from './helpers/postgres-server.js';

/**
 * Once per run, side by side:
 * - the app compiled to JavaScript as `npm run build` does (without its type check, which
 *   `npm run typecheck` does), for the tests that run the entry point as a process: starting compiled
 *   JavaScript takes about half the time of starting the TypeScript through tsx;
 * - one PostgreSQL server that the files needing only databases of their own share
 *   (`sharedPostgres()`): an initdb and a start cost about a second of both cores each, once instead of
 *   once per file. Files that stop or kill their server still start their own.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [built, started] = await Promise.allSettled([
    buildApp(),
    // Several files at once, each with pools of up to 10 connections per app.
    postgresTests.bin ? startPostgresServer({ maxConnections: 400 }) : Promise.resolve(undefined),
  ]);
  const postgres = started.status === 'fulfilled' ? started.value : undefined;
  // Either failing fails the run: the other's server and directory go first.
  if (built.status === 'rejected' || started.status === 'rejected') {
    await postgres?.destroy();
    throw built.status === 'rejected' ? built.reason : (started as PromiseRejectedResult).reason;
  }
  project.provide('postgresUrl', postgres?.url ?? '');
  return async () => {
    await postgres?.destroy();
  };
}

async function buildApp(): Promise<void> {
  const tsc = fileURLToPath(new URL('../node_modules/.bin/tsc', import.meta.url));
  try {
    await promisify(execFile)(
      tsc,
      ['-p', 'tsconfig.build.json', '--noCheck', '--sourceMap', 'false', '--outDir', BUILT_APP_DIR],
      { cwd: fileURLToPath(new URL('..', import.meta.url)) },
    );
  } catch (error) {
    // tsc reports on stdout.
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`compiling the app for the tests failed:\n${stdout}${stderr}`);
  }
}
