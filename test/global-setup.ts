import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildApp } from '../scripts/build.js';
import { BUILT_APPS_DIR } from './helpers/app-process.js';
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
  // A directory for this run's build: another run at the same time (a file run during `npm test`)
  // builds into its own.
  const appDir = join(BUILT_APPS_DIR, `run-${randomBytes(6).toString('hex')}`);
  const removeApp = () => rmSync(appDir, { recursive: true, force: true });
  const [built, started] = await Promise.allSettled([
    buildApp(appDir, { sourcemap: false }),
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
    removeApp();
    throw built.status === 'rejected' ? built.reason : (started as PromiseRejectedResult).reason;
  }
  project.provide('postgresUrl', postgres?.url ?? '');
  project.provide('builtAppDir', appDir);
  return async () => {
    await postgres?.destroy();
    removeApp();
  };
}
