// Slots taken ahead: on a store whose rounds cost (the file store: a lock, a read and a write on every
// request), a process whose requests come in a burst takes the slot of its next request in the round
// of the one before, so that request goes without a store round on its path. The window never holds
// more than the limit, a slot is held ahead only while the window is at most half full, and one
// unused, stale or no longer wanted goes back.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { RateLimiter } from '../../src/api/limiter.js';
import { MemoryStore } from '../../src/store/memory.js';
import type { SettleOptions, SlidingWindowStore, WindowLimits, WindowTake } from '../../src/store/windows.js';
import { fakeWorkspace, sendJson } from './fake-workspace.js';

afterEach(() => {
  vi.useRealTimers();
});

/**
 * A store that says its rounds cost (as the file store does), keeps its window in memory, and records
 * every take and settle; `hold()` keeps the takes asked from then on waiting until released.
 */
class RecordingStore implements SlidingWindowStore {
  readonly takesAhead = true;
  readonly inner: MemoryStore;
  /** Slots taken, in order. */
  readonly taken: string[] = [];
  /** Slots settled after their request, and slots given back unused (or refused). */
  readonly settled: string[] = [];
  readonly givenBack: string[] = [];
  takeCalls = 0;
  #held: { until: Promise<void>; release: () => void } | undefined;

  constructor(now: () => number) {
    this.inner = new MemoryStore({ now });
  }

  hold(): () => void {
    let release = () => {};
    const until = new Promise<void>((r) => {
      release = r;
    });
    this.#held = { until, release };
    return () => {
      this.#held = undefined;
      release();
    };
  }

