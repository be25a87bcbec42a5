// What an answer teaches depends on how many requests the store's participants sent since this one
// was taken: the window's seq, read with the slot's settle (docs/architecture.md, Rate budget).
// Scripted over the real window code (the memory store) shared by two participants, on a fake clock.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RateLimiter } from '../../src/api/limiter.js';
import { MemoryStore } from '../../src/store/memory.js';

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

const LIMIT = 4;
const WINDOW_MS = 60_000;
type Answer = { headers: { limit?: number; remaining?: number } };

function participants() {
  const shared = new MemoryStore();
  const opts = { limit: LIMIT, windowMs: WINDOW_MS, key: 'budget:one-token', store: shared };
  return { limiterA: new RateLimiter(opts), limiterB: new RateLimiter(opts), shared };
}

function send(limiter: RateLimiter, answer: () => Answer | Promise<Answer>): Promise<Answer> {
  return limiter.schedule(async () => answer(), { observation: (x) => x.headers });
}

/** A request whose answer says the budget is spent. */
function next(limiter: RateLimiter): Promise<Answer> {
  return send(limiter, () => ({ headers: { limit: LIMIT, remaining: 0 } }));
}

/** Resolves `p` within `ms` of the fake clock, or says it is still waiting. */
async function within<T>(p: Promise<T>, ms: number): Promise<T | 'waiting'> {
  let done: T | 'waiting' = 'waiting';
  void p.then((v) => {
    done = v;
  });
  await vi.advanceTimersByTimeAsync(ms);
  return done;
}

describe('the window seq on an answer', () => {
  it('tells a participant who took meanwhile from a stranger', async () => {
    const { limiterA, limiterB, shared } = participants();
    let answerA!: (x: Answer) => void;
    const first = send(limiterA, () => new Promise<Answer>((r) => (answerA = r)));
    await vi.advanceTimersByTimeAsync(0);
    // Another participant of the store takes two slots while this request is in flight.
    const answersB: Array<(x: Answer) => void> = [];
    const others = [1, 2].map(() => send(limiterB, () => new Promise<Answer>((r) => answersB.push(r))));
    await vi.advanceTimersByTimeAsync(0);
    expect(answersB).toHaveLength(2);
    // The server counted three: this one and the participant's two. Nothing of anyone else's.
    answerA({ headers: { limit: LIMIT, remaining: LIMIT - 3 } });
    await first;
    // Learnt right, the window has a fourth slot for this process at once; had the participant's
    // two counted as strangers', this process would hold itself to fewer and wait.
    expect(await within(next(limiterA), 0)).not.toBe('waiting');
    for (const answer of answersB) answer({ headers: {} });
    await Promise.all(others);
    await shared.close();
  });

  it('counts what no participant sent as strangers', async () => {
    const { limiterA, shared } = participants();
    // Two requests of someone outside the store were counted with this one.
    await send(limiterA, () => ({ headers: { limit: LIMIT, remaining: LIMIT - 3 } }));
    // The window holds one slot of this process; the strangers' two and one of slack leave no room.
    expect(await within(next(limiterA), 0)).toBe('waiting');
    await shared.close();
  });
});
