// Client-side rate limiting, so a busy assistant spends its budget (120 requests a minute per token)
// without ever being refused: a refused request still counts in the workspace's usage.
//
// Two sources of truth, each for what it knows:
// - The sliding window in the state store (src/store/windows.ts) counts every request of every
//   process and replica that shares the store: exact among them. With the default private memory
//   store, "them" is this process.
// - The server's answers tell what the store cannot see: consumers outside it (another app of the
//   member, a process with another store). `X-RateLimit-Remaining` says how much of the budget was
//   spent when a request was counted; whatever the store cannot account for was spent by others, and
//   the window is narrowed by that much for the next window's length. A 429's Retry-After pauses
//   every participant, and the next request goes alone until its answer says how much is left.
import PQueue from 'p-queue';
import { MemoryStore } from '../store/memory.js';
import type { SlidingWindowStore, WindowLimits, WindowTake } from '../store/windows.js';
import { publishBudgetRefusal, publishBudgetWait } from './diagnostics.js';
import { BRIEFLY_UNAVAILABLE, BudgetWaitTooLongError, WorkspaceApiError } from './errors.js';

/** Requests sent before the first answer of a window tells how much of the budget is left. */
const SLOW_START = 4;
/** How long a request in flight counts at most, if its process dies before the answer. */
const DEFAULT_LEASE_MS = 5 * 60_000;
/** How often a caller still waiting for the budget hears again how long it may wait. */
const DEFAULT_WAIT_REPORT_MS = 5_000;
/** Added to a Retry-After: past its edge, whatever the clocks' granularity. */
const RETRY_AFTER_MARGIN_MS = 20;
/** After the shared store failed, how long this process counts on its own before trying it again. */
const STORE_RETRY_MS = 5_000;
/**
 * A slot taken ahead (see #takeAhead) stays this process's to use this long, and goes back unused
 * after it; only requests that come closer together than this take slots ahead.
 */
const AHEAD_KEEP_MS = 1_000;

export interface RateLimiterOptions {
  /** Requests allowed in any rolling window. Default 120 (the API's global limit). */
  limit?: number;
  /** Length of the rolling window. Default 60 s. */
  windowMs?: number;
  /** Extra time a request stays counted, for timer and clock granularity. Default 1% of the window, at least 10 ms. */
  safetyMs?: number;
  now?: () => number;
  /**
   * Where the window is kept. A store shared by several processes or replicas (the file store, Redis)
   * makes the budget exact across all of them. Default: a memory store of this limiter alone. May be
   * a store still opening (a server's start-up need not wait for it); if it fails to open, the
   * limiter says so (onStoreError) and counts alone.
   */
  store?: SlidingWindowStore | Promise<SlidingWindowStore>;
  /** The window's key in the store. Default `budget:default`; limiterFor uses `budget:<token fingerprint>`. */
  key?: string;
  /** How long a request counts at most while unanswered (its process may have died). Default 5 min. */
  leaseMs?: number;
  /** How often `onWait` is called again while a caller waits. Default 5 s. */
  waitReportMs?: number;
  /** The shared store failed; the limiter counts on its own for a few seconds. Default: a process warning. */
  onStoreError?: (err: unknown) => void;
  /**
   * While the shared store fails, refuse calls (a retryable 503, nothing sent) instead of counting
   * alone: where several replicas share the budget, each counting alone could send the whole limit
   * again. Default false (a member's own processes on one machine keep working).
   */
  refuseWithoutStore?: boolean;
}

export interface RateLimitObservation {
  limit?: number;
  remaining?: number;
  retryAfterSeconds?: number;
}

export interface ScheduleOptions<T> {
  /** Aborts the wait (rejecting with the signal's reason); a request already sent is the caller's. */
  signal?: AbortSignal;
  /** Whether an answer was a refusal (429): a refused request does not count against the budget. */
  refused?: (value: T) => boolean;
  /** The rate-limit headers of an answer (Retry-After for a refusal), learnt before the next admission. */
  observation?: (value: T) => RateLimitObservation | undefined;
  /** Called when this request must wait for the budget, then every `waitReportMs` while it waits. */
  onWait?: (waitMs: number) => void;
  /**
   * The longest this request may wait for its slot. One expected to wait longer is refused at once
   * (BudgetWaitTooLongError, saying when a slot opens), and one still queued when it runs out is
   * refused then: either way nothing is sent, and no slot is taken or kept for it. Unset: no bound.
   */
  maxWaitMs?: number;
}