  async takeSlot(key: string, limits: WindowLimits): Promise<WindowTake> {
    this.takeCalls++;
    if (this.#held) await this.#held.until;
    const t = await this.inner.takeSlot(key, limits);
    if (t.taken) this.taken.push(t.slot);
    return t;
  }

  /** How long a settle waits before it lands, as the file store's does for company (its grace). */
  settleDelayMs = 0;

  async settleSlot(key: string, slot: string, opts: SettleOptions): Promise<{ seq: number }> {
    (opts.refused ? this.givenBack : this.settled).push(slot);
    if (this.settleDelayMs > 0) await new Promise((r) => setTimeout(r, this.settleDelayMs));
    return this.inner.settleSlot(key, slot, opts);
  }

  pauseWindow(key: string, forMs: number): Promise<void> {
    return this.inner.pauseWindow(key, forMs);
  }

  /** Slots in the window that no request has settled and that were not given back. */
  open(): string[] {
    return this.taken.filter((s) => !this.settled.includes(s) && !this.givenBack.includes(s));
  }
}

/** Let the store's promises and the limiter's bookkeeping run. */
const settle = () => new Promise((r) => setImmediate(r));

function setup(limit = 120) {
  let t = 1_000_000;
  const clock = {
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
  };
  const store = new RecordingStore(clock.now);
  const limiter = new RateLimiter({ limit, windowMs: 60_000, now: clock.now, store });
  const sent: number[] = [];
  const request = async (n: number) => {
    await limiter.schedule(async () => {
      sent.push(n);
      return { status: 200 };
    });
    await settle();
  };
  return { clock, store, limiter, sent, request };
}

describe('RateLimiter taking slots ahead on a store whose rounds cost', () => {
  it('in a burst, a request is sent on the slot taken ahead while the store is still busy with the next one', async () => {
    const { store, sent, request } = setup();
    await request(1);
    // The first request of a burst takes its own slot only: nothing says a second is coming.
    expect(store.takeCalls).toBe(1);
    await request(2);
    // The second takes its own and, in the same round, the next request's.
    expect(store.takeCalls).toBe(3);
    expect(store.open()).toHaveLength(1);

    const release = store.hold();
    await request(3);
    // Sent although the store has not answered the take asked meanwhile (the one for request 4).
    expect(sent).toEqual([1, 2, 3]);
    expect(store.takeCalls).toBe(4);
    release();
    await settle();
    // Every request counted, and one slot held ahead for the next.
    expect(store.taken).toHaveLength(4);
    expect(store.settled).toHaveLength(3);
    expect(store.open()).toHaveLength(1);
  });

  it('requests further apart than a second take their own slots only, each in its round', async () => {
    const { clock, store, request } = setup();
    for (let i = 1; i <= 5; i++) {
      await request(i);
      clock.advance(1_500);
    }
    expect(store.takeCalls).toBe(5);
    expect(store.open()).toEqual([]);
    expect(store.givenBack).toEqual([]);
  });

  it('unused for a second, the slot taken ahead goes back to the window', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { store, request } = setup();
    await request(1);
    await request(2);
    const [ahead] = store.open();
    expect(ahead).toBeDefined();
    vi.advanceTimersByTime(999);
    expect(store.givenBack).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(store.givenBack).toEqual([ahead]);
    expect(store.open()).toEqual([]);
  });

  it('holds no slot ahead once the window would be more than half full, and never one another participant needs', async () => {
    const { store, request } = setup(8);
    for (let i = 1; i <= 3; i++) await request(i);
    // Three requests and one slot ahead: half of the window.
    expect(store.open()).toHaveLength(1);
    await request(4);
    // A fifth slot would pass half: none is taken ahead.
    expect(store.settled).toHaveLength(4);
    expect(store.open()).toEqual([]);
    // Another participant of the store finds the other four slots free, and no more.
    const limits = { limit: 8, windowMs: 60_000, holdMs: 60_600, leaseMs: 300_000 };
    const others = [];
    for (let i = 0; i < 5; i++) others.push((await store.inner.takeSlot('budget:default', limits)).taken);
    expect(others).toEqual([true, true, true, true, false]);
  });

  it('a request that found the last slot taken ahead is admitted as soon as that slot goes back', { timeout: 5_000 }, async () => {
    const { clock, store, sent, request, limiter } = setup(8);
    store.settleDelayMs = 20;
    await request(1);
    await new Promise((r) => setTimeout(r, 30));
    clock.advance(10);
    const go = (n: number) =>
      limiter.schedule(async () => {
        sent.push(n);
        return { status: 200 };
      });
    // Request 2 takes its slot (two of eight used, as far as this process knows: it will take one
    // ahead); meanwhile other participants take five, and the slot ahead is the last one.
    const second = go(2);
    const limits = { limit: 8, windowMs: 60_000, holdMs: 60_600, leaseMs: 300_000 };
    for (let i = 0; i < 5; i++) await store.inner.takeSlot('budget:default', limits);
    await new Promise((r) => process.nextTick(r));
    // Request 3 finds the window full. The slot ahead goes back (the window is past half), and 3
    // goes then, not when a slot expires (a minute away on a clock that does not move here).
    await Promise.all([second, go(3)]);
    expect(sent.sort()).toEqual([1, 2, 3]);
    expect(store.givenBack).toHaveLength(1);
  });

  it('requests started together take their own slots before the slot ahead: the last free one goes to a request', async () => {
    const { clock, store, sent, request, limiter } = setup(4);
    await request(1);
    await store.inner.takeSlot('budget:default', { limit: 4, windowMs: 60_000, holdMs: 60_600, leaseMs: 300_000 });
    clock.advance(10);
    const go = (n: number) =>
      limiter.schedule(async () => {
        sent.push(n);
        return { status: 200 };
      });
    await Promise.all([go(2), go(3)]);
    expect(sent.sort()).toEqual([1, 2, 3]);
    // The take ahead came last and found the window full: nothing was held ahead, nothing given back.
    expect(store.givenBack).toEqual([]);
    expect(store.open()).toEqual([]);
  });

  it('a refusal with Retry-After gives the slot taken ahead back at once', async () => {
    const { store, limiter, request } = setup();
    await request(1);
    await request(2);
    const [ahead] = store.open();
    expect(ahead).toBeDefined();
    await limiter.schedule(async () => ({ status: 429 }), {
      refused: (a) => a.status === 429,
      observation: () => ({ retryAfterSeconds: 2 }),
    });
    await settle();
    expect(store.givenBack).toContain(ahead);
    expect(store.open()).toEqual([]);
  });

  it("a client's close gives back the slot its limiter took ahead", async () => {
    let t = 1_000_000;
    const store = new RecordingStore(() => t);
    const limiter = new RateLimiter({ now: () => t, store });
    const ws = await fakeWorkspace((_hit, res) => sendJson(res, 200, { data: {} }));
    const client = new ApiClient({ baseUrl: ws.api, token: () => 'pat_test', limiter });
    try {
      for (let i = 0; i < 3; i++) {
        await client.request({ method: 'GET', path: '/workspace' });
        t += 10;
      }
      await settle();
      expect(store.open()).toHaveLength(1);
      await client.close();
      await settle();
      expect(store.open()).toEqual([]);
      expect(store.givenBack).toHaveLength(1);
    } finally {
      await client.close();
      await ws.close();
    }
  });
});
