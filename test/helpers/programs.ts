// Real programs the tests run (redis-server, caddy, haproxy, chromium) and the loopback ports they
// listen on. Every program is found by the one helper `npm test` finds them with before the run
// (scripts/test-deps.mjs): by name, on PATH, then in the folders distributions install to.
import { createServer } from 'node:net';
import { findProgram as find, programVersion } from '../../scripts/test-deps.mjs';

/**
 * The executable `name` (by any of its names: chromium or chromium-browser), installed by `npm test`
 * when missing. A machine without it fails the test that asked for it with `missing` (how to install
 * it), never skips it.
 */
export function findProgram(name: string, missing: string): string {
  const found = find(name);
  if (!found) throw new Error(missing);
  return found;
}

/** The executable `name`, or undefined: for a program a test can do without, saying so when it skips. */
export const lookUpProgram = (name: string): string | undefined => find(name);

/** The version of one of npm test's programs, [major, minor, patch], from what its version flag prints ("v2.11.4 h1:...", "2.6.2", "HAProxy version 2.6.12-1"). */
export function versionOf(name: string, missing: string): [number, number, number] {
  findProgram(name, missing);
  const out = programVersion(name) ?? '';
  const m = /(\d+)\.(\d+)\.(\d+)/.exec(out);
  if (!m) throw new Error(`${name}'s version flag answered ${JSON.stringify(out.slice(0, 200))}: no version in it`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

/** a >= b, versions as [major, minor, patch]. */
export function atLeast(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
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
