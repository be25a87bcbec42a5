// The budget's two promises over random interleavings: N participants (limiters, each as a process
// with its own view of one shared store, whose rounds take time) send random bursts, some callers
// going away while they wait or while their slot is taken. Whatever the schedule:
// - never more than the limit in any window, wherever the server stamps a request between its send
//   and its answer;
// - no call waits while the store's window has a free slot for longer than the stated tolerance, one
//   slot's share of the window (windowMs / limit), and its round trips to the store: what a waiter may
//   take to learn of a slot that another participant gave back early (docs/architecture.md, "Rate
//   budget").
// On a fake clock, over the real window code (the memory store). A fixed seed in the fast tier; more
// runs with FUZZ_RUNS (npm run test:full).
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RateLimiter } from '../../src/api/limiter.js';
import { MemoryStore } from '../../src/store/memory.js';
import type { SettleOptions, SlidingWindowStore, WindowLimits, WindowTake } from '../../src/store/windows.js';
import { busiestWindow, mostCountable } from '../helpers/windows.js';

afterEach(() => {
  vi.useRealTimers();
});

const LIMIT = 10;
const WINDOW_MS = 1_000;
const HOLD_MS = WINDOW_MS + Math.max(10, WINDOW_MS / 100);
const TOLERANCE_MS = WINDOW_MS / LIMIT;
/** The fake clock's step while the schedule plays: the grain of the free-slot check. */
const STEP_MS = 5;

/**
 * The schedule's own events (bursts, cancellations, answers, the way to the store), run by the
 * playing loop as it moves the fake clock past their time, in steps of STEP_MS.
 */
class Events {
  #due: Array<{ at: number; run: () => void }> = [];
  at(at: number, run: () => void): void {
    this.#due.push({ at, run });
  }
  /** Resolves once the clock has moved `ms` on (at once for 0). */
  after(ms: number): Promise<void> {
    return ms <= 0 ? Promise.resolve() : new Promise((resolve) => this.at(Date.now() + ms, resolve));
  }
  fire(now: number): void {
    const ready = this.#due.filter((e) => e.at <= now).sort((a, b) => a.at - b.at);
    this.#due = this.#due.filter((e) => e.at > now);
    for (const e of ready) e.run();
  }
}

/** A slot as the store held it: from its take until its settle landed (and a hold after, unless refused). */
interface Slot {
  takenAt: number;
  ends: number;
}

/**
 * One participant's way to the shared store: each round takes `lagMs` to reach it and as long back.
 * Records every slot as the store holds it, for the free-slot check.
 */
class LaggyStore implements SlidingWindowStore {
  constructor(
    readonly inner: MemoryStore,
    readonly lagMs: number,
    readonly slots: Map<string, Slot>,
    readonly events: Events,
  ) {}
  #lag(): Promise<void> {
    return this.events.after(this.lagMs);
  }
  async takeSlot(key: string, limits: WindowLimits): Promise<WindowTake> {
    await this.#lag();
    const taken = await this.inner.takeSlot(key, limits);
    if (taken.taken) this.slots.set(taken.slot, { takenAt: Date.now(), ends: Infinity });
    await this.#lag();
    return taken;
  }
  async settleSlot(key: string, slot: string, opts: SettleOptions): Promise<{ seq: number }> {
    await this.#lag();
    const held = this.slots.get(slot);
    if (held) held.ends = opts.refused ? Date.now() : Date.now() + opts.holdMs;
    return this.inner.settleSlot(key, slot, opts);
  }
  async pauseWindow(key: string, forMs: number): Promise<void> {
    await this.#lag();
    return this.inner.pauseWindow(key, forMs);
  }
}

interface Burst {
  who: number;
  atMs: number;
  calls: Array<{ rttMs: number; cancelAfterMs: number | null }>;
}

interface Call {
  queued: number;
  /** When its request went, or undefined (cancelled before it went). */
  sent?: number;
  answered?: number;
  /** When its caller went away, if it did before its request went. */
  gone?: number;
}

const burst = (participants: number): fc.Arbitrary<Burst> =>
  fc.record({
    who: fc.integer({ min: 0, max: participants - 1 }),
    atMs: fc.integer({ min: 0, max: 1_500 }),
    calls: fc.array(
      fc.record({
        rttMs: fc.integer({ min: 1, max: 300 }),
        cancelAfterMs: fc.option(fc.integer({ min: 0, max: 300 }), { freq: 2 }),
      }),
      { minLength: 1, maxLength: 40 },
    ),
  });

const schedule = fc
  .integer({ min: 2, max: 4 })
  .chain((n) =>
    fc.tuple(fc.constant(n), fc.array(fc.integer({ min: 0, max: 25 }), { minLength: n, maxLength: n }), fc.array(burst(n), { minLength: 1, maxLength: 10 })),
  );

