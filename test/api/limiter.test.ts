import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { WorkspaceApiError } from '../../src/api/errors.js';
import { limiterFor, RateLimiter } from '../../src/api/limiter.js';
import { fakeWorkspace, sendJson, type FakeWorkspace } from './fake-workspace.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

/**
 * A workspace that enforces a rolling limit the way the API does: a request arriving when `limit`
 * others arrived in the last `windowMs` is refused with 429. Other consumers of the same budget
 * (another process with the same token) are simulated by `spendForeign()`.
 */
async function rateLimitedWorkspace(limit: number, windowMs: number, opts: { headers?: boolean } = {}) {
  const accepted: number[] = [];
  const refused: number[] = [];
  let foreignRefused = 0;
  const inWindow = (now: number) => accepted.filter((t) => t > now - windowMs).length;
  const ws = await fakeWorkspace((hit, res) => {
    const used = inWindow(hit.at);
    if (used >= limit) {
      refused.push(hit.at);
      sendJson(res, 429, { code: 'rate.limited', message: 'Too many requests.', details: {} }, { 'retry-after': '1' });
      return;
    }
    accepted.push(hit.at);
    const headers: Record<string, string> =
      opts.headers === false ? {} : { 'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': String(limit - used - 1) };
    sendJson(res, 200, { data: { n: accepted.length } }, headers);
  });
  cleanups.push(() => ws.close());
  return {
    ws,
    accepted,
    refused,
    get foreignRefused() {
      return foreignRefused;
    },
    spendForeign() {
      const now = performance.now();
      if (inWindow(now) >= limit) foreignRefused++;
      else accepted.push(now);
    },
  };
}

function client(ws: FakeWorkspace, limiter: RateLimiter, max429Retries = 3): ApiClient {
  const c = new ApiClient({ baseUrl: ws.api, token: () => 'pat_test', limiter, retry: { max429Retries } });
  cleanups.push(() => c.close());
  return c;
}

/** The most arrivals found in any rolling window of `windowMs`. */
function busiestWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while ((sorted[i] as number) - (sorted[j] as number) >= windowMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

describe('RateLimiter', () => {
  it('under a 10x overload, never exceeds the limit in any rolling window and gets no 429', async () => {
    const limit = 10;
    const windowMs = 400;
    const server = await rateLimitedWorkspace(limit, windowMs);
    const limiter = new RateLimiter({ limit, windowMs });
    const api = client(server.ws, limiter, 0);

    const results = await Promise.all(
      Array.from({ length: limit * 10 }, () => api.request({ method: 'GET', path: '/workspace' })),
    );

    expect(results.every((r) => r.status === 200 && r.rateLimitRetries === 0)).toBe(true);
    expect(server.refused).toHaveLength(0);
    expect(server.ws.hits).toHaveLength(100);
    expect(busiestWindow(server.ws.hits.map((h) => h.at), windowMs)).toBeLessThanOrEqual(limit);
    // And it is a limiter, not a brake: 100 requests at 10 per 400 ms need nine more windows, not many more.
    const span = server.ws.hits.at(-1)!.at - server.ws.hits[0]!.at;
    expect(span).toBeGreaterThanOrEqual(9 * windowMs);
    expect(span).toBeLessThan(9 * windowMs * 1.6);
  }, 20_000);

  it('sends a burst up to the limit at once, then waits for the oldest send to leave the window', async () => {
    const limiter = new RateLimiter({ limit: 3, windowMs: 300 });
    const sentAt: number[] = [];
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: 4 }, () => limiter.schedule(async () => void sentAt.push(performance.now() - t0))),
    );
    expect(sentAt.slice(0, 3).every((t) => t < 50)).toBe(true);
    expect(sentAt[3]).toBeGreaterThanOrEqual(300);
    expect(limiter.stats()).toEqual({ sentInWindow: 1, queued: 0 });
  });

  it('slows down when the remaining count shows another consumer spending the same budget', async () => {
    const limit = 10;
    const windowMs = 500;
    const server = await rateLimitedWorkspace(limit, windowMs);
    // Another process spends half the budget, steadily.
    const foreign = setInterval(() => server.spendForeign(), windowMs / 5);
    cleanups.push(async () => clearInterval(foreign));
    await new Promise((r) => setTimeout(r, windowMs + 50));

    const api = client(server.ws, new RateLimiter({ limit, windowMs }), 0);
    for (let i = 0; i < 15; i++) await api.request({ method: 'GET', path: '/workspace' });

    expect(server.refused).toHaveLength(0);
    expect(server.foreignRefused).toBe(0);
  }, 20_000);

  it('without the remaining count to go by, the same load is refused (the test above has teeth)', async () => {
    const limit = 10;
    const windowMs = 500;
    const server = await rateLimitedWorkspace(limit, windowMs, { headers: false });
    const foreign = setInterval(() => server.spendForeign(), windowMs / 5);
    cleanups.push(async () => clearInterval(foreign));
    await new Promise((r) => setTimeout(r, windowMs + 50));

    const api = client(server.ws, new RateLimiter({ limit, windowMs }), 0);
    const err = await (async () => {
      for (let i = 0; i < 15; i++) await api.request({ method: 'GET', path: '/workspace' });
    })().catch((e: unknown) => e);

    expect((err as WorkspaceApiError).code).toBe('rate.limited');
  }, 20_000);

  it('pauses every caller for Retry-After once the server refuses', async () => {
    const limiter = new RateLimiter({ limit: 100, windowMs: 1000 });
    limiter.observe({ retryAfterSeconds: 0.2 });
    const t0 = performance.now();
    await limiter.schedule(async () => undefined);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(190);
  });

  it('is shared by every client of one token in the process', () => {
    expect(limiterFor('fp-a')).toBe(limiterFor('fp-a'));
    expect(limiterFor('fp-a')).not.toBe(limiterFor('fp-b'));
  });
});
