// The rate budget on the client side, so a busy assistant spends the workspace's 120 requests a
// minute per token without being refused (a refused request still counts in the member's usage).
// Its invariants and mechanisms are written once, in docs/architecture.md, "Rate budget": the exact
// window in the state store (src/store/windows.ts), the others the server's answers reveal, the pause
// on Retry-After, the bounded wait, the waiter's look again at the store, and the job polls' share.
import { StoreClosedError } from '../store/state-store.js';
import type { SlidingWindowStore, WindowTake } from '../store/windows.js';
import { publishBudgetRefusal, publishBudgetWait } from './diagnostics.js';
import { BRIEFLY_UNAVAILABLE, BudgetWaitTooLongError, WorkspaceApiError } from './errors.js';
import { sleep } from './retry.js';

/** Requests sent before the first answer of a window tells how much of the budget is left. */
const SLOW_START = 4;
/** How long a request in flight counts at most, if its process dies before the answer. */
const LEASE_MS = 5 * 60_000;
/** How often a caller still waiting hears again how long it may wait. */
const DEFAULT_WAIT_REPORT_MS = 5_000;
/** Added to a Retry-After: past its edge, whatever the clocks' granularity. */
const RETRY_AFTER_MARGIN_MS = 20;
/** After the shared store failed, how long this process counts on its own before trying it again. */
const STORE_RETRY_MS = 5_000;
/** The first wait before a settle the store failed to write is written again; doubled each time, to STORE_RETRY_MS. */
const SETTLE_RETRY_MS = 250;
/** The share of the budget job polls may hold, all of a limiter's together. */
export const POLL_SHARE = 0.25;

interface RateLimiterOptions {
  /** Requests allowed in any rolling window. Default 120. */
  limit?: number;
  /** The rolling window. Default 60 s. */
  windowMs?: number;
  /** Extra time a request stays counted, for timer and clock granularity. Default 1% of the window, at least 10 ms. */
  safetyMs?: number;
  now?: () => number;
  /** Where the window is kept (a shared one makes the budget exact across processes), maybe still opening. Default: none, this process's own sends alone. */
  store?: SlidingWindowStore | Promise<SlidingWindowStore>;
  /** The window's key in the store. Default `budget:default`. */
  key?: string;
  /** How often `onWait` is called again while a caller waits. Default 5 s. */
  waitReportMs?: number;
  /** The shared store failed; the limiter counts alone for a few seconds. Default: a process warning. */
  onStoreError?: (err: unknown) => void;
  /** While the store fails, refuse calls (503, nothing sent) rather than count alone (docs/architecture.md, Rate budget). */
  refuseWithoutStore?: boolean;
}

interface RateLimitObservation {
  limit?: number;
  remaining?: number;
  retryAfterSeconds?: number;
}

interface ScheduleOptions<T> {
  /** Aborts the wait (rejecting with the signal's reason); a request already sent is the caller's. */
  signal?: AbortSignal;
  /** Whether an answer was a refusal (429): a refused request does not count. */
  refused?: (value: T) => boolean;
  /** An answer's rate-limit headers (Retry-After for a refusal), learnt before the next admission. */
  observation?: (value: T) => RateLimitObservation | undefined;
  /** Called when this request must wait, then every `waitReportMs` while it waits. */
  onWait?: (waitMs: number) => void;
  /** The longest this request may wait for its slot (BudgetWaitTooLongError; docs/architecture.md, Rate budget). Unset: no bound. */
  maxWaitMs?: number;
  /** A job's poll: it waits, outside the line, for room in the polls' share first. */
  poll?: boolean;
}

/** One request of this process, from its take: when it stops counting (Infinity while unanswered). */
interface Send {
  end: number;
}

/** A slot this process holds. `count` and `seq` as the take answered (WindowTake). */
interface Held {
  /** Where it was taken; undefined: counted alone, on this process's sends. */
  store: SlidingWindowStore | undefined;
  slot: string;
  count: number;
  seq: number;
  /** This process's takes in `store` so far, this one included. */
  takes: number;
  takenAt: number;
  local: Send;
}