/** A slot this process holds in the store's window. */
interface Held {
  store: SlidingWindowStore;
  slot: string;
  /** Slots the server may count at this request's stamp, this one included (WindowTake.count). */
  count: number;
  seq: number;
  /** This process's own record, for stats(): when the slot stops counting (Infinity while unanswered). */
  local: { end: number };
}

interface Waiter {
  onWait: ((waitMs: number) => void) | undefined;
  /** When it must have its slot, on the limiter's clock (Infinity: no bound). */
  deadline: number;
  /** Ends its wait with a refusal (the bound ran out, or it cannot be met). */
  refuse: AbortController;
  queuedAt: number;
  maxWaitMs: number;
}

/**
 * Admits requests so that no rolling window of `windowMs` ever holds more than `limit` of them, from
 * every participant of the store, and fewer when the server shows others spending the same budget.
 *
 * The p-queue (concurrency 1) orders the admissions, first come first served, and drops a waiting
 * caller whose signal aborts; the requests themselves run concurrently.
 */
export class RateLimiter {
  readonly #queue = new PQueue({ concurrency: 1 });
  readonly #now: () => number;
  readonly #windowMs: number;
  /** How long an answered request keeps counting: the window and the safety margin. */
  readonly #holdMs: number;
  readonly #leaseMs: number;
  readonly #limit: number;
  readonly #key: string;
  /** The shared store, once open (undefined while it opens). */
  #shared: SlidingWindowStore | undefined;
  #opening: Promise<SlidingWindowStore> | undefined;
  /** Counts alone while the shared store is unavailable. */
  readonly #fallback: MemoryStore;
  readonly #onStoreError: (err: unknown) => void;
  readonly #refuseWithoutStore: boolean;
  readonly waitReportMs: number;
  #storeDownUntil = 0;
  /** The server's limit, when its answers say (X-RateLimit-Limit). */
  #serverLimit = Infinity;
  /** No send before this time: the server said Retry-After. */
  #pausedUntil = 0;
  /** After a refusal, one request at a time until an answer says how much is left. */
  #probing = false;
  /** Requests of this process taken and not yet answered. */
  #inFlight = 0;
  /** Whether answers carry X-RateLimit-Remaining (undefined until the first answer). */
  #serverTells: boolean | undefined;
  #lastAnswerAt = -Infinity;
  /** What the server counted that no participant of the store sent, by when it was learnt. */
  #others: Array<{ at: number; count: number }> = [];
  /** This process's sends still counting, for stats(). */
  #local: Array<{ end: number }> = [];
  /** Callers waiting for admission, in queue order: the first is being admitted. */
  readonly #waiters: Waiter[] = [];
  /** When the caller being admitted expects to go. */
  #headReadyAt = 0;
  /** Wakes the admission that sleeps, when an answer may let it go sooner. */
  #kick: (() => void) | undefined;
  /** The admission sleeps until an answer comes (a probe or a slow start), not for a known time. */
  #headWaitsForAnswer = false;
  /**
   * A slot taken in the store ahead of this process's next request, while requests come in a burst,
   * on a store whose rounds cost (the file store: a lock, a read and a write, about 0.1 ms): that
   * request is sent without a store round on its path, and the round that takes the next slot ahead
   * runs while it is answered. `cap` is the cap it was taken under, `epoch` what the limiter knew then.
   */
  #ahead: { held: Omit<Held, 'local'>; takenAt: number; cap: number; epoch: number } | undefined;
  #takingAhead = false;
  #aheadTimer: NodeJS.Timeout | undefined;
  /** Changes with what makes a slot taken ahead stale: a pause, a refusal, the store failing. */
  #epoch = 0;
  #lastTakeAt = -Infinity;
  /** The last take's count (WindowTake.count): how full the window was, as last seen. */
  #lastCount = 0;

