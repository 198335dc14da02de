import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.spec.ts', 'packages/*/test/**/*.spec.ts'],
    globalSetup: ['test/support/globalSetup.ts'],
    reporters: ['default', './test/support/summaryLineReporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Each file gets its own database; two cores on CI.
    maxWorkers: 2,
    fileParallelism: true,
  },
});
