import type { TestProject } from 'vitest/node';
import { buildApp } from '../scripts/build.js';
import { BUILT_APP_DIR } from './helpers/app-process.js';
import { postgresTests, startPostgresServer } from './helpers/postgres-server.js';

/**
 * Once per run, side by side:
 * - the app compiled to JavaScript as `npm run build` does (scripts/build.ts), for the tests that
 *   run the entry point as a process: starting compiled JavaScript takes about half the time of
 *   starting the TypeScript through tsx;
 * - one PostgreSQL server that the files needing only databases of their own share
 *   (`sharedPostgres()`): an initdb and a start cost about a second of both cores each, once instead of
 *   once per file. Files that stop or kill their server still start their own.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [built, started] = await Promise.allSettled([
    buildApp(BUILT_APP_DIR, { sourcemap: false }),
    // Several files at once, each with pools of up to 10 connections per app. It serves the files
    // that run at the background priority (test/background-priority.ts), so it runs at it too.
    postgresTests.bin
      ? startPostgresServer({ maxConnections: 400, priority: 19 })
      : Promise.resolve(undefined),
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