interface Waiter {
  onWait: ((waitMs: number) => void) | undefined;
  /** When it must have its slot (Infinity: no bound). */
  deadline: number;
  /** Ends its wait with a refusal. */
  refuse: AbortController;
  queuedAt: number;
  maxWaitMs: number;
  /** Starts its admission, once it is first in line. */
  first?: () => void;
}

/**
 * Admits requests so that no rolling window holds more than `limit` of them, from every participant
 * of the store, and fewer when the server shows others spending the same budget. Callers that must
 * wait stand in one line (#waiters), admitted first come first served; the requests themselves run
 * concurrently.
 */
export class RateLimiter {
  readonly #now: () => number;
  readonly #windowMs: number;
  /** How long an answered request keeps counting: the window and the safety margin. */
  readonly #holdMs: number;
  readonly #limit: number;
  readonly #key: string;
  /** The longest a waiter sleeps between looks at the store: one slot's share of the window. */
  readonly #recheckMs: number;
  /** Polls that may count at once: the polls' share of the limit. */
  readonly #pollCap: number;
  /** The shortest gap between two polls of one job: one job alone may use the polls' whole share. */
  readonly pollIntervalMs: number;
  #shared: SlidingWindowStore | undefined;
  #opening: Promise<SlidingWindowStore | undefined> | undefined;
  readonly #onStoreError: (err: unknown) => void;
  readonly #refuseWithoutStore: boolean;
  readonly waitReportMs: number;
  #storeDownUntil = 0;
  /** X-RateLimit-Limit, once an answer says. */
  #serverLimit = Infinity;
  /** No send before this time (Retry-After). */
  #pausedUntil = 0;
  /** After a refusal, one request at a time until an answer says how much is left. */
  #probing = false;
  /** Requests of this process taken and not yet answered. */
  #inFlight = 0;
  /** Whether answers carry X-RateLimit-Remaining (undefined until the first answer). */
  #serverTells: boolean | undefined;
  #lastAnswerAt = -Infinity;
  /** Requests that may be unanswered at once: others show only in answers (docs/architecture.md, Rate budget). */
  #ramp = SLOW_START;
  /** What the server counted that no participant of the store sent, by when it was learnt. */
  #others: Array<{ at: number; count: number }> = [];
  /** This process's sends still counting, wherever taken: what it counts alone on. */
  #local: Send[] = [];
  /** The job polls' sends still counting, and places taken by polls on their way to a slot. */
  #polls: Send[] = [];
  /** This process's takes, by store (undefined: alone): its own share of a window's seq, known without reading it. */
  readonly #takesIn = new Map<SlidingWindowStore | undefined, number>();
  /** Callers waiting, in line: the first is being admitted. */
  readonly #waiters: Waiter[] = [];
  /** When the caller being admitted expects to go. */
  #headReadyAt = 0;
  /** Wakes the sleeping admission. */
  #kick: (() => void) | undefined;
  /** The admission sleeps until an answer comes (a probe or a slow start). */
  #headWaitsForAnswer = false;

  constructor(opts: RateLimiterOptions = {}) {
    this.#limit = opts.limit ?? 120;
    this.#windowMs = opts.windowMs ?? 60_000;
    this.#holdMs = this.#windowMs + (opts.safetyMs ?? Math.max(10, this.#windowMs / 100));
    this.#recheckMs = Math.max(1, this.#windowMs / this.#limit);
    this.#pollCap = Math.max(1, Math.floor(this.#limit * POLL_SHARE));
    this.pollIntervalMs = this.#windowMs / this.#pollCap;
    this.#now = opts.now ?? Date.now;
    this.#key = opts.key ?? 'budget:default';
    this.waitReportMs = opts.waitReportMs ?? DEFAULT_WAIT_REPORT_MS;
    this.#onStoreError = opts.onStoreError ?? defaultStoreError;
    this.#refuseWithoutStore = opts.refuseWithoutStore ?? false;
    const store = opts.store;
    if (store === undefined || !('then' in store)) this.#shared = store;
    else
      this.#opening = store.then(
        (opened) => (this.#shared = opened),
        (err: unknown) => {
          this.#onStoreError(err);
          return undefined;
        },
      );
  }

