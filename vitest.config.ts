import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Each file starts its own servers on random ports; two workers match the two cores CI has.
    pool: 'forks',
    maxWorkers: 2,
    // A worker keeps the modules it loaded for its next file: the app's import graph (Bolt, Kysely,
    // the drivers) is loaded once per worker instead of once per file (about a third of the suite's
    // time). Tests share no module state: each builds its app, servers and stores itself.
    isolate: false,
  },
});
