// The rate budget's edge: a call waits for its slot at most a bound. One that would wait longer is
// refused at once, saying when a slot opens; one still queued when the bound runs out is refused
// then. Either way nothing is sent and no slot is taken or kept for it.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { describe, expect, it, vi } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { BudgetWaitTooLongError, RateLimitWaitTooLongError } from '../../src/api/errors.js';
import { RateLimiter } from '../../src/api/limiter.js';
import { MemoryStore } from '../../src/store/memory.js';
import { fakeWorkspace, sendJson } from './fake-workspace.js';
import { GatedStore } from './gated-store.js';

const LIMITS = (limit: number, windowMs: number) => ({ limit, windowMs, holdMs: windowMs + Math.max(10, windowMs / 100), leaseMs: 5 * 60_000 });

/** How many slots the window `key` holds: takes until one is refused, each given back at once. */
async function slotsHeld(store: MemoryStore, key: string, limit: number, windowMs: number): Promise<number> {
  const taken: string[] = [];
  for (;;) {
    const t = await store.takeSlot(key, LIMITS(limit, windowMs));
    if (!t.taken) break;
    taken.push(t.slot);
  }
  for (const slot of taken) await store.settleSlot(key, slot, { refused: true, holdMs: 0, leaseMs: 0 });
  return limit - taken.length;
}

