// What an answer teaches depends on how many requests the store's participants sent since this one
// was taken: the window's seq. Reading it is a store round on the answer's path, so the limiter asks
// for it only when it could change what is learnt: when the answer leaves room for requests of
// others even counting this process's own alone (docs/architecture.md, Rate budget). Scripted over
// the real window code (the memory store) shared by two participants, on a fake clock.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RateLimiter } from '../../src/api/limiter.js';
import { MemoryStore } from '../../src/store/memory.js';
import type { SettleOptions, SlidingWindowStore, WindowLimits, WindowTake } from '../../src/store/windows.js';

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A participant's view of the shared store that records whether each settle asked for the seq. */
class AskingStore implements SlidingWindowStore {
  readonly asked: boolean[] = [];
  constructor(readonly inner: MemoryStore) {}
  takeSlot(key: string, limits: WindowLimits): Promise<WindowTake> {
    return this.inner.takeSlot(key, limits);
  }
  settleSlot(key: string, slot: string, opts: SettleOptions): Promise<{ seq: number | undefined }> {
    this.asked.push(opts.seq === true);
    return this.inner.settleSlot(key, slot, opts);
  }
  pauseWindow(key: string, forMs: number): Promise<void> {
    return this.inner.pauseWindow(key, forMs);
  }
}

const LIMIT = 4;
const WINDOW_MS = 60_000;
type Answer = { headers: { limit?: number; remaining?: number } };

function participants() {
  const shared = new MemoryStore();
  const a = new AskingStore(shared);
  const b = new AskingStore(shared);
  const opts = { limit: LIMIT, windowMs: WINDOW_MS, key: 'budget:one-token' };
  return { a, b, limiterA: new RateLimiter({ ...opts, store: a }), limiterB: new RateLimiter({ ...opts, store: b }), shared };
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
  it('is not read for an answer without rate-limit headers, nor for one that leaves no room for others', async () => {
    const { a, limiterA, shared } = participants();
    await send(limiterA, () => ({ headers: {} }));
    // The server counted this one request, and this process took one: nobody else can have spent.
    await send(limiterA, () => ({ headers: { limit: LIMIT, remaining: LIMIT - 2 } }));
    expect(a.asked).toEqual([false, false]);
    await shared.close();
  });

  it('is read when the server counted more than this process sent, and a participant who took meanwhile is no stranger', async () => {
    const { a, limiterA, limiterB, shared } = participants();
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
    expect(a.asked).toEqual([true]);
    // Learnt right, the window has a fourth slot for this process at once; had the participant's
    // two counted as strangers', this process would hold itself to fewer and wait.
    expect(await within(next(limiterA), 0)).not.toBe('waiting');
    for (const answer of answersB) answer({ headers: {} });
    await Promise.all(others);
    await shared.close();
  });

  it('is read when strangers may have spent too, and their requests narrow this process share', async () => {
    const { a, limiterA, shared } = participants();
    // Two requests of someone outside the store were counted with this one.
    await send(limiterA, () => ({ headers: { limit: LIMIT, remaining: LIMIT - 3 } }));
    expect(a.asked).toEqual([true]);
    // The window holds one slot of this process; the strangers' two and one of slack leave no room.
    expect(await within(next(limiterA), 0)).toBe('waiting');
    await shared.close();
  });
});