/** Play the schedule to its end on a fake clock; every call, as it went. */
async function play(
  participants: number,
  lags: number[],
  bursts: Burst[],
): Promise<{ calls: Call[]; samples: Array<{ at: number; waiting: Call[]; free: number }> }> {
  vi.useFakeTimers({ now: 1_000_000 });
  const start = Date.now();
  const shared = new MemoryStore({ now: () => Date.now() });
  const slots = new Map<string, Slot>();
  const events = new Events();
  const limiters = Array.from(
    { length: participants },
    (_, i) =>
      new RateLimiter({
        limit: LIMIT,
        windowMs: WINDOW_MS,
        now: () => Date.now(),
        store: new LaggyStore(shared, lags[i] ?? 0, slots, events),
        key: 'budget:p',
      }),
  );
  const calls: Call[] = [];
  const done: Array<Promise<unknown>> = [];
  // One step of the clock: the limiters' (fake) timers, then the schedule's events due by then.
  const step = async () => {
    await vi.advanceTimersByTimeAsync(STEP_MS);
    events.fire(Date.now());
    await vi.advanceTimersByTimeAsync(0);
  };
  // Each participant has had an answer before the bursts: until its first answer a participant lets
  // a few requests go and waits for them (a slow start, to hear of consumers outside the store),
  // free slots or not; that is another mechanism than the one under test here.
  for (const limiter of limiters) {
    const call: Call = { queued: Date.now() };
    calls.push(call);
    done.push(
      limiter.schedule(async () => {
        call.sent = Date.now();
        call.answered = Date.now();
      }),
    );
  }
  while (Date.now() < start + 100) await step();
  const from = Date.now();
  for (const b of bursts) {
    events.at(from + b.atMs, () => {
      for (const c of b.calls) {
        const call: Call = { queued: Date.now() };
        calls.push(call);
        const cancel = new AbortController();
        if (c.cancelAfterMs !== null) {
          events.at(Date.now() + c.cancelAfterMs, () => {
            if (call.sent === undefined) call.gone = Date.now();
            cancel.abort(new Error('cancelled'));
          });
        }
        const limiter = limiters[b.who] as RateLimiter;
        done.push(
          limiter
            .schedule(
              async () => {
                call.sent = Date.now();
                await events.after(c.rttMs);
                call.answered = Date.now();
              },
              { signal: cancel.signal },
            )
            .catch(() => {}),
        );
      }
    });
  }
  const samples: Array<{ at: number; waiting: Call[]; free: number }> = [];
  const lastBurst = Math.max(...bursts.map((b) => b.atMs));
  const total = bursts.reduce((n, b) => n + b.calls.length, 0);
  // Long enough for every call to go: a window per limit's worth of calls, and a margin.
  const endAt = start + lastBurst + (Math.ceil(total / LIMIT) + 2) * HOLD_MS + 1_000;
  while (Date.now() < endAt) {
    await step();
    const at = Date.now();
    let held = 0;
    for (const slot of slots.values()) if (slot.takenAt <= at && at < slot.ends) held++;
    samples.push({ at, waiting: calls.filter((c) => c.sent === undefined && c.gone === undefined), free: LIMIT - held });
  }
  let ended = false;
  void Promise.all(done).then(() => {
    ended = true;
  });
  while (!ended) await step();
  vi.useRealTimers();
  return { calls, samples };
}

describe('the shared budget over random interleavings of participants and bursts', () => {
  it('never holds more than the limit in any window, and no call waits past the tolerance while a slot is free', async () => {
    await fc.assert(
      fc.asyncProperty(schedule, async ([participants, lags, bursts]) => {
        const { calls, samples } = await play(participants, lags, bursts);
        const requests = calls.flatMap((c) => (c.sent !== undefined && c.answered !== undefined ? [{ sent: c.sent, answered: c.answered }] : []));
        // Every call went, or its caller went away first.
        expect(calls.filter((c) => c.sent === undefined && c.gone === undefined)).toEqual([]);
        expect(requests.length).toBe(calls.filter((c) => c.sent !== undefined).length);
        expect(mostCountable(requests, WINDOW_MS)).toBeLessThanOrEqual(LIMIT);
        expect(
          busiestWindow(
            requests.map((r) => r.sent),
            WINDOW_MS,
          ),
        ).toBeLessThanOrEqual(LIMIT);
        // A stretch longer than the tolerance in which the store had a free slot at every step while
        // the same call waited at every step. Besides the tolerance: the round trip of the look that
        // just missed the slot, and of the one that takes it, and the clock's grain.
        const allowedMs = TOLERANCE_MS + 3 * Math.max(...lags) + STEP_MS;
        let since: number | undefined;
        let waiter: Call | undefined;
        for (const s of samples) {
          const stillWaiting = waiter !== undefined && s.waiting.includes(waiter);
          if (s.free > 0 && s.waiting.length > 0) {
            if (since === undefined || !stillWaiting) {
              since = s.at;
              waiter = s.waiting[0];
            }
            expect({ waitedWithFreeSlotMs: s.at - since, at: s.at }).toEqual({
              waitedWithFreeSlotMs: expect.toSatisfy((ms: number) => ms <= allowedMs),
              at: s.at,
            });
          } else {
            since = undefined;
            waiter = undefined;
          }
        }
      }),
      { seed: 31, numRuns: process.env.FUZZ_RUNS ? Math.ceil(Number(process.env.FUZZ_RUNS) / 10) : 300, endOnFailure: true },
    );
  }, 120_000);
});