  constructor(opts: RateLimiterOptions = {}) {
    this.#limit = opts.limit ?? 120;
    this.#windowMs = opts.windowMs ?? 60_000;
    this.#holdMs = this.#windowMs + (opts.safetyMs ?? Math.max(10, this.#windowMs / 100));
    this.#leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
    this.#now = opts.now ?? Date.now;
    this.#key = opts.key ?? 'budget:default';
    this.#fallback = new MemoryStore({ now: this.#now });
    this.waitReportMs = opts.waitReportMs ?? DEFAULT_WAIT_REPORT_MS;
    this.#onStoreError = opts.onStoreError ?? defaultStoreError;
    this.#refuseWithoutStore = opts.refuseWithoutStore ?? false;
    const store = opts.store ?? this.#fallback;
    if ('then' in store) {
      this.#opening = store.then(
        (opened) => (this.#shared = opened),
        (err: unknown) => {
          this.#onStoreError(err);
          this.#shared = this.#fallback;
          return this.#fallback;
        },
      );
    } else {
      this.#shared = store;
    }
  }

  /**
   * Run `fn` once a request is allowed, and count it until a window after its answer (or not at all
   * when `refused` says the server refused it). An abort while waiting rejects with the signal's reason.
   */
  async schedule<T>(fn: () => Promise<T>, opts: ScheduleOptions<T> = {}): Promise<T> {
    const { signal, onWait } = opts;
    const maxWaitMs = opts.maxWaitMs ?? Infinity;
    if (signal?.aborted) throw signal.reason;
    let held: Held | undefined;
    // Fast path: nobody waiting and nothing local in the way: one take, no queue.
    if (this.#queue.size === 0 && this.#queue.pending === 0 && this.#localDelay(this.#now()) <= 0) {
      const taken = await this.#take();
      if ('held' in taken) held = taken.held;
      else {
        this.#headReadyAt = this.#now() + taken.waitMs;
        if (taken.waitMs > maxWaitMs) throw refusal(taken.waitMs, maxWaitMs, 0);
      }
    }
    if (held === undefined) {
      // Refused before it queues: a wait past the bound would only end in the same answer, later.
      const expected = this.#estimate(this.#waiters.length);
      if (expected > maxWaitMs) throw refusal(expected, maxWaitMs, 0);
      publishBudgetWait({ expectedMs: expected });
      held = await this.#waitForSlot(signal, onWait, maxWaitMs);
    }
    let value: T | undefined;
    let answered = false;
    try {
      value = await fn();
      answered = true;
      return value;
    } finally {
      const refused = answered && (opts.refused?.(value as T) ?? false);
      const observed = answered ? opts.observation?.(value as T) : undefined;
      this.#settle(held, answered, refused, observed);
    }
  }

  /** Learn from an answer outside schedule(): a refusal's Retry-After, or the server's limit. */
  observe(headers: RateLimitObservation): void {
    const now = this.#now();
    if (headers.limit !== undefined && headers.limit > 0) this.#serverLimit = headers.limit;
    if (headers.retryAfterSeconds !== undefined) {
      this.#pause(now, headers.retryAfterSeconds * 1000);
      return;
    }
    if (headers.remaining !== undefined) {
      this.#serverTells = true;
      this.#lastAnswerAt = now;
      this.#probing = false;
      this.#wake();
    }
  }

