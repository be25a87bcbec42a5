import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Both cores of a 2-core CI machine: vitest's default there is one worker (cores - 1), and most
    // files wait on sockets, child processes and rate windows rather than the CPU.
    maxWorkers: 2,
    // The run's own temp root, removed at the end: `npm test` leaves nothing in the temp directory.
    globalSetup: ['test/setup/temp-root.ts'],
    // Children started with an environment of their own still get the run's temp root; every file's
    // stderr and its child processes' stderr are scanned for token material.
    setupFiles: ['test/setup/child-env.ts', 'test/reliability/log-scan-setup.ts'],
  },
});
