// Several server processes on one member's token (Claude Desktop and Claude Code open at once, or
// three assistant windows) share the workspace's 120 requests per rolling minute.
// - Sharing a store (the SQLite store in their configuration folder, or Redis), their budget is exact:
//   with always two budgets' worth of calls waiting, the sandbox never counts more than 120 requests in
//   a rolling minute, answers no 429 at all, and together they use at least 95% of the budget.
// - Sharing nothing (separate folders, no Redis), each reads X-RateLimit-Remaining and narrows its
//   window by what others spent: still within the budget in every rolling window and no failed call;
//   the refusals drawn by simultaneous bursts are counted and waited out.
// The OAuth refresh race across processes is tested in test/auth (store, login-e2e).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import type { RequestLogEntry } from '../../src/sandbox/server.js';
import { TestClock } from '../helpers/clock.js';
import { overload } from '../helpers/overload.js';
import { type RedisHandle, startRedis } from '../helpers/redis.js';
import { budgetUse, busiestWindow } from '../helpers/windows.js';
import { type Rpc, StdioPeer } from './stdio-peer.js';
import { LogScan } from './token-scan.js';

const LIMIT = 120;
const scan = new LogScan();
let redis: RedisHandle;
const dirs: string[] = [];

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** Windows are counted on the sandbox limiter's own clock readings (counted_ms), as it counts them. */
const busiest = busiestWindow;
const countedAt = (r: RequestLogEntry) => r.counted_ms ?? Number.NaN;

const TOOLS = ['get_workspace', 'get_current_member', 'list_methods', 'get_usage_summary'];

async function startServers(
  sandbox: SandboxHandle,
  n: number,
  windowMs: number,
  env: (i: number, dir: string) => Record<string, string>,
): Promise<StdioPeer[]> {
  const dir = await mkdtemp(join(tmpdir(), 'wcm-budget-'));
  dirs.push(dir);
  const peers = Array.from({ length: n }, (_, i) => {
    const peer = new StdioPeer(
      'source',
      {
        WORKSPACE_URL: sandbox.url,
        WORKSPACE_TOKEN: sandbox.tokens.read,
        WORKSPACE_TOOLSETS: 'all',
        WORKSPACE_DOWNLOAD_DIR: join(dir, `downloads-${i}`),
        // The sandbox's (time-scaled) minute, at the API's 120 requests.
        WORKSPACE_RATE_LIMIT: `${LIMIT}/${windowMs / 1000}`,
        HOME: dir,
        LOG_LEVEL: 'info',
        ...env(i, dir),
      },
      scan,
    );
    peer.initialize(0);
    return peer;
  });
  await Promise.all(peers.map((p) => p.answer(0, 60_000)));
  for (const p of peers) p.send({ method: 'notifications/initialized' });
  return peers;
}

/** Every answer to ids 1..count from `peer`, gathered as they come by one waiter (not one per id). */
async function answers(peer: StdioPeer, count: number, ms: number): Promise<Rpc[]> {
  const byId = new Map<number, Rpc>();
  await peer.waitFor(
    (m) => {
      if (typeof m.id === 'number' && m.id >= 1 && m.id <= count && (m.result !== undefined || m.error !== undefined)) byId.set(m.id, m);
      return byId.size === count;
    },
    `all ${count} answers`,
    ms,
  );
  return [...byId.values()];
}

const failedCalls = (all: Rpc[]) => all.filter((a) => a.error || (a.result as { isError?: boolean }).isError).map((a) => JSON.stringify(a).slice(0, 300));

