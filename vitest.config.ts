import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Each file starts its own servers on random ports; two workers match the two cores CI has.
    pool: 'forks',
    maxWorkers: 2,
  },
});
