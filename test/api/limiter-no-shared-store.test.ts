// Participants that share no store (stdio servers with their own configuration folders, no Redis)
// learn of each other only from the workspace's answers: X-RateLimit-Remaining, and a 429's
// Retry-After. Each narrows its own window by what the others spent (docs/architecture.md, "Rate
// budget"). A burst of several hundred calls on each must all be answered within the bound on a
// call's wait, the workspace's window never above its limit. In process, on a fake clock: a fake
// workspace stamps each request halfway through its round trip in a rolling window and answers as the
// sandbox does; each participant is a RateLimiter on its own memory store, behind a client that waits
// out a 429's Retry-After and sends again, as src/api/client.ts does.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RateLimiter } from '../../src/api/limiter.js';
import { MemoryStore } from '../../src/store/memory.js';
import { busiestWindow } from '../helpers/windows.js';

afterEach(() => {
  vi.useRealTimers();
});

const LIMIT = 120;
const WINDOW_MS = 600;
const BOUND_MS = 30_000;

/** The round trips and Retry-After waits, on the fake clock: ended by `step` as it moves the clock past them. */
let due: Array<{ at: number; go: () => void }> = [];
const after = (ms: number) => new Promise<void>((go) => due.push({ at: Date.now() + ms, go }));
async function step(): Promise<void> {
  await vi.advanceTimersByTimeAsync(1);
  const now = Date.now();
  const ready = due.filter((d) => d.at <= now);
  due = due.filter((d) => d.at > now);
  for (const d of ready) d.go();
  await vi.advanceTimersByTimeAsync(0);
}

/** The workspace's rolling window, as the sandbox keeps it (src/sandbox/ratelimit.ts). */
class Workspace {
  readonly counted: number[] = [];
  refusals = 0;
  #stamps: number[] = [];
  answer(now: number): { status: number; remaining: number; retryAfterS?: number } {
    this.#stamps = this.#stamps.filter((t) => t > now - WINDOW_MS);
    if (this.#stamps.length >= LIMIT) {
      this.refusals++;
      return { status: 429, remaining: 0, retryAfterS: ((this.#stamps[0] as number) + WINDOW_MS - now) / 1000 };
    }
    this.#stamps.push(now);
    this.counted.push(now);
    return { status: 200, remaining: LIMIT - this.#stamps.length };
  }
}

/** One call as the client makes it: refused calls wait out their Retry-After and go again. */
async function call(limiter: RateLimiter, workspace: Workspace, rttMs: number): Promise<void> {
  const queuedAt = Date.now();
  for (;;) {
    const a = await limiter.schedule(
      async () => {
        await after(rttMs / 2);
        const answer = workspace.answer(Date.now());
        await after(rttMs / 2);
        return answer;
      },
      {
        maxWaitMs: Math.max(0, BOUND_MS - (Date.now() - queuedAt)),
        refused: (x) => x.status === 429,
        observation: (x) => ({ limit: LIMIT, remaining: x.remaining, ...(x.retryAfterS !== undefined ? { retryAfterSeconds: x.retryAfterS } : {}) }),
      },
    );
    const retryAfterS = a.retryAfterS;
    if (retryAfterS === undefined) return;
    await after(retryAfterS * 1000);
  }
}

describe.each([2, 3])('%i participants on one token sharing no store', (n) => {
  it('answer every call of a 300-call burst each, within the bound, never over the limit in a window, drawing few refusals', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const workspace = new Workspace();
    const limiters = Array.from(
      { length: n },
      () => new RateLimiter({ limit: LIMIT, windowMs: WINDOW_MS, now: () => Date.now(), store: new MemoryStore({ now: () => Date.now() }) }),
    );
    const failures: string[] = [];
    const calls = limiters.flatMap((limiter, i) =>
      Array.from({ length: 300 }, () => call(limiter, workspace, 4 + 3 * i).catch((err: unknown) => failures.push(String(err)))),
    );
    let ended = false;
    void Promise.all(calls).then(() => {
      ended = true;
    });
    while (!ended && Date.now() < 1_000_000 + 2 * BOUND_MS) await step();
    process.stderr.write(`${n} participants sharing no store: ${workspace.refusals} refusals (429), ${failures.length} calls failed\n`);
    expect({ failures: failures.slice(0, 3), failed: failures.length }).toEqual({ failures: [], failed: 0 });
    expect(workspace.counted).toHaveLength(300 * n);
    expect(busiestWindow(workspace.counted, WINDOW_MS)).toBeLessThanOrEqual(LIMIT);
    // Each refusal still counts in the member's usage: a participant that sends a whole window's worth
    // before the first answers tell it of the others draws about that many. Fewer than a third of a
    // window's budget per participant, over the whole burst.
    expect(workspace.refusals).toBeLessThanOrEqual((LIMIT / 3) * n);
  }, 60_000);
});

describe('a burst queued after one sighting of others holding nearly the whole budget', () => {
  it('waits for its slots within the bound instead of being refused at once', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const limiter = new RateLimiter({ limit: LIMIT, windowMs: WINDOW_MS, now: () => Date.now(), store: new MemoryStore({ now: () => Date.now() }) });
    const told = (remaining: number) => limiter.schedule(async () => remaining, { observation: (r) => ({ limit: LIMIT, remaining: r }) });
    // Others held 59 slots, then, a moment later, 117 (the cap narrows to 2 for a window).
    await told(60);
    await told(1);
    const refused: unknown[] = [];
    const burst = Array.from({ length: 150 }, () => limiter.schedule(async () => {}, { maxWaitMs: BOUND_MS }).catch((err: unknown) => refused.push(err)));
    let ended = false;
    void Promise.all(burst).then(() => {
      ended = true;
    });
    while (!ended && Date.now() < 1_000_000 + 2 * BOUND_MS) await step();
    expect(refused.map(String).slice(0, 2)).toEqual([]);
    expect(ended).toBe(true);
  }, 60_000);
});