describe('the bound of a wait for the rate budget', () => {
  it('200 calls at once on a fresh 120-a-minute budget: 120 go, 80 are refused at once with when a slot opens, and they take no slot', async () => {
    const store = new MemoryStore();
    const limit = 120;
    const windowMs = 60_000;
    const boundMs = 30_000;
    const limiter = new RateLimiter({ limit, windowMs, store, key: 'budget:burst' });
    let sent = 0;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 200 }, () =>
        limiter.schedule(
          async () => {
            sent++;
          },
          { maxWaitMs: boundMs },
        ),
      ),
    );
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected').map((o) => o.reason as unknown);
    expect(sent).toBe(limit);
    expect(refused).toHaveLength(200 - limit);
    for (const err of refused) {
      expect(err).toBeInstanceOf(BudgetWaitTooLongError);
      const e = err as BudgetWaitTooLongError;
      // Told when the window frees a slot (about a window away), which is past the bound.
      expect(e.retryAfterSeconds * 1000).toBeGreaterThan(boundMs);
      expect(e.retryAfterSeconds * 1000).toBeLessThanOrEqual(windowMs + 2_000);
      expect(e.waitedMs).toBe(0);
      expect(e.message).toMatch(/Nothing was sent/);
      expect(e.message).toContain(`Call again in ${e.retryAfterSeconds} s`);
    }
    // The refused calls hold nothing in the shared window: it has exactly the calls that went.
    expect(await slotsHeld(store, 'budget:burst', limit + 1, windowMs)).toBe(limit);
  });

  it('a call still queued when its bound runs out is refused then, and never runs', async () => {
    const limiter = new RateLimiter({ limit: 10, windowMs: 60_000 });
    // Four requests out and unanswered: a slow start holds the rest until an answer comes.
    const answers: Array<() => void> = [];
    const out = Array.from({ length: 4 }, () => limiter.schedule(() => new Promise<void>((r) => answers.push(r))));
    let ran = false;
    const late = limiter.schedule(
      async () => {
        ran = true;
      },
      { maxWaitMs: 50 },
    );
    const err = await late.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BudgetWaitTooLongError);
    expect((err as BudgetWaitTooLongError).waitedMs).toBeGreaterThan(0);
    expect(ran).toBe(false);
    expect(limiter.stats().queued).toBe(0);
    for (const a of answers) a();
    await Promise.all(out);
    // The budget is untouched by the refusal: the next call goes at once.
    await limiter.schedule(async () => {}, { maxWaitMs: 0 });
    expect(limiter.stats().sentInWindow).toBe(5);
  });

  it('a call whose wait fits in the bound waits, reports it, and goes', async () => {
    const limiter = new RateLimiter({ limit: 1, windowMs: 200, waitReportMs: 50 });
    await limiter.schedule(async () => {});
    const reports: number[] = [];
    let ran = false;
    await limiter.schedule(
      async () => {
        ran = true;
      },
      { maxWaitMs: 5_000, onWait: (ms) => reports.push(ms) },
    );
    expect(ran).toBe(true);
    expect(reports.length).toBeGreaterThanOrEqual(1);
  });

  it('the caller cancelling a queued call is a cancellation, not a refusal', async () => {
    const limiter = new RateLimiter({ limit: 1, windowMs: 60_000 });
    await limiter.schedule(async () => {});
    const controller = new AbortController();
    // Without a bound the call queues for the whole window.
    const pending = limiter.schedule(async () => {}, { signal: controller.signal }).catch((e: unknown) => e);
    controller.abort(new Error('the user cancelled'));
    const err = await pending;
    expect(err).not.toBeInstanceOf(BudgetWaitTooLongError);
    expect((err as Error).message).toBe('the user cancelled');
  });

  it('publishes each wait and each refusal for the operator', async () => {
    const waits: unknown[] = [];
    const refusals: unknown[] = [];
    const onWait = (m: unknown) => waits.push(m);
    const onRefusal = (m: unknown) => refusals.push(m);
    subscribe('workspace-consulting-mcp:budget.wait', onWait);
    subscribe('workspace-consulting-mcp:budget.refusal', onRefusal);
    try {
      const limiter = new RateLimiter({ limit: 1, windowMs: 300 });
      await limiter.schedule(async () => {});
      await limiter.schedule(async () => {}, { maxWaitMs: 5_000 });
      await limiter.schedule(async () => {}, { maxWaitMs: 10 }).catch(() => {});
      expect(waits).toHaveLength(1);
      expect(refusals).toHaveLength(1);
    } finally {
      unsubscribe('workspace-consulting-mcp:budget.wait', onWait);
      unsubscribe('workspace-consulting-mcp:budget.refusal', onRefusal);
    }
  });

  it("a 429 whose Retry-After passes the call's bound is answered at once with when to try again, not waited out", async () => {
    const ws = await fakeWorkspace((_hit, res) =>
      sendJson(res, 429, { code: 'rate.limited', message: 'Too many requests.', details: {} }, { 'retry-after': '5' }),
    );
    const client = new ApiClient({
      baseUrl: ws.api,
      token: () => 'pat_bound_test',
      limiter: new RateLimiter(),
      retry: { maxBudgetWaitMs: 2_000, maxRetryAfterSeconds: 120 },
    });
    try {
      const err = await client.request({ method: 'GET', path: '/workspace' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RateLimitWaitTooLongError);
      expect((err as RateLimitWaitTooLongError).retryAfterSeconds).toBe(5);
      expect((err as RateLimitWaitTooLongError).message).toMatch(/Try again in 5 s/);
      expect(ws.hits).toHaveLength(1);
    } finally {
      await client.close();
      await ws.close();
    }
  });

  it('a call whose bound runs out while the store is giving it a slot gives the slot back: nothing sent, nothing kept', async () => {
    // On a fake clock (Date and timers): the bound runs out at the moment the test chooses.
    vi.useFakeTimers({ now: 1_000_000 });
    try {
      // A store slow to answer, as a Redis far away or busy is: the bound runs out during the take.
      const shared = new MemoryStore({ now: () => Date.now() });
      const store = new GatedStore(shared);
      const limiter = new RateLimiter({ limit: 10, windowMs: 60_000, now: () => Date.now(), store, key: 'budget:slow' });
      // Four requests out and unanswered: a slow start holds the fifth until an answer comes.
      const answers: Array<() => void> = [];
      const out = Array.from({ length: 4 }, () => limiter.schedule(() => new Promise<void>((r) => answers.push(r))));
      await vi.advanceTimersByTimeAsync(1);
      expect(answers).toHaveLength(4);
      let ran = false;
      const late = limiter
        .schedule(
          async () => {
            ran = true;
          },
          { maxWaitMs: 100 },
        )
        .catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(20);
      // An answer lets the fifth try the store, which holds its answer past the bound.
      const release = store.hold();
      answers.shift()?.();
      await vi.advanceTimersByTimeAsync(100);
      release();
      const err = await late;
      expect(err).toBeInstanceOf(BudgetWaitTooLongError);
      expect(ran).toBe(false);
      for (const a of answers) a();
      await Promise.all(out);
      // The slot taken for the fifth went back to the store as its take answered (the settle is
      // written before the refusal reaches the caller): the window holds the four that went, and
      // nothing for the one refused.
      expect(await slotsHeld(shared, 'budget:slow', 10, 60_000)).toBe(4);
      // And the limiter does not count it as in flight: the next five go at once.
      let sent = 0;
      await Promise.all(Array.from({ length: 5 }, () => limiter.schedule(async () => void sent++, { maxWaitMs: 0 })));
      expect(sent).toBe(5);
    } finally {
      vi.useRealTimers();
    }
  });
});
