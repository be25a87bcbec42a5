// Vitest globalSetup: the whole run gets one temporary root of its own, removed when the run ends, so
// `npm test` leaves nothing in the machine's temp directory however a test or the processes it starts
// use theirs (mkdtemp folders, downloads, sign-in stores, tsx's and Node's compile caches).
//
// The root reaches every process through TMPDIR (TMP and TEMP on Windows): set here in the main
// process before any worker is forked, so each worker's os.tmpdir() is the root; children a test
// starts with an environment of its own get it from test/setup/child-env.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Prefix of a run's root in the machine's temp directory. */
export const RUN_ROOT_PREFIX = 'wcm-test-run-';

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), RUN_ROOT_PREFIX));
  for (const name of ['TMPDIR', 'TMP', 'TEMP']) process.env[name] = root;
  return () => {
    // Retries: a child killed at the end of a test may still be closing a file in there (Node writes
    // its compile cache as it exits).
    rmSync(root, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 });
  };
}
