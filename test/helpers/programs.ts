// Real programs the tests run (redis-server, caddy) and the loopback ports they listen on.
import { accessSync, constants } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';

/**
 * The executable `name` on PATH or in the system folders. A machine without it fails the test that
 * asked for it with `missing` (how to install it; .ci/run does), never skips it.
 */
export function findProgram(name: string, missing: string): string {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/usr/sbin', '/usr/local/bin'];
  for (const dir of dirs) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new Error(missing);
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
