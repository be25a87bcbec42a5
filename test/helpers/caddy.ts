// A real Caddy for a test, run on the deployment's own deploy/Caddyfile: the file as shipped but for
// its upstream addresses (the test's replicas instead of the compose services mcp-1 and mcp-2) and a
// global options block put first for what a test run needs. SITE_ADDRESS comes from the environment,
// as compose gives it. Its own temp folder for Caddy's data and config (HOME, XDG_*), removed by
// stop(). A machine without caddy fails the test that asked for it, saying how to install it
// (npm test installs it first when it may), never skips it.
import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findProgram } from './programs.js';
import { ROOT } from './spawn.js';

export const SHIPPED_CADDYFILE = join(ROOT, 'deploy/Caddyfile');
/** The upstreams as deploy/Caddyfile names them: the compose services. */
export const SHIPPED_UPSTREAMS = 'mcp-1:8080 mcp-2:8080';

/**
 * What a test run adds, and nothing else: no admin endpoint (it would be :2019 for every run at once,
 * and the test stops Caddy by signal); listening on loopback only (compose publishes on loopback
 * too); and the `events` logger at debug level on its own log, so that a test can wait for Caddy to
 * mark an upstream unhealthy (the "unhealthy" event is emitted once the mark is made, whereas the
 * health checker's own info line comes just before it). Every other log stays at Caddy's default.
 */
export const TEST_GLOBAL_OPTIONS = ['admin off', 'default_bind 127.0.0.1', 'log events {', '\tlevel DEBUG', '\tinclude events', '}'];

export function findCaddy(): string {
  return findProgram(
    'caddy',
    'caddy is not installed, and this test runs the shipped deploy/Caddyfile in a real one: install it (Debian: apt-get install -y caddy; npm test does this when it is missing and it may).',
  );
}

/** The installed Caddy's version, [major, minor, patch], from `caddy version` ("v2.11.4 h1:..." or Debian's "2.6.2"). */
export function caddyVersion(): [number, number, number] {
  const out = execFileSync(findCaddy(), ['version'], { encoding: 'utf8' });
  const m = /(\d+)\.(\d+)\.(\d+)/.exec(out);
  if (!m) throw new Error(`caddy version answered ${JSON.stringify(out.slice(0, 200))}: no version in it`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

/** a >= b, versions as [major, minor, patch]. */
export function atLeast(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
}

/** deploy/Caddyfile's text, the upstreams replaced by `upstreams` (host:port each), the test's global options first. */
export function deriveCaddyfile(shipped: string, upstreams: string[]): string {
  const at = shipped.indexOf(SHIPPED_UPSTREAMS);
  if (at < 0 || shipped.indexOf(SHIPPED_UPSTREAMS, at + 1) >= 0) {
    throw new Error(`deploy/Caddyfile no longer names its upstreams "${SHIPPED_UPSTREAMS}" exactly once: update test/helpers/caddy.ts with it`);
  }
  const globals = `{\n${TEST_GLOBAL_OPTIONS.map((o) => `\t${o}\n`).join('')}}\n`;
  return globals + shipped.slice(0, at) + upstreams.join(' ') + shipped.slice(at + SHIPPED_UPSTREAMS.length);
}

/** The port found free was taken before Caddy bound it: start again on another. */
export class PortTakenError extends Error {}

export interface CaddyHandle {
  /** `http://localhost:PORT`: the site address, and the replicas' public URL. */
  origin: string;
  port: number;
  /** The Caddyfile it runs, as written to disk. */
  configText: string;
  child: ChildProcessWithoutNullStreams;
  stderr(): string;
  /** Caddy's JSON log lines so far, parsed. */
  logs(): Record<string, unknown>[];
  /** Resolves with the first log line (already written or to come) that `match` accepts. */
  waitForLog(match: (line: Record<string, unknown>) => boolean, what: string, ms?: number): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

/**
 * `caddy run` on the derived Caddyfile with SITE_ADDRESS=http://localhost:PORT, ready once a request
 * through it reaches a replica (GET /healthz answered by one, polled). Rejects with PortTakenError
 * when the port was taken meanwhile, or with Caddy's output when it stops or is not ready in time.
 */
export async function startCaddy(opts: { port: number; upstreams: string[] }): Promise<CaddyHandle> {
  const bin = findCaddy();
  const dir = await mkdtemp(join(tmpdir(), 'wcm-caddy-'));
  const configFile = join(dir, 'Caddyfile');
  const configText = deriveCaddyfile(readFileSync(SHIPPED_CADDYFILE, 'utf8'), opts.upstreams);
  await writeFile(configFile, configText);
  const origin = `http://localhost:${opts.port}`;
  const child = spawn(bin, ['run', '--config', configFile, '--adapter', 'caddyfile'], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      // Caddy keeps its data (certificates, locks) and its autosaved config under these.
      HOME: dir,
      XDG_DATA_HOME: join(dir, 'data'),
      XDG_CONFIG_HOME: join(dir, 'config'),
      SITE_ADDRESS: origin,
    },
  });
  let stderr = '';
  const lines: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  let partial = '';
  child.stderr.on('data', (d: Buffer) => {
    const text = d.toString('utf8');
    stderr += text;
    partial += text;
    const complete = partial.split('\n');
    partial = complete.pop() ?? '';
    for (const l of complete) {
      try {
        lines.push(JSON.parse(l) as Record<string, unknown>);
      } catch {
        // not a log line (the CLI's own error text): kept in stderr only
      }
    }
    for (const w of waiters) w();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      // At once: on SIGTERM Caddy waits for the connections its clients still hold open (keep-alive
      // ones a request left busy, without an end), and nothing of its own needs to outlive the test.
      child.kill('SIGKILL');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };

  const handle: CaddyHandle = {
    origin,
    port: opts.port,
    configText,
    child,
    stderr: () => stderr,
    logs: () => lines,
    waitForLog(match, what, ms = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = lines.find(match);
          if (hit) {
            done();
            resolve(hit);
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`Caddy did not log ${what} within ${ms} ms: ${stderr.slice(-2000)}`));
        }, ms);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    stop,
  };

  // Ready: a request through Caddy is answered by a replica (Caddy itself answers an unrouted request
  // with an empty 200, so the body is what tells).
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await stop();
      if (/address already in use/.test(stderr)) throw new PortTakenError(`port ${opts.port} was taken before Caddy bound it`);
      throw new Error(`caddy exited (${child.exitCode ?? child.signalCode}) before it was ready: ${stderr.slice(-2000)}`);
    }
    try {
      const res = await fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(5_000) });
      const body = await res.text();
      if (res.status === 200 && body.includes('"status":"ok"')) return handle;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`caddy was not ready within 20 s: ${stderr.slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