  /** Run `fn` once a request is allowed; it counts until a hold after its answer, or not at all if refused. */
  async schedule<T>(fn: () => Promise<T>, opts: ScheduleOptions<T> = {}): Promise<T> {
    const { signal, onWait } = opts;
    if (signal?.aborted) throw signal.reason;
    const askedAt = this.#now();
    const poll = opts.poll ? await this.#pollPlace(signal, opts.maxWaitMs ?? Infinity) : undefined;
    const maxWaitMs = (opts.maxWaitMs ?? Infinity) - (this.#now() - askedAt);
    let held: Held | undefined;
    try {
      // Fast path: nobody waiting and nothing local in the way: one take, no line.
      if (this.#waiters.length === 0 && this.#localDelay(this.#now()) <= 0) {
        const taken = await this.#take(poll);
        if ('held' in taken) held = this.#keep(taken.held, signal);
        else {
          this.#headReadyAt = this.#now() + taken.waitMs;
          if (taken.waitMs > maxWaitMs) throw refusal(taken.waitMs, maxWaitMs, 0);
        }
      }
      if (held === undefined) {
        // A wait past the bound would only end in the same answer, later.
        const expected = this.#estimate(this.#waiters.length);
        if (expected > maxWaitMs) throw refusal(expected, maxWaitMs, 0);
        publishBudgetWait({ expectedMs: expected });
        held = await this.#waitForSlot(signal, onWait, maxWaitMs, poll);
      }
    } finally {
      // A poll that never went counts for nothing.
      if (poll !== undefined && held === undefined) poll.end = -Infinity;
    }
    let value: T | undefined;
    let answered = false;
    try {
      value = await fn();
      answered = true;
      return value;
    } finally {
      const refused = answered && (opts.refused?.(value as T) ?? false);
      this.#settle(held, answered, refused, answered ? opts.observation?.(value as T) : undefined);
    }
  }

  /** The rolling window the budget counts in. */
  get windowMs(): number {
    return this.#windowMs;
  }

  /** Learn from an answer outside schedule(): a refusal's Retry-After, or the server's limit. */
  observe(headers: RateLimitObservation): void {
    if (headers.limit !== undefined && headers.limit > 0) this.#serverLimit = headers.limit;
    if (headers.retryAfterSeconds !== undefined) this.#pause(this.#now(), headers.retryAfterSeconds * 1000);
  }

  /** How long the server asked this token to wait (Retry-After) from now; 0 when not paused. */
  pausedForMs(): number {
    return Math.max(0, this.#pausedUntil - this.#now());
  }

  stats(): { sentInWindow: number; queued: number } {
    return { sentInWindow: this.#counting(this.#now()).length, queued: this.#waiters.length };
  }

  /** This process's sends still counting at `now` (the list pruned). */
  #counting(now: number): Send[] {
    this.#local = this.#local.filter((s) => s.end > now);
    return this.#local;
  }

  /**
   * A place among the job polls: the polls' sends still counting (from their take until a hold after
   * their answer, as every slot) stay under the polls' share. Waits outside the line, so a poll
   * waiting for its share holds no other call up; refused when none frees within `maxWaitMs`.
   */
  async #pollPlace(signal: AbortSignal | undefined, maxWaitMs: number): Promise<Send> {
    const askedAt = this.#now();
    for (;;) {
      const now = this.#now();
      this.#polls = this.#polls.filter((p) => p.end > now);
      if (this.#polls.length < this.#pollCap) {
        const place = { end: Infinity };
        this.#polls.push(place);
        return place;
      }
      // The first to free; one unanswered frees a hold after its answer at the soonest.
      const free = Math.min(now + this.#holdMs, ...this.#polls.map((p) => p.end));
      if (free - askedAt > maxWaitMs) throw refusal(free - now, maxWaitMs, now - askedAt);
      await sleep(Math.min(free - now, this.pollIntervalMs), signal);
    }
  }

  /** A slot taken for a caller gone while the store answered goes back, as never sent. A waiter leaves the line now, before the next admission. */
  #keep(held: Held, signal: AbortSignal | undefined, waiter?: Waiter): Held {
    if (waiter) this.#leave(waiter);
    if (!signal?.aborted) return held;
    this.#settle(held, false, true, undefined);
    throw signal.reason;
  }

  async #waitForSlot(signal: AbortSignal | undefined, onWait: Waiter['onWait'], maxWaitMs: number, poll: Send | undefined): Promise<Held> {
    const now = this.#now();
    const waiter: Waiter = { onWait, deadline: now + maxWaitMs, refuse: new AbortController(), queuedAt: now, maxWaitMs };
    this.#waiters.push(waiter);
    // Still waiting when the bound runs out: refused then, whatever was expected when it came.
    const bound = Number.isFinite(maxWaitMs) ? setTimeout(() => this.#refuse(waiter), maxWaitMs).unref() : undefined;
    // A report that fails (its client went away) must not cost the request its turn.
    const report = () => {
      try {
        onWait?.(this.#estimate(Math.max(0, this.#waiters.indexOf(waiter))));
      } catch {}
    };
    if (onWait) report();
    const timer = onWait ? setInterval(report, this.waitReportMs).unref() : undefined;
    const ended = signal ? AbortSignal.any([signal, waiter.refuse.signal]) : waiter.refuse.signal;
    try {
      await this.#turn(waiter, ended);
      return await this.#admit(waiter, ended, poll);
    } catch (err) {
      // The caller's own cancellation wins over a refusal that came with it.
      throw waiter.refuse.signal.aborted && !signal?.aborted ? waiter.refuse.signal.reason : err;
    } finally {
      clearInterval(timer);
      clearTimeout(bound);
      this.#leave(waiter);
    }
  }

  /** Resolves once `waiter` is first in line; rejects when `signal` ends its wait before. */
  #turn(waiter: Waiter, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.#waiters[0] === waiter) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      waiter.first = () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
    });
  }

  /** `waiter` leaves the line (admitted, refused or gone); if it was first, the next one's admission starts. */
  #leave(waiter: Waiter): void {
    const i = this.#waiters.indexOf(waiter);
    if (i < 0) return;
    this.#waiters.splice(i, 1);
    if (i === 0) this.#waiters[0]?.first?.();
  }

  async #admit(waiter: Waiter, signal: AbortSignal, poll: Send | undefined): Promise<Held> {
    for (;;) {
      if (signal.aborted) throw signal.reason;
      const now = this.#now();
      const local = this.#localDelay(now);
      if (local > 0) {
        // Waiting for an answer has no known end: the budget's average pace, for reports.
        this.#headReadyAt = now + (local === Infinity ? this.#windowMs / this.#limit : local);
        if (now + local > waiter.deadline && local !== Infinity) this.#refuse(waiter);
        this.#refuseHopeless();
        await this.#sleepOrKick(local, signal);
        continue;
      }
      const taken = await this.#take(poll);
      if ('held' in taken) return this.#keep(taken.held, signal, waiter);
      // Full, under a cap others may narrow: look again when that sighting ages out, and at least
      // every #recheckMs, for a slot another participant gives back early (nothing tells us of it).
      const wait = Math.min(taken.waitMs, this.#othersAgeOutIn(this.#now()));
      this.#headReadyAt = this.#now() + wait;
      if (this.#now() + taken.waitMs > waiter.deadline) this.#refuse(waiter);
      this.#refuseHopeless();
      await this.#sleepOrKick(Math.min(wait, this.#recheckMs), signal);
    }
  }

  /** End `waiter`'s wait with a refusal saying when a slot is expected. */
  #refuse(waiter: Waiter): void {
    if (waiter.refuse.signal.aborted) return;
    const i = this.#waiters.indexOf(waiter);
    const expected = Math.max(1, i < 0 ? this.#windowMs : this.#estimate(i));
    waiter.refuse.abort(refusal(expected, waiter.maxWaitMs, this.#now() - waiter.queuedAt));
  }

  /** Callers behind the first whose expected turn is past their bound: told now, not at the bound. */
  #refuseHopeless(): void {
    if (this.#waiters.length < 2) return;
    const now = this.#now();
    const waits = this.#waitsFor();
    const hopeless = this.#waiters.filter((w, ahead) => ahead > 0 && Number.isFinite(w.deadline) && now + this.#estimate(ahead, waits) > w.deadline);
    for (const w of hopeless) this.#refuse(w);
  }

  /**
   * How long a caller with `ahead` callers before it may expect to wait, from what this process
   * knows: a pause, the first in line's wait, and its own slots (an unanswered one ends a hold from
   * now, at least), each freeing room for one caller in turn, then again a hold later. Others' slots
   * are seen when the first in line tries the store, and the estimates refused then.
   */
  #waitsFor(): (ahead: number) => number {
    const now = this.#now();
    const paused = Math.max(0, this.#pausedUntil - now);
    const headWait = Math.max(0, this.#headReadyAt - now);
    const head = (ahead: number) => (ahead > 0 || this.#waiters.length > 0 ? headWait : 0);
    if (this.#cap(now) <= 0) return (ahead) => Math.max(paused, head(ahead), this.#othersAgeOutIn(now));
    const cap = this.#cap(now, Math.min);
    const ends: number[] = [];
    let unanswered = 0;
    for (const s of this.#local) {
      if (s.end === Infinity) unanswered++;
      if (s.end > now) ends.push(Math.min(s.end, now + this.#holdMs));
    }
    // Takes still on their way to the store count too.
    for (let i = unanswered; i < this.#inFlight; i++) ends.push(now + this.#holdMs);
    ends.sort((a, b) => a - b);
    const free = Math.max(0, cap - ends.length);
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

  /** What this process knows that the store does not, as a delay: <= 0 go (subject to the store), Infinity until an answer. */
  #localDelay(now: number): number {
    const paused = this.#pausedUntil - now;
    if (paused > 0) return paused;
    if (this.#cap(now) <= 0) return this.#othersAgeOutIn(now);
    if (this.#probing && this.#inFlight >= 1) return Infinity;
    // Slow start: a few go first and tell of others, then one more in flight per answer that tells.
    if (this.#serverTells !== false && this.#inFlight >= (now - this.#lastAnswerAt > this.#windowMs ? SLOW_START : this.#ramp)) return Infinity;
    return 0;
  }

  /**
   * Slots the window may hold: the limit, less what others spent in the last window (the most seen;
   * estimates count on the least, as one sighting of others holding nearly all is not every window's)
   * and one of slack.
   */
  #cap(now: number, seen: (...counts: number[]) => number = Math.max): number {
    if ((this.#others[0]?.at ?? Infinity) <= now - this.#windowMs) this.#others = this.#others.filter((o) => o.at > now - this.#windowMs);
    const others = this.#others.length > 0 ? seen(...this.#others.map((o) => o.count)) : 0;
    // Another consumer spends at its own rhythm, and one look may fall just as one of its requests left.
    return Math.min(this.#limit, this.#serverLimit - (others > 0 ? others + 1 : 0));
  }

  async #take(poll: Send | undefined): Promise<{ held: Held } | { waitMs: number }> {
    const now = this.#now();
    const limits = { limit: this.#cap(now), windowMs: this.#windowMs, holdMs: this.#holdMs, leaseMs: LEASE_MS };
    // Counted in flight before the take resolves, so concurrent fast paths see each other.
    this.#inFlight++;
    let store = now < this.#storeDownUntil && !this.#refuseWithoutStore ? undefined : (this.#shared ?? (await this.#opening));
    let taken: WindowTake | undefined;
    try {
      taken = await store?.takeSlot(this.#key, limits);
    } catch (err) {
      this.#storeFailed(err);
      if (this.#refuseWithoutStore) {
        this.#takeUndone();
        throw storeRefusal(err);
      }
      store = undefined;
    }
    taken ??= this.#takeAlone(this.#now(), limits.limit);
    if (!taken.taken) {
      this.#takeUndone();
      if (taken.paused) this.#pausedUntil = Math.max(this.#pausedUntil, this.#now() + taken.waitMs);
      return { waitMs: taken.waitMs };
    }
    const local = poll ?? { end: Infinity };
    this.#counting(now).push(local);
    const takes = (this.#takesIn.get(store) ?? 0) + 1;
    this.#takesIn.set(store, takes);
    return { held: { store, slot: taken.slot, count: taken.count, seq: taken.seq, takes, takenAt: now, local } };
  }

  /**
   * A take counted on this process's sends alone (no store, or the store failing): those still
   * counting, wherever they were taken, hold their place; others' are not seen.
   */
  #takeAlone(now: number, limit: number): WindowTake {
    const sends = this.#counting(now);
    const need = sends.length - Math.max(0, limit) + 1;
    if (need <= 0) {
      const recent = now + this.#holdMs - this.#windowMs;
      return { taken: true, slot: '', count: 1 + sends.filter((s) => s.end > recent).length, seq: 0 };
    }
    // Until the need-th send stops counting; an unanswered one, no sooner than a hold.
    const end = sends.map((s) => s.end).sort((a, b) => a - b)[need - 1] as number;
    return { taken: false, waitMs: Math.max(1, Math.ceil(end === Infinity ? this.#holdMs : end - now)), paused: false };
  }

  /** A take that ended in no request: an admission asleep until an answer (a slow start counted it) looks again. */
  #takeUndone(): void {
    this.#inFlight--;
    if (this.#headWaitsForAnswer) this.#wake();
  }

  /**
   * The request is over. A refusal's pause is set before the caller sees the answer; the store's
   * bookkeeping runs on without holding the answer back (meanwhile the slot counts by its lease).
   */
  #settle(held: Held, answered: boolean, refused: boolean, observed: RateLimitObservation | undefined): void {
    this.#inFlight--;
    const now = this.#now();
    held.local.end = refused ? -Infinity : now + this.#holdMs;
    if (observed?.retryAfterSeconds !== undefined) {
      if (observed.limit !== undefined && observed.limit > 0) this.#serverLimit = observed.limit;
      this.#pause(now, observed.retryAfterSeconds * 1000);
    }
    void this.#record(held, refused, answered && observed?.retryAfterSeconds === undefined ? (observed ?? {}) : undefined);
  }

  async #record(held: Held, refused: boolean, observed: RateLimitObservation | undefined): Promise<void> {
    // Takes since this one: at least this process's own; the window's seq, read with the settle, says everyone's.
    let seq = held.seq + (this.#takesIn.get(held.store) ?? 0) - held.takes;
    try {
      if (held.store !== undefined) seq = (await held.store.settleSlot(this.#key, held.slot, { refused, holdMs: this.#holdMs, leaseMs: LEASE_MS })).seq;
    } catch (err) {
      this.#storeFailed(err);
      if (!(err instanceof StoreClosedError)) void this.#settleAgain(held, refused);
    }
    // An answer without rate-limit headers still ends a slow start.
    if (observed !== undefined) this.#learn(this.#now(), observed, held.count + Math.max(0, seq - held.seq));
    if (refused || this.#headWaitsForAnswer) this.#wake();
  }

  /**
   * A settle the store failed to write, written again until it is, or until its slot's lease ends
   * anyway (docs/architecture.md, Rate budget): meanwhile the slot counts as unanswered, never less.
   */
  async #settleAgain(held: Held, refused: boolean): Promise<void> {
    for (let wait = SETTLE_RETRY_MS; this.#now() + wait < held.takenAt + LEASE_MS; wait = Math.min(2 * wait, STORE_RETRY_MS)) {
      await new Promise((resolve) => setTimeout(resolve, wait).unref());
      try {
        await held.store?.settleSlot(this.#key, held.slot, { refused, holdMs: this.#holdMs, leaseMs: LEASE_MS });
        return;
      } catch (err) {
        this.#storeFailed(err);
        if (err instanceof StoreClosedError) return;
      }
    }
  }

  /**
   * An answer's headers: the server counted `limit - remaining` when it stamped this request; the
   * store's participants account for at most `participants` (the window at the take, and every take
   * since), so the rest were others'.
   */
  #learn(now: number, obs: RateLimitObservation, participants: number): void {
    // The first answer after a refusal is a fresh look: what others spent before stops narrowing.
    const fresh = this.#probing;
    if (fresh || now - this.#lastAnswerAt > this.#windowMs) this.#ramp = SLOW_START;
    this.#lastAnswerAt = now;
    this.#probing = false;
    if (fresh && obs.remaining !== undefined) this.#others = [];
    if (obs.limit !== undefined && obs.limit > 0) this.#serverLimit = obs.limit;
    if (obs.remaining === undefined) {
      this.#serverTells ??= false;
      return;
    }
    this.#serverTells = true;
    // Nor more than half what the server would still take: another participant may read the same.
    this.#ramp = Math.min(this.#limit, this.#ramp + 1, Math.max(SLOW_START, Math.floor(obs.remaining / 2)));
    const limit = obs.limit !== undefined && obs.limit > 0 ? obs.limit : this.#serverLimit;
    const others = (Number.isFinite(limit) ? limit : this.#limit) - obs.remaining - participants;
    if (others > 0) this.#others.push({ at: now, count: others });
  }

  #pause(now: number, retryAfterMs: number): void {
    const ms = retryAfterMs + RETRY_AFTER_MARGIN_MS;
    this.#pausedUntil = Math.max(this.#pausedUntil, now + ms);
    this.#probing = true;
    // Every participant of the store would be refused too: they pause with us.
    if (this.#shared !== undefined && now >= this.#storeDownUntil) {
      this.#shared.pauseWindow(this.#key, ms).catch((err: unknown) => this.#storeFailed(err));
    }
  }

  /** The store failed: this process counts alone (or refuses) for a while, saying so once. A store closed on purpose failed nothing. */
  #storeFailed(err: unknown): void {
    const now = this.#now();
    if (now >= this.#storeDownUntil && !(err instanceof StoreClosedError)) this.#onStoreError(err);
    this.#storeDownUntil = now + STORE_RETRY_MS;
  }

  /** How long a caller with `ahead` callers before it may wait: the head's wait and a window per full budget ahead, or #waitsFor's if later. */
  #estimate(ahead: number, waits: (ahead: number) => number = this.#waitsFor()): number {
    const now = this.#now();
    const head = ahead > 0 || this.#waiters.length > 0 ? Math.max(0, Math.ceil(this.#headReadyAt - now)) : 0;
    return Math.max(head + Math.floor(ahead / Math.max(1, this.#cap(now, Math.min))) * this.#windowMs, Math.ceil(waits(ahead)));
  }

  #wake(): void {
    this.#kick?.();
  }

  /** Sleep `ms` (Infinity: until woken), or less when woken. */
  #sleepOrKick(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    this.#headWaitsForAnswer = ms === Infinity;
    return new Promise((resolve, reject) => {
      const finish = (aborted: boolean) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        if (this.#kick === wake) this.#kick = undefined;
        this.#headWaitsForAnswer = false;
        if (aborted) reject(signal.reason);
        else resolve();
      };
      const wake = () => finish(false);
      const onAbort = () => finish(true);
      this.#kick = wake;
      const timer = ms === Infinity ? undefined : setTimeout(wake, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

function refusal(retryAfterMs: number, boundMs: number, waitedMs: number): BudgetWaitTooLongError {
  publishBudgetRefusal({ retryAfterMs, waitedMs });
  return new BudgetWaitTooLongError(retryAfterMs, boundMs, waitedMs);
}

/** The shared budget cannot be asked (refuseWithoutStore): nothing was sent, the same call shortly may go. */
function storeRefusal(cause: unknown): WorkspaceApiError {
  const message = "The workspace is briefly unavailable (this server's shared rate budget is unreachable). Nothing was sent: retry this call in a few seconds.";
  return Object.assign(new WorkspaceApiError(503, BRIEFLY_UNAVAILABLE, message, {}, STORE_RETRY_MS / 1000), { cause });
}

function defaultStoreError(err: unknown): void {
  process.emitWarning(
    `The shared rate budget is unavailable (${err instanceof Error ? err.message : String(err)}); counting this process's requests on its own for a few seconds.`,
  );
}

/** The window key of a budget named `name` at `rate`: processes told different rates count apart. */
export function budgetKey(name: string, rate: { limit?: number; windowMs?: number } = {}): string {
  return `budget:${name}:${rate.limit ?? 120}/${rate.windowMs ?? 60_000}`;
}
