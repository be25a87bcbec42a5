// Several server processes on one token (Claude Desktop and Claude Code open at once) share the
// workspace's 120 requests per rolling minute. No process knows the others: each reads
// X-RateLimit-Remaining and spreads what is left. What the workspace answers stays within the budget in
// every rolling window and no call fails; refusals drawn by simultaneous bursts are counted and waited
// out. The OAuth refresh race across processes is tested in test/auth (store, login-e2e).
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { StdioPeer } from './stdio-peer.js';
import { LogScan } from './token-scan.js';

const SCALE = 0.01; // the sandbox's minute lasts 600 ms
const WINDOW_MS = 60_000 * SCALE;
const CALLS_PER_PROCESS = 300;

let sandbox: SandboxHandle;
const scan = new LogScan();

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: true, timeScale: SCALE });
});
afterAll(async () => {
  await sandbox?.close();
  expect(scan.leaks(Object.values(sandbox.tokens))).toEqual([]);
});

/** The most requests in any rolling window of the sandbox's minute. */
function busiestWindow(times: number[]): number {
  const t = [...times].sort((a, b) => a - b);
  let most = 0;
  // The log stamps a request (in whole ms) as its handling starts, the sandbox's limiter reads its
  // own clock a moment later; under a loaded machine a GC pause can fall between the two. A window
  // 10 ms shorter (under 2% of it) keeps that skew from counting one request in two windows.
  const span = WINDOW_MS - 10;
  for (let i = 0, j = 0; i < t.length; i++) {
    while ((t[i] as number) - (t[j] as number) >= span) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

async function startServers(n: number): Promise<StdioPeer[]> {
  const dir = await mkdtemp(join(tmpdir(), 'wcm-budget-'));
  const peers = Array.from({ length: n }, (_, i) => {
    const peer = new StdioPeer(
      'source',
      {
        WORKSPACE_URL: sandbox.url,
        WORKSPACE_TOKEN: sandbox.tokens.read,
        WORKSPACE_TOOLSETS: 'all',
        WORKSPACE_CONFIG_DIR: join(dir, `config-${i}`),
        WORKSPACE_DOWNLOAD_DIR: join(dir, `downloads-${i}`),
        // Each process may spend the whole budget of the (time-scaled) minute on its own.
        WORKSPACE_RATE_LIMIT: `120/${WINDOW_MS / 1000}`,
        HOME: dir,
        LOG_LEVEL: 'info',
      },
      scan,
    );
    peer.initialize(0);
    return peer;
  });
  await Promise.all(peers.map((p) => p.answer(0)));
  for (const p of peers) p.send({ method: 'notifications/initialized' });
  // Let each server's start-up read (the live description) land before the count starts.
  await new Promise((r) => setTimeout(r, WINDOW_MS * 2));
  return peers;
}

describe.each([2, 3])('%i server processes on one token', (n) => {
  it(`stay within 120 requests per rolling window together, with no failed call`, async () => {
    const peers = await startServers(n);
    try {
      sandbox.clearRequests();
      const tools = ['get_workspace', 'get_current_member', 'list_methods', 'get_usage_summary'];
      for (const p of peers) {
        for (let i = 1; i <= CALLS_PER_PROCESS; i++) {
          p.send({ id: i, method: 'tools/call', params: { name: tools[i % tools.length], arguments: {} } });
        }
      }
      const answers = await Promise.all(
        peers.flatMap((p) => Array.from({ length: CALLS_PER_PROCESS }, (_, i) => p.answer(i + 1, 60_000))),
      );
      const failed = answers.filter((a) => a.error || (a.result as { isError?: boolean }).isError);
      expect(failed.map((a) => JSON.stringify(a).slice(0, 300))).toEqual([]);
      const reqs = sandbox.requests().filter((r) => r.path.startsWith('/api/v1/') && r.template !== '/openapi.json');
      const answered = reqs.filter((r) => r.status !== 429);
      const refused = reqs.length - answered.length;
      expect(answered).toHaveLength(n * CALLS_PER_PROCESS);
      expect(busiestWindow(answered.map((r) => Date.parse(r.time)))).toBeLessThanOrEqual(120);
      // Known gap (SECURITY.md, shared budgets): processes that burst at the same moment each send
      // their first requests before any answer tells them of the others, and draw refusals. They are
      // waited out (no call fails), but each one counts in the workspace's usage.
      process.stderr.write(`shared budget, ${n} processes: ${answered.length} calls answered, ${refused} refusals (429) waited out, busiest window ${busiestWindow(answered.map((r) => Date.parse(r.time)))} answered\n`);
    } finally {
      await Promise.all(peers.map((p) => p.close()));
    }
  }, 120_000);
});
