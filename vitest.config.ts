import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/sequencer.js';

// The two files that fire hundreds of commands at once: every one must be acked within Slack's 3 s
// (Bolt itself answers 404 past it), so they get the CPU first (test/background-priority.ts). How
// fast the acks come is measured by `npm run bench`; these assert only that none is missed.
const BURSTS = ['test/reliability/burst.test.ts', 'test/reliability/partner-faults.test.ts'];

const shared = {
  // Bounds only a hang reaches: a test asserts behaviour, not speed (docs/development.md), and on a
  // busy 2-core machine a test that needs a few seconds of CPU may take several times as long.
  testTimeout: 60_000,
  hookTimeout: 60_000,
  // Each file starts its own servers on random ports.
  pool: 'forks' as const,
  // A worker keeps the modules it loaded for its next file: the app's import graph (Bolt, Kysely,
  // the drivers) is loaded once per worker instead of once per file (about a third of the suite's
  // time). Tests share no module state: each builds its app, servers and stores itself.
  isolate: false,
  // Four workers on two cores, shared by both projects: much of a file's time is spent waiting
  // (servers, child processes, Slack's and the partner's answers, real rate windows); with three the
  // cores were idle a quarter of the time, and a fifth cost more than it filled.
  maxWorkers: 4,
  sequence: { groupOrder: 0 },
};

export default defineConfig({
  test: {
    // The app built once, for the tests that start it as a process, and one PostgreSQL server for
    // the files that only need a database (test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
    // Each project has its own Vite server: with the transformed files kept on disk
    // (node_modules/.experimental-vitest-cache), one reads what the other transformed.
    experimental: { fsModuleCache: true },
    // The bursts first, then the longest files, also on a fresh clone (test/sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        test: {
          ...shared,
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: BURSTS,
          // The rest of the suite runs beside the bursts at the lowest CPU priority, its servers and
          // child processes too (test/background-priority.ts): the bursts' acks get the CPU they need
          // (measured at 0.4-1.3 s), and the rest gets all the time in between.
          setupFiles: ['test/background-priority.ts'],
        },
      },
      {
        test: { ...shared, name: 'bursts', include: BURSTS },
      },
    ],
  },
});
