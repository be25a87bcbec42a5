import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Every file's stderr and its child processes' stderr are scanned for token material.
    setupFiles: ['test/reliability/log-scan-setup.ts'],
  },
});
