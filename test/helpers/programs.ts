// Real programs the tests run (redis-server, caddy) and the loopback ports they listen on.
import { createServer } from 'node:net';
import { findProgram as find } from '../../scripts/test-deps.mjs';

/**
 * The executable `name` on PATH or in the system folders, found as `npm test` finds it before the run
 * (scripts/test-deps.mjs, which installs it when missing). A machine without it fails the test that
 * asked for it with `missing` (how to install it), never skips it.
 */
export function findProgram(name: string, missing: string): string {
  const found = find(name);
  if (!found) throw new Error(missing);
  return found;
}

/** A free loopback port, found by binding one. Another process may take it before the program binds it: callers retry. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}
