// Waiters learn of slots another participant of the store frees early. A slot counts from its take
// until a hold after its answer, and a waiter that found the window full sleeps until the end it can
// see; but a participant may give a slot back at once (its caller cancelled while the store was
// taking it, a 429, a bound that ran out): a waiter of another participant (another process, or
// another limiter on the same store) hears nothing of it, and must still find it within a stated
// tolerance (one slot's share of the window: windowMs / limit). Scripted over the real window code
// (the memory store), on a fake clock.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RateLimiter } from '../../src/api/limiter.js';
import { MemoryStore } from '../../src/store/memory.js';
import { GatedStore } from './gated-store.js';

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

const LIMIT = 5;
const WINDOW_MS = 2_000;
const TOLERANCE_MS = WINDOW_MS / LIMIT;

describe('a waiter on a shared store', () => {
  it("is admitted within one slot's share of the window when another participant gives a slot back", async () => {
    const shared = new MemoryStore({ now: () => Date.now() });
    const gated = new GatedStore(shared);
    const a = new RateLimiter({ limit: LIMIT, windowMs: WINDOW_MS, now: () => Date.now(), store: gated, key: 'budget:w' });
    const b = new RateLimiter({ limit: LIMIT, windowMs: WINDOW_MS, now: () => Date.now(), store: shared, key: 'budget:w' });
    const sent: Array<{ who: string; at: number }> = [];
    const answers: Array<() => void> = [];
    // Requests answered when the script says (most never, within the test: their slots stay).
    const request = (who: string) => () =>
      new Promise<void>((resolve) => {
        sent.push({ who, at: Date.now() });
        answers.push(resolve);
      });

    // A sends four requests; its fifth waits for a first answer (a slow start) and is queued.
    for (let i = 0; i < 4; i++) void a.schedule(request('a'));
    await vi.advanceTimersByTimeAsync(1);
    const release = gated.hold();
    const cancel = new AbortController();
    const cancelled = a.schedule(request('a'), { signal: cancel.signal }).catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(1);
    // The first answer comes: A's fifth take is made in the store (the window is full), its answer held.
    answers[0]?.();
    await vi.advanceTimersByTimeAsync(1);

    // B finds the window full and sleeps until the first slot that it can see ends.
    void b.schedule(request('b'));
    await vi.advanceTimersByTimeAsync(1);
    expect(sent.filter((s) => s.who === 'b')).toEqual([]);

    // A's caller goes away while its slot is being taken: the slot goes back to the window at once.
    cancel.abort(new Error('cancelled'));
    release();
    expect(await cancelled).toEqual(new Error('cancelled'));
    const freedAt = Date.now();

    // Long enough for B to go whenever it learns of the slot: when it went is the measure.
    await vi.advanceTimersByTimeAsync(2 * WINDOW_MS);
    expect(sent.filter((s) => s.who === 'a')).toHaveLength(4);
    const waitedPastFree = sent.filter((s) => s.who === 'b').map((s) => s.at - freedAt);
    expect(waitedPastFree).toHaveLength(1);
    expect(waitedPastFree[0]).toBeLessThanOrEqual(TOLERANCE_MS);
  });
});
