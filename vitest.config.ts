import { defineConfig } from 'vitest/config';
import { prepareRunRoot } from './test/setup/temp-root.js';
import { FAST_TESTS } from './test/tiers.js';

// The run's temp root and home, in the environment before vitest writes anything of its own (its API
// token goes under XDG_DATA_HOME as it starts) or forks a worker: test/setup/temp-root.ts.
prepareRunRoot();

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Every skipped test named at the end of the run, with why (test/setup/skip-reasons.ts).
    reporters: ['default', './test/setup/skip-reasons.ts'],
    // Both cores of a 2-core CI machine: vitest's default there is one worker (cores - 1), and most
    // files wait on sockets, child processes and rate windows rather than the CPU.
    maxWorkers: 2,
    // The run's own temp root and home, removed at the end: `npm test` leaves nothing in the temp
    // directory or the home folder.
    globalSetup: ['test/setup/temp-root.ts'],
    // Children started with an environment of their own still get the run's temp root; every file's
    // stderr and its child processes' stderr are scanned for token material.
    setupFiles: ['test/setup/child-env.ts', 'test/reliability/log-scan-setup.ts'],
    // Two tiers (test/tiers.ts): `vitest run` runs both, each file once; `--project fast` the quick
    // tier alone (npm run test:fast), `--project rest` the others (npm test runs one, then the other). (No `include` above: a project's
    // would be added to it, not put in its place.)
    projects: [
      // The quick tier's files share one module graph per worker (isolate: false): loading the server's
      // modules again for each file was most of the tier's time. They run in process and leave no
      // process-wide state behind; a file that needs modules no file has used yet loads fresh copies
      // (vi.resetModules), as test/mcp/pipeline/built-schemas.test.ts does.
      { extends: true, test: { name: 'fast', include: FAST_TESTS, isolate: false } },
      // The rest's files mostly wait on child processes, sockets and scaled rate windows, leaving two
      // workers' cores half idle: a third keeps them busy. A worker count of its own needs a group of
      // its own, run after the quick tier's, as `npm test` runs them.
      {
        extends: true,
        test: { name: 'rest', include: ['test/**/*.test.ts'], exclude: FAST_TESTS, maxWorkers: 3, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
