import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Most of the suite waits (child processes, sockets, timeouts) rather than computes: three test
    // files at a time on a two-core machine, where vitest's default (cores - 1) runs one. On a slow
    // two-core machine the whole suite took 557 s with two and 452 s with three (CI's 15 minutes).
    maxWorkers: 3,
    projects: [
      { test: { name: 'unit', include: ['src/**/*.test.ts', 'bench/**/*.test.ts', 'examples/**/*.test.ts', 'scripts/**/*.test.ts'], testTimeout: 15_000 } },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          // The process tests run what `npm start` runs: the bundle, built once per run.
          globalSetup: ['test/_build.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
    ],
  },
});