describe.each([
  { store: 'the SQLite store in their configuration folder', env: (_i: number, dir: string) => ({ WORKSPACE_CONFIG_DIR: join(dir, 'config') }) },
  { store: 'Redis', env: (i: number, dir: string) => ({ WORKSPACE_CONFIG_DIR: join(dir, `config-${i}`), REDIS_URL: redis.url }) },
])('three server processes on one token sharing $store', ({ env }) => {
  it('overloaded (two budgets always waiting): never over 120 in a rolling minute, no 429, at least 95% of the budget used', async () => {
    const SCALE = 0.1; // the sandbox's minute lasts 6 s
    const windowMs = 60_000 * SCALE;
    const clock = new TestClock();
    const sandbox = await startSandbox({ port: 0, rateLimit: true, timeScale: SCALE, clock: clock.now });
    const peers = await startServers(sandbox, 3, windowMs, env);
    try {
      // Each server's start-up read (the live description) leaves the sandbox's window before the
      // count starts: its clock moves a window on.
      clock.advance(windowMs);
      sandbox.clearRequests();
      // Five budgets' worth of calls, evenly across the three: two budgets' worth at once, then one
      // more for each request the sandbox serves, so from the first send to the last there is always
      // more to send than the budget allows (what budgetUse needs), each call waiting about two windows.
      const perPeer = (LIMIT * 5) / peers.length;
      await overload(sandbox, perPeer * peers.length, 2 * LIMIT, (i) => {
        const id = Math.floor(i / peers.length) + 1;
        peers[i % peers.length]?.send({ id, method: 'tools/call', params: { name: TOOLS[id % TOOLS.length], arguments: {} } });
      });
      const all = (await Promise.all(peers.map((p) => answers(p, perPeer, 120_000)))).flat();
      expect(failedCalls(all)).toEqual([]);

      const reqs = sandbox.requests().filter((r) => r.path.startsWith('/api/v1/'));
      const refused = reqs.filter((r) => r.status === 429);
      const sent = reqs.map(countedAt);
      const use = budgetUse(sent, LIMIT, windowMs);
      process.stderr.write(
        `shared store, 3 processes overloaded: ${reqs.length} requests, ${refused.length} refused, busiest window ${busiest(sent, windowMs)}/${LIMIT}, budget used ${(use * 100).toFixed(1)}%\n`,
      );
      expect(reqs.filter((r) => r.template !== '/openapi.json')).toHaveLength(perPeer * peers.length);
      expect(refused).toHaveLength(0);
      expect(busiest(sent, windowMs)).toBeLessThanOrEqual(LIMIT);
      expect(use).toBeGreaterThanOrEqual(0.95);
    } finally {
      await Promise.all(peers.map((p) => p.close()));
      await sandbox.close();
      expect(scan.leaks(Object.values(sandbox.tokens))).toEqual([]);
    }
  }, 180_000);
});

describe.each([2, 3])('%i server processes on one token sharing no store', (n) => {
  it('stay within 120 requests per rolling window together, with no failed call', async () => {
    const SCALE = 0.01; // the sandbox's minute lasts 600 ms
    const windowMs = 60_000 * SCALE;
    const CALLS_PER_PROCESS = 300;
    const clock = new TestClock();
    const sandbox = await startSandbox({ port: 0, rateLimit: true, timeScale: SCALE, clock: clock.now });
    // Separate configuration folders and no REDIS_URL: each process counts only its own requests, and
    // learns of the others only from refusals and X-RateLimit-Remaining. Every call waits within the
    // default bound (WORKSPACE_MAX_BUDGET_WAIT, 30 s).
    const peers = await startServers(sandbox, n, windowMs, (i, dir) => ({ WORKSPACE_CONFIG_DIR: join(dir, `config-${i}`) }));
    try {
      // The start-up reads leave the sandbox's windows before the count starts.
      clock.advance(windowMs * 2);
      sandbox.clearRequests();
      for (const p of peers) {
        for (let i = 1; i <= CALLS_PER_PROCESS; i++) {
          p.send({ id: i, method: 'tools/call', params: { name: TOOLS[i % TOOLS.length], arguments: {} } });
        }
      }
      const all = (await Promise.all(peers.map((p) => answers(p, CALLS_PER_PROCESS, 60_000)))).flat();
      expect(failedCalls(all)).toEqual([]);
      const reqs = sandbox.requests().filter((r) => r.path.startsWith('/api/v1/') && r.template !== '/openapi.json');
      const answered = reqs.filter((r) => r.status !== 429);
      const refused = reqs.length - answered.length;
      expect(answered).toHaveLength(n * CALLS_PER_PROCESS);
      const times = answered.map(countedAt);
      expect(busiest(times, windowMs)).toBeLessThanOrEqual(LIMIT);
      // Known gap (SECURITY.md, shared budgets): processes that share no store and burst at the same
      // moment each send their first requests before any answer tells them of the others, and draw
      // refusals. They are waited out (no call fails), but each one counts in the workspace's usage.
      process.stderr.write(
        `no shared store, ${n} processes: ${answered.length} calls answered, ${refused} refusals (429) waited out, busiest window ${busiest(times, windowMs)} answered\n`,
      );
    } finally {
      await Promise.all(peers.map((p) => p.close()));
      await sandbox.close();
      expect(scan.leaks(Object.values(sandbox.tokens))).toEqual([]);
    }
  }, 120_000);
});
