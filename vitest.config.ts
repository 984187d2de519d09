import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/sequencer.js';

// The two files that fire hundreds of commands at once and assert every ack within Slack's 3 s:
// they run last, beside each other only, so another file's load does not eat into their 3 s.
const BURSTS = ['test/reliability/burst.test.ts', 'test/reliability/partner-faults.test.ts'];

const shared = {
  testTimeout: 20_000,
  hookTimeout: 20_000,
  // Each file starts its own servers on random ports.
  pool: 'forks' as const,
  // A worker keeps the modules it loaded for its next file: the app's import graph (Bolt, Kysely,
  // the drivers) is loaded once per worker instead of once per file (about a third of the suite's
  // time). Tests share no module state: each builds its app, servers and stores itself.
  isolate: false,
};

export default defineConfig({
  test: {
    // The app compiled once, for the tests that start it as a process (test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
    // Transformed files kept on disk (node_modules/.experimental-vitest-cache): the bursts project
    // below reads what the suite project transformed instead of transforming the app again, which
    // shortens the pause between the two groups from 3.8-4.1 s to 2.3-2.5 s.
    experimental: { fsModuleCache: true },
    // The longest files first, also on a fresh clone (test/sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        test: {
          ...shared,
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: BURSTS,
          // Four workers on two cores: much of a file's time is spent waiting (servers, child
          // processes, Slack's and the partner's answers, real rate windows), and with three the
          // cores were idle a quarter of the time in the middle of the run.
          maxWorkers: 4,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...shared,
          name: 'bursts',
          include: BURSTS,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
