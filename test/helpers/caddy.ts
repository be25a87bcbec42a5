// A real Caddy for a test, run on the deployment's own deploy/Caddyfile (test/helpers/proxy.ts): the
// file as shipped but for its upstream addresses and a global options block put first for what a test
// run needs. SITE_ADDRESS comes from the environment, as compose gives it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { atLeast, findProgram, versionOf } from './programs.js';
import { deriveShipped, type ProxyHandle, startProxy } from './proxy.js';
import { ROOT } from './spawn.js';

export const CADDYFILE = 'deploy/Caddyfile';

const MISSING =
  'caddy is not installed, and this test runs the shipped deploy/Caddyfile in a real one: install it (Debian: apt-get install -y caddy; npm test does this when it is missing and it may).';

/**
 * What a test run adds, and nothing else: no admin endpoint (it would be :2019 for every run at once,
 * and the test stops Caddy by signal); listening on loopback only (compose publishes on loopback
 * too); and the `events` logger at debug level on its own log, so that a test can wait for Caddy to
 * mark an upstream unhealthy (the "unhealthy" event is emitted once the mark is made, whereas the
 * health checker's own info line comes just before it). Every other log stays at Caddy's default.
 */
export const TEST_GLOBAL_OPTIONS = ['admin off', 'default_bind 127.0.0.1', 'log events {', '\tlevel DEBUG', '\tinclude events', '}'];
/** The lines a test run puts before deploy/Caddyfile's text: the global options block. */
export const CADDY_PREFIX = ['{', ...TEST_GLOBAL_OPTIONS.map((o) => `\t${o}`), '}'];

export const findCaddy = (): string => findProgram('caddy', MISSING);

/** The installed Caddy's version, [major, minor, patch], from `caddy version` ("v2.11.4 h1:..." or Debian's "2.6.2"). */
export const caddyVersion = (): [number, number, number] => versionOf('caddy', MISSING);

/** Caddy sends a request with a body to the next upstream after a refused connection from this version on (github.com/caddyserver/caddy/pull/7547). */
export const retriesBodies = (version: readonly number[]): boolean => atLeast(version, [2, 11, 2]);

/** Caddy's JSON log lines so far, parsed (its stderr). */
export function caddyLogs(caddy: ProxyHandle): Record<string, unknown>[] {
  return caddy
    .output()
    .split('\n')
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        // not a log line (the CLI's own error text)
        return [];
      }
    });
}

/** Resolves with Caddy's first JSON log line (already written or to come) that `match` accepts. */
export async function waitForCaddyLog(caddy: ProxyHandle, match: (line: Record<string, unknown>) => boolean, what: string): Promise<Record<string, unknown>> {
  const parsed = (l: string) => {
    try {
      return JSON.parse(l) as Record<string, unknown>;
    } catch {
      return undefined;
    }
  };
  return parsed(await caddy.waitForLine((l) => parsed(l) !== undefined && match(parsed(l) as Record<string, unknown>), what)) as Record<string, unknown>;
}

/** `caddy run` on the derived Caddyfile with SITE_ADDRESS=http://localhost:PORT, in front of `upstreams`. */
export function startCaddy(opts: { port: number; upstreams: string[] }): Promise<ProxyHandle> {
  return startProxy({
    name: 'Caddy',
    bin: findCaddy(),
    args: (file) => ['run', '--config', file, '--adapter', 'caddyfile'],
    configName: 'Caddyfile',
    configText: deriveShipped(CADDYFILE, readFileSync(join(ROOT, CADDYFILE), 'utf8'), opts.upstreams, CADDY_PREFIX),
    env: { SITE_ADDRESS: `http://localhost:${opts.port}` },
    port: opts.port,
    portTaken: /address already in use/,
    // Logged once its servers run.
    listening: { line: /"msg":"serving initial configuration"/ },
  });
}
