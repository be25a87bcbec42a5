// The rate budget and the retry rules, seen from the sandbox: what reached it, and when.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { TestClock } from '../helpers/clock.js';
import { type Stack, startStack, textOf } from '../helpers/stack.js';

const SCALE = 0.01; // the sandbox's minute lasts 600 ms
const WINDOW_MS = 60_000 * SCALE;

const RATE_LIMIT = { WORKSPACE_RATE_LIMIT: `120/${WINDOW_MS / 1000}` };
/** The sandbox's clock, with real time: moved a window on, it has forgotten what it counted. */
const clock = new TestClock();
let sandbox: SandboxHandle;
let stack: Stack;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: true, timeScale: SCALE, clock: clock.now });
  stack = await startStack({ sandboxHandle: sandbox, env: RATE_LIMIT });
});
afterAll(async () => {
  await stack.close();
  await sandbox.close();
});

const apiRequests = () => sandbox.requests().filter((r) => r.path.startsWith('/api/v1/'));

describe('rate budget', () => {
  it('10x overload never exceeds 120 requests in any rolling window and gets no 429', async () => {
    sandbox.clearRequests();
    const calls = Array.from({ length: 1200 }, () => stack.call('get_workspace'));
    const results = await Promise.all(calls);
    expect(results.filter((r) => r.isError)).toHaveLength(0);
    const reqs = apiRequests();
    expect(reqs).toHaveLength(1200);
    expect(reqs.filter((r) => r.status === 429)).toHaveLength(0);
    const times = reqs.map((r) => Date.parse(r.time)).sort((a, b) => a - b);
    let maxInWindow = 0;
    for (let i = 0, j = 0; i < times.length; i++) {
      while (times[i]! - times[j]! >= WINDOW_MS) j++;
      maxInWindow = Math.max(maxInWindow, i - j + 1);
    }
    expect(maxInWindow).toBeLessThanOrEqual(120);
  }, 60_000);

  it('a 429 is waited out and the call succeeds', async () => {
    // A fresh window after the overload: the sandbox's clock a window on, and a client of its own.
    clock.advance(WINDOW_MS);
    const own = await startStack({ sandboxHandle: sandbox, liveOpenApi: false, env: RATE_LIMIT });
    try {
      sandbox.clearRequests();
      sandbox.admin.fault({ count: 1, status: 429, retry_after: 0.2, match: { method: 'GET', path: '/workspace' } });
      const r = await own.call('get_workspace');
      expect(r.isError).toBeFalsy();
      const reqs = apiRequests();
      expect(reqs.map((q) => q.status)).toEqual([429, 200]);
      // Sent again only once the Retry-After had passed (a floor: a busy machine only adds to it).
      expect(Date.parse(reqs[1]!.time) - Date.parse(reqs[0]!.time)).toBeGreaterThanOrEqual(190);
    } finally {
      await own.close();
    }
  });
});

describe('writes are never sent twice', () => {
  it('a POST answered 503 is not re-sent and is reported as outcome unknown', async () => {
    sandbox.clearRequests();
    sandbox.admin.fault({ count: 1, status: 503, match: { method: 'POST', path: '/engagements/{engagement}/findings' } });
    const r = await stack.call('create_finding', { engagement: ENGAGEMENT_AP, type: 'risk', statement: 'Paiement en double non détecté' });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/outcome unknown/i);
    expect(textOf(r)).toMatch(/not sent again/);
    expect(apiRequests().filter((q) => q.method === 'POST')).toHaveLength(1);
  });

  it('a write whose answer was lost after it ran is counted once on the sandbox', async () => {
    sandbox.clearRequests();
    sandbox.admin.fault({ count: 1, reset: true, after_handler: true, match: { method: 'POST', path: '/engagements/{engagement}/findings' } });
    const r = await stack.call('create_finding', { engagement: ENGAGEMENT_AP, type: 'risk', statement: 'Réponse perdue' });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/may or may not have been applied/);
    const posts = apiRequests().filter((q) => q.method === 'POST');
    expect(posts).toHaveLength(1);
    expect(posts[0]!.handler_ran).toBe(true);
  });

  it('a GET answered 503 is retried and succeeds', async () => {
    sandbox.clearRequests();
    sandbox.admin.fault({ count: 1, status: 503, match: { method: 'GET', path: '/workspace' } });
    const r = await stack.call('get_workspace');
    expect(r.isError).toBeFalsy();
    expect(apiRequests().map((q) => q.status)).toEqual([503, 200]);
  });
});

describe('a Retry-After beyond the cap', () => {
  it('is a clear error, not an endless wait, and later calls fail fast without a request', async () => {
    // Its own client: the pause it learns would hold every later test of this file.
    const own = await startStack({ sandboxHandle: sandbox, liveOpenApi: false, env: RATE_LIMIT });
    try {
      sandbox.clearRequests();
      sandbox.admin.fault({ count: 1, status: 429, retry_after: 3600, match: { method: 'GET', path: '/workspace' } });
      const r = await own.call('get_workspace');
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(/wait 3600 s/);
      const again = await own.call('get_current_member');
      expect(again.isError).toBe(true);
      expect(textOf(again)).toMatch(/rate limit/i);
      expect(apiRequests()).toHaveLength(1);
    } finally {
      await own.close();
    }
  });
});