  /** How long the server asked this token to wait (Retry-After) from now; 0 when not paused. */
  pausedForMs(): number {
    return Math.max(0, this.#pausedUntil - this.#now());
  }

  stats(): { sentInWindow: number; queued: number } {
    const now = this.#now();
    this.#local = this.#local.filter((s) => s.end > now);
    return { sentInWindow: this.#local.length, queued: this.#queue.size + this.#queue.pending };
  }

  async #waitForSlot(signal: AbortSignal | undefined, onWait: ((waitMs: number) => void) | undefined, maxWaitMs: number): Promise<Held> {
    const now = this.#now();
    const waiter: Waiter = { onWait, deadline: now + maxWaitMs, refuse: new AbortController(), queuedAt: now, maxWaitMs };
    this.#waiters.push(waiter);
    let timer: NodeJS.Timeout | undefined;
    // Still queued when the bound runs out: refused then, whatever was expected when it queued.
    const bound = Number.isFinite(maxWaitMs) ? setTimeout(() => this.#refuse(waiter), maxWaitMs) : undefined;
    bound?.unref();
    if (onWait) {
      // A report that fails (its client went away) must not cost the request its turn.
      const report = () => {
        try {
          onWait(this.#estimate(Math.max(0, this.#waiters.indexOf(waiter))));
        } catch {
          // nothing to do: the caller's own signal ends the wait if it must end
        }
      };
      report();
      timer = setInterval(report, this.waitReportMs);
      timer.unref();
    }
    const ended = signal ? AbortSignal.any([signal, waiter.refuse.signal]) : waiter.refuse.signal;
    try {
      return await this.#queue.add(({ signal: taskSignal }) => this.#admit(waiter, taskSignal), { signal: ended });
    } catch (err) {
      // The caller's own cancellation wins over a refusal that came with it.
      if (waiter.refuse.signal.aborted && !signal?.aborted) throw waiter.refuse.signal.reason;
      throw err;
    } finally {
      clearInterval(timer);
      clearTimeout(bound);
      const i = this.#waiters.indexOf(waiter);
      if (i >= 0) this.#waiters.splice(i, 1);
    }
  }

  async #admit(waiter: Waiter, signal: AbortSignal | undefined): Promise<Held> {
    for (;;) {
      if (signal?.aborted) throw signal.reason;
      const now = this.#now();
      const local = this.#localDelay(now);
      if (local > 0) {
        // Waiting for an answer has no known end: guess the budget's average pace for reports.
        this.#headReadyAt = now + (local === Infinity ? this.#windowMs / this.#limit : local);
        if (local !== Infinity && now + local > waiter.deadline) this.#refuse(waiter);
        this.#refuseHopeless();
        await this.#sleepOrKick(local, signal);
        continue;
      }
      const taken = await this.#take();
      if ('held' in taken) {
        // Refused or cancelled while the store answered: the caller is gone (its add() has already
        // rejected), so the slot it would have used goes back at once, counted as never sent.
        if (signal?.aborted) {
          this.#settle(taken.held, false, true, undefined);
          throw signal.reason;
        }
        return taken.held;
      }
      // The window is full under a cap narrowed by others: look again when that sighting ages out.
      const wait = Math.min(taken.waitMs, this.#othersAgeOutIn(this.#now()));
      this.#headReadyAt = this.#now() + wait;
      // The store knows what this process cannot (others' slots): a slot past the bound is refused now.
      if (this.#now() + taken.waitMs > waiter.deadline) this.#refuse(waiter);
      this.#refuseHopeless();
      await this.#sleepOrKick(wait, signal);
    }
  }

  /** End `waiter`'s wait with a refusal saying when a slot is expected (it takes no slot). */
  #refuse(waiter: Waiter): void {
    if (waiter.refuse.signal.aborted) return;
    const now = this.#now();
    const i = this.#waiters.indexOf(waiter);
    const expected = Math.max(1, i < 0 ? this.#windowMs : this.#estimate(i));
    waiter.refuse.abort(refusal(expected, waiter.maxWaitMs, now - waiter.queuedAt));
  }

  /** Callers behind the first whose expected turn is now past their bound: told at once, not at the bound. */
  #refuseHopeless(): void {
    if (this.#waiters.length < 2) return;
    const now = this.#now();
    // One look at the window for the whole line: each caller's estimate is then a lookup.
    const waits = this.#waitsFor();
    const hopeless = this.#waiters.filter((w, ahead) => ahead > 0 && Number.isFinite(w.deadline) && now + this.#estimate(ahead, waits) > w.deadline);
    for (const w of hopeless) this.#refuse(w);
  }

  /**
   * How long a caller with `ahead` callers queued before it may expect to wait for its slot, from
   * what this process knows: a pause, the first in line's wait, and this process's own slots still
   * counting (an unanswered one counts a whole hold from now, at least), each freeing room for one
   * caller in turn, then again a hold later; for any place in line, from one look at the slots.
   * Slots of other participants of the store are seen only when the first in line tries the store:
   * a caller queued on this estimate is refused then if its bound cannot be met.
   */
  #waitsFor(): (ahead: number) => number {
    const now = this.#now();
    const paused = Math.max(0, this.#pausedUntil - now);
    const headWait = Math.max(0, this.#headReadyAt - now);
    const head = (ahead: number) => (ahead > 0 || this.#queue.pending > 0 ? headWait : 0);
    const cap = this.#cap(now);
    if (cap <= 0) {
      const others = this.#othersAgeOutIn(now);
      return (ahead) => Math.max(paused, head(ahead), others);
    }
    const ends: number[] = [];
    let unanswered = 0;
    for (const s of this.#local) {
      if (s.end === Infinity) unanswered++;
      if (s.end > now) ends.push(s.end === Infinity ? now + this.#holdMs : s.end);
    }
    // Takes still on their way to the store count as slots too (in flight, not yet recorded).
    for (let i = unanswered; i < this.#inFlight; i++) ends.push(now + this.#holdMs);
    ends.sort((a, b) => a - b);
    const free = Math.max(0, cap - ends.length);
    // Room opens in the order the slots end: the free ones now, then each end; past those, a hold later.
    const cycle = free + ends.length;
    const skip = Math.max(0, ends.length - cap);
    return (ahead) => {
      if (ahead < free) return Math.max(paused, head(ahead));
      const i = ahead + skip;
      const k = i % cycle;
      const at = (k < free ? now : (ends[k - free] as number)) + Math.floor(i / cycle) * this.#holdMs;
      return Math.max(paused, head(ahead), at - now);
    };
  }

  /** Until the oldest sighting of others is a window old (and the cap may widen); Infinity if none. */
  #othersAgeOutIn(now: number): number {
    const first = this.#others[0];
    return first === undefined ? Infinity : Math.max(1, first.at + this.#windowMs - now);
  }

  /**
   * What this process knows that the store does not, as a delay from `now`: <= 0 go ahead (subject
   * to the store), Infinity until an answer comes.
   */
  #localDelay(now: number): number {
    const paused = this.#pausedUntil - now;
    if (paused > 0) return paused;
    if (this.#cap(now) <= 0) {
      // Others hold the whole budget, as last seen: until that sighting is a window old.
      return this.#othersAgeOutIn(now);
    }
    if (this.#probing && this.#inFlight >= 1) return Infinity;
    // Slow start: with no word from the server in this window, a few requests go out first and the
    // rest wait for their answer (which tells of consumers outside the store).
    if (this.#serverTells !== false && now - this.#lastAnswerAt > this.#windowMs && this.#inFlight >= SLOW_START) return Infinity;
    return 0;
  }

  /** Slots the window may hold: the limit, less what others outside the store spent in the last window and a slack. */
  #cap(now: number): number {
    const oldest = this.#others[0];
    if (oldest !== undefined && oldest.at <= now - this.#windowMs) {
      this.#others = this.#others.filter((o) => o.at > now - this.#windowMs);
    }
    let others = 0;
    for (const o of this.#others) others = Math.max(others, o.count);
    // A consumer outside the store spends at its own rhythm, and one look at the server's count may
    // fall just as one of its requests left the window: one request of slack for it.
    return Math.min(this.#limit, this.#serverLimit - (others > 0 ? others + 1 : 0));
  }

  async #take(): Promise<{ held: Held } | { waitMs: number }> {
    const now = this.#now();
    const limits = { limit: this.#cap(now), windowMs: this.#windowMs, holdMs: this.#holdMs, leaseMs: this.#leaseMs };
    // Counted in flight before the take resolves, so concurrent fast paths see each other.
    this.#inFlight++;
    const alone = now < this.#storeDownUntil && !this.#refuseWithoutStore;
    let store: SlidingWindowStore = alone ? this.#fallback : (this.#shared ?? (await this.#opening) ?? this.#fallback);
    const inBurst = store.takesAhead === true && now - this.#lastTakeAt < AHEAD_KEEP_MS;
    this.#lastTakeAt = now;
    let taken: WindowTake | undefined = this.#useAhead(store, now, limits.limit);
    try {
      try {
        if (taken === undefined) {
          const own = store.takeSlot(this.#key, limits);
          // Asked in the same round, after this request's own slot and those of the requests started
          // with it (their takes are asked before the next tick): the last free slot goes to a
          // request, not ahead.
          if (inBurst) process.nextTick(() => this.#takeAhead(store, limits));
          taken = await own;
        } else if (inBurst) {
          // In a round of its own, which starts once this request is sent; after the slots of the
          // requests started with this one, as above.
          process.nextTick(() => this.#takeAhead(store, limits));
        }
      } catch (err) {
        if (store === this.#fallback) throw err;
        this.#storeFailed(err);
        if (this.#refuseWithoutStore) throw storeRefusal(err);
        store = this.#fallback;
        taken = await store.takeSlot(this.#key, limits);
      }
    } catch (err) {
      this.#takeUndone();
      throw err;
    }
    if (!taken.taken) {
      this.#takeUndone();
      if (taken.paused) this.#pausedByOther(taken.waitMs);
      return { waitMs: taken.waitMs };
    }
    this.#lastCount = taken.count;
    const local = { end: Infinity };
    // stats() prunes too, but nothing may call it: keep the record to about a window's sends.
    if (this.#local.length >= 2 * this.#limit) {
      const now = this.#now();
      this.#local = this.#local.filter((s) => s.end > now);
    }
    this.#local.push(local);
    return { held: { store, slot: taken.slot, count: taken.count, seq: taken.seq, local } };
  }

  /** Another participant was refused and shared its Retry-After (the store's window is paused). */
  #pausedByOther(waitMs: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, this.#now() + waitMs);
  }

  /**
   * The slot taken ahead, for this request, when it is still good: taken in the same store, under a
   * cap no wider than now, before nothing that made it stale (a pause, a refusal, the store failing),
   * and recently. One that is not goes back.
   */
  #useAhead(store: SlidingWindowStore, now: number, cap: number): WindowTake | undefined {
    const ahead = this.#ahead;
    if (ahead === undefined) return undefined;
    this.#ahead = undefined;
    clearTimeout(this.#aheadTimer);
    if (ahead.held.store !== store || ahead.epoch !== this.#epoch || cap < ahead.cap || now - ahead.takenAt > AHEAD_KEEP_MS) {
      this.#giveBack(ahead.held);
      return undefined;
    }
    const { slot, count, seq } = ahead.held;
    return { taken: true, slot, count, seq };
  }

  /**
   * Take the slot of this process's next request now, in a burst (the caller checked): one at a
   * time, and only while the window is at most half full, so that a slot held ahead is never one
   * another participant of the store waits for. It counts in the window from now (longer than its
   * request will need: safe), and goes back unused after AHEAD_KEEP_MS. Killed while it holds one, a
   * process leaves it counting until its lease ends, as it would a request in flight.
   */
  #takeAhead(store: SlidingWindowStore, limits: WindowLimits): void {
    if (this.#ahead !== undefined || this.#takingAhead || store === this.#fallback || this.#lastCount + 1 > limits.limit / 2) return;
    this.#takingAhead = true;
    const epoch = this.#epoch;
    store.takeSlot(this.#key, limits).then(
      (t) => {
        this.#takingAhead = false;
        if (!t.taken) {
          if (t.paused) this.#pausedByOther(t.waitMs);
          return;
        }
        this.#lastCount = t.count;
        const held = { store, slot: t.slot, count: t.count, seq: t.seq };
        if (epoch !== this.#epoch || this.#ahead !== undefined || t.count > limits.limit / 2) {
          this.#giveBack(held);
          return;
        }
        this.#ahead = { held, takenAt: this.#now(), cap: limits.limit, epoch };
        clearTimeout(this.#aheadTimer);
        this.#aheadTimer = setTimeout(() => this.giveBackAhead(), AHEAD_KEEP_MS);
        this.#aheadTimer.unref();
      },
      (err: unknown) => {
        this.#takingAhead = false;
        this.#storeFailed(err);
      },
    );
  }

  /** Give back the slot taken ahead, if any (unused for a while, or the client closing). */
  giveBackAhead(): void {
    const ahead = this.#ahead;
    this.#ahead = undefined;
    clearTimeout(this.#aheadTimer);
    if (ahead !== undefined) this.#giveBack(ahead.held);
  }

  /**
   * A slot no request was sent on leaves the window at once, as a refused one does. The admission
   * looks again once it has: a request of this process taken in the same round after the slot ahead
   * may have found the window full because of it.
   */
  #giveBack(held: Omit<Held, 'local'>): void {
    held.store.settleSlot(this.#key, held.slot, { refused: true, holdMs: this.#holdMs, leaseMs: this.#leaseMs }).then(
      () => this.#wake(),
      (err: unknown) => this.#storeFailed(err),
    );
  }

  /**
   * A take that did not end in a request: it no longer counts in flight. An admission asleep until
   * an answer comes (a slow start counted this take among the requests out) would wait for an answer
   * that never comes: it looks again. (A full window at start-up, every take of a burst refused, left
   * every request of the process waiting for good.)
   */
  #takeUndone(): void {
    this.#inFlight--;
    if (this.#headWaitsForAnswer) this.#wake();
  }

  /**
   * The request is over. What the next admission must know at once (a refusal's pause) is set before
   * the caller sees the answer; the store's bookkeeping runs on without holding the answer back (until
   * it lands the slot counts by its lease: safe, and a store round trip off every call's latency).
   */
  #settle(held: Held, answered: boolean, refused: boolean, observed: RateLimitObservation | undefined): void {
    this.#inFlight--;
    if (refused) this.#epoch++;
    const now = this.#now();
    held.local.end = refused ? -Infinity : now + this.#holdMs;
    if (observed?.retryAfterSeconds !== undefined) {
      if (observed.limit !== undefined && observed.limit > 0) this.#serverLimit = observed.limit;
      this.#pause(now, observed.retryAfterSeconds * 1000);
    }
    void this.#record(held, refused, answered && observed?.retryAfterSeconds === undefined ? (observed ?? {}) : undefined);
  }

  async #record(held: Held, refused: boolean, observed: RateLimitObservation | undefined): Promise<void> {
    let seq = held.seq;
    try {
      seq = (await held.store.settleSlot(this.#key, held.slot, { refused, holdMs: this.#holdMs, leaseMs: this.#leaseMs })).seq;
    } catch (err) {
      // Its slot counts until the lease ends: safe, only slower.
      this.#storeFailed(err);
    }
    // An answer without rate-limit headers (or a caller that reads none) still ends a slow start.
    if (observed !== undefined) this.#learn(this.#now(), observed, held.count + Math.max(0, seq - held.seq));
    // Worth another look at the window only when this answer may let the next request go sooner: a
    // refusal gave its slot back, or the admission waited for an answer.
    if (refused || this.#headWaitsForAnswer) this.#wake();
  }

  /**
   * An answer's headers. The server counted `limit - remaining` requests when it stamped this one;
   * the store's participants can account for at most `participants` of them (the window as this
   * request was taken, and every take since), so the rest were others'.
   */
  #learn(now: number, obs: RateLimitObservation, participants: number): void {
    this.#lastAnswerAt = now;
    // The first answer after a refusal is a fresh look at the server's count: what others spent
    // before, and no longer spend, stops narrowing the window (a one-off request from elsewhere
    // costs one pause, not a window of reduced pace).
    const fresh = this.#probing;
    this.#probing = false;
    if (fresh && obs.remaining !== undefined) this.#others = [];
    if (obs.limit !== undefined && obs.limit > 0) this.#serverLimit = obs.limit;
    if (obs.remaining === undefined) {
      this.#serverTells ??= false;
      return;
    }
    this.#serverTells = true;
    const serverLimit = Number.isFinite(this.#serverLimit) ? this.#serverLimit : this.#limit;
    const others = serverLimit - obs.remaining - participants;
    if (others > 0) this.#others.push({ at: now, count: others });
  }

  #pause(now: number, retryAfterMs: number): void {
    // Retry-After is exact at its edge (the refused slot frees then), and a timer may fire a hair
    // early: a small margin keeps the probe from being refused again.
    const ms = retryAfterMs + RETRY_AFTER_MARGIN_MS;
    this.#pausedUntil = Math.max(this.#pausedUntil, now + ms);
    this.#probing = true;
    this.#epoch++;
    // A slot taken ahead would only wait out the pause (longer than it is kept): back at once.
    this.giveBackAhead();
    // Every participant of the store would be refused too: they pause with us.
    const shared = this.#shared;
    if (shared !== undefined && shared !== this.#fallback && now >= this.#storeDownUntil) {
      shared.pauseWindow(this.#key, ms).catch((err: unknown) => this.#storeFailed(err));
    }
  }

  #storeFailed(err: unknown): void {
    this.#epoch++;
    const now = this.#now();
    if (now >= this.#storeDownUntil) this.#onStoreError(err);
    this.#storeDownUntil = now + STORE_RETRY_MS;
  }

  /**
   * How long a caller with `ahead` callers before it may still wait: the first in line's wait (when
   * one is being admitted) and a window per full budget ahead of it, or what this process's own slots
   * say (#waitsFor) when that is later.
   */
  #estimate(ahead: number, waits: (ahead: number) => number = this.#waitsFor()): number {
    const now = this.#now();
    const perWindow = Math.max(1, this.#cap(now));
    const head = ahead > 0 || this.#queue.pending > 0 ? Math.max(0, Math.ceil(this.#headReadyAt - now)) : 0;
    return Math.max(head + Math.floor(ahead / perWindow) * this.#windowMs, Math.ceil(waits(ahead)));
  }

  #wake(): void {
    const kick = this.#kick;
    this.#kick = undefined;
    kick?.();
  }

  /** Sleep `ms` (Infinity: until woken), or less when an answer wakes the admission. */
  #sleepOrKick(ms: number, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    this.#headWaitsForAnswer = ms === Infinity;
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const finish = (aborted: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (this.#kick === wake) this.#kick = undefined;
        this.#headWaitsForAnswer = false;
        if (aborted) reject(signal?.reason);
        else resolve();
      };
      const wake = () => finish(false);
      const onAbort = () => finish(true);
      this.#kick = wake;
      if (ms !== Infinity) timer = setTimeout(wake, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

function refusal(retryAfterMs: number, boundMs: number, waitedMs: number): BudgetWaitTooLongError {
  publishBudgetRefusal({ retryAfterMs, waitedMs });
  return new BudgetWaitTooLongError(retryAfterMs, boundMs, waitedMs);
}

/** The shared budget cannot be asked (refuseWithoutStore): nothing was sent, the same call shortly may go. */
function storeRefusal(cause: unknown): WorkspaceApiError {
  const err = new WorkspaceApiError(
    503,
    BRIEFLY_UNAVAILABLE,
    "The workspace is briefly unavailable (this server's shared rate budget is unreachable). Nothing was sent: retry this call in a few seconds.",
    {},
    STORE_RETRY_MS / 1000,
  );
  err.cause = cause;
  return err;
}

function defaultStoreError(err: unknown): void {
  process.emitWarning(
    `The shared rate budget is unavailable (${err instanceof Error ? err.message : String(err)}); counting this process's requests on its own for a few seconds.`,
  );
}

const byToken = new Map<string, RateLimiter>();

/**
 * The limiter of one token in this process: the budget belongs to the token, so every client using
 * it (several sessions over the HTTP transport) must draw on one limiter. With a shared `store` its
 * window (`budget:<fingerprint>:<limit>/<window ms>`) is shared with every process and replica using
 * that store with the same rate: processes told different rates (WORKSPACE_RATE_LIMIT) describe the
 * budget differently and could not keep one window true to both, so they count apart.
 */
export function limiterFor(tokenFingerprint: string, opts?: RateLimiterOptions): RateLimiter {
  let limiter = byToken.get(tokenFingerprint);
  if (limiter === undefined) {
    const rate = `${opts?.limit ?? 120}/${opts?.windowMs ?? 60_000}`;
    limiter = new RateLimiter({ key: `budget:${tokenFingerprint}:${rate}`, ...opts });
    byToken.set(tokenFingerprint, limiter);
  }
  return limiter;
}
