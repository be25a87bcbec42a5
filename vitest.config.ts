import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The run's own temp root, removed at the end: `npm test` leaves nothing in the temp directory.
    globalSetup: ['test/setup/temp-root.ts'],
    // Children started with an environment of their own still get the run's temp root; every file's
    // stderr and its child processes' stderr are scanned for token material.
    setupFiles: ['test/setup/child-env.ts', 'test/reliability/log-scan-setup.ts'],
  },
});
