// Client-side rate limiting, so a busy assistant spends its budget (120 requests a minute per token)
// without ever being refused: a refused request still counts in the workspace's usage.
import PQueue from 'p-queue';
import { sleep } from './retry.js';

/** Requests sent before the first answer of a window tells how much of the budget is left. */
const SLOW_START = 4;

export interface RateLimiterOptions {
  /** Requests allowed in any rolling window. Default 120 (the API's global limit). */
  limit?: number;
  /** Length of the rolling window. Default 60 s. */
  windowMs?: number;
  /** Extra time a request stays counted, for timer and clock granularity. Default 1% of the window, at least 10 ms. */
  safetyMs?: number;
  now?: () => number;
}

export interface RateLimitObservation {
  limit?: number;
  remaining?: number;
  retryAfterSeconds?: number;
}

/**
 * One request in the log. The server stamps a request when it arrives, somewhere between our send
 * and its answer; only the answer's time is a bound we know. So a request counts from its send until
 * a window after its answer (`end`), and for as long as it is in flight (`end` = Infinity).
 * Counting from the send alone fails: a first request that waits for a new connection arrives later
 * than a next one sent on a warm connection a window after it, and the two land in one window.
 */
interface Slot {
  end: number;
  /** When it was sent: what the server counts in its own window. */
  sent: number;
}

/**
 * Admits requests so that no rolling window of `windowMs` ever holds more than `limit` of them.
 *
 * A sliding log, not a counter per fixed window: a fixed window lets `limit` requests through at the
 * end of one window and `limit` more at the start of the next, twice the budget in one window-length.
 * The p-queue (concurrency 1) orders the admissions, first come first served, and drops a waiting
 * caller whose signal aborts; the requests themselves run concurrently.
 */
export class RateLimiter {
  readonly #queue = new PQueue({ concurrency: 1 });
  readonly #now: () => number;
  readonly #windowMs: number;
  readonly #safetyMs: number;
  #limit: number;
  #slots: Slot[] = [];
  #lastSend = -Infinity;
  /** No send before this time: the server said Retry-After. */
  #pausedUntil = 0;
  /** While another consumer spends the same budget: minimum gap between two sends, and until when. */
  #spacingMs = 0;
  #spreadUntil = 0;
  /**
   * Whether answers carry X-RateLimit-Remaining (undefined until the first answer). While the server
   * tells, a burst waits for its first answer of the window before it grows past a few requests:
   * processes that start together (two assistants on one token) learn of each other from that answer
   * instead of each spending the whole budget blind and drawing refusals.
   */
  #serverTells: boolean | undefined;
  #lastObservedAt = -Infinity;
  /** The server's remaining count at the last answer, less what this process sent since. */
  #serverLeft = Infinity;
  /** Wakes the admission that waits for an in-flight request to finish. */
  #wake: (() => void) | undefined;

  constructor(opts: RateLimiterOptions = {}) {
    this.#limit = opts.limit ?? 120;
    this.#windowMs = opts.windowMs ?? 60_000;
    this.#safetyMs = opts.safetyMs ?? Math.max(10, this.#windowMs / 100);
    this.#now = opts.now ?? Date.now;
  }

  /** Run `fn` once a request is allowed. An abort while waiting rejects with the signal's reason. */
  /**
   * `refused` tells whether an answer was a refusal (429): a refused request does not count against the
   * server's budget, so it leaves the log (counting it would make this process think it spent what the
   * others spent, and burst).
   */
  async schedule<T>(fn: () => Promise<T>, opts?: { signal?: AbortSignal; refused?: (value: T) => boolean }): Promise<T> {
    const signal = opts?.signal;
    let slot: Slot;
    // Fast path: nobody waiting and room now, so skip the queue (and its promises) entirely.
    if (this.#queue.size === 0 && this.#queue.pending === 0 && this.#delay(this.#now()) <= 0) {
      if (signal?.aborted) throw signal.reason;
      slot = this.#take(this.#now());
    } else {
      slot = await this.#queue.add(({ signal: taskSignal }) => this.#admit(taskSignal), signal ? { signal } : {});
    }
    let refused = false;
    try {
      const value = await fn();
      refused = opts?.refused?.(value) ?? false;
      return value;
    } finally {
      slot.end = refused ? -Infinity : this.#now() + this.#windowMs + this.#safetyMs;
      const wake = this.#wake;
      this.#wake = undefined;
      wake?.();
    }
  }

  /** Learn from the rate-limit headers of an answer (an empty observation: the answer had none). */
  observe(headers: RateLimitObservation): void {
    const now = this.#now();
    if (headers.limit !== undefined && headers.limit > 0 && headers.limit < this.#limit) this.#limit = headers.limit;
    if (headers.retryAfterSeconds !== undefined) {
      // A refusal: the server says when to come back, which is all its remaining count (0) adds. Someone
      // else spends this budget too (or we would not have been refused): stay in shared mode.
      this.#pausedUntil = Math.max(this.#pausedUntil, now + headers.retryAfterSeconds * 1000);
      this.#share(now, this.#limit, Math.max(2, this.#consumers(now, this.#limit)));
      // The refused requests come back together when the pause ends: keep them spaced past it.
      this.#spreadUntil = Math.max(this.#spreadUntil, this.#pausedUntil + this.#windowMs);
      return;
    }
    const remaining = headers.remaining;
    if (remaining === undefined) {
      this.#serverTells ??= false;
      return;
    }
    this.#serverTells = true;
    this.#lastObservedAt = now;
    this.#serverLeft = remaining - this.#inFlight();
    const used = this.#limit - remaining;
    const mine = this.#sentInWindow(now);
    // More of the budget is spent than this process spent: others (another process, another app of
    // the same member) draw on it. Take a fair share of what is left instead of bursting into a 429.
    // Our count and the server's never line up exactly (it stamps arrivals, we stamp sends), so only a
    // clear excess means others: half again what we sent, plus a few.
    if (used >= mine * 1.5 + 3) this.#share(now, remaining, this.#consumers(now, used));
    else if (now >= this.#spreadUntil) this.#spacingMs = 0;
  }

  /** How many consumers spend the budget, judged by how much of it is this process's. */
  #consumers(now: number, used: number): number {
    const mine = Math.max(1, this.#sentInWindow(now));
    return Math.min(16, Math.max(2, Math.round(used / mine)));
  }

  /**
   * Space sends so that `consumers` processes doing the same stay within the budget together: each
   * takes 90% of its share of the limit, and no more than its share of what the server says is left.
   */
  #share(now: number, remaining: number, consumers: number): void {
    const byLimit = (this.#windowMs * consumers) / (this.#limit * 0.9);
    const byRemaining = (this.#windowMs * consumers) / Math.max(remaining, 1);
    this.#spacingMs = Math.max(byLimit, Math.min(byRemaining, this.#windowMs));
    this.#spreadUntil = now + this.#windowMs;
  }

  /** How long the server asked this token to wait (Retry-After) from now; 0 when not paused. */
  pausedForMs(): number {
    return Math.max(0, this.#pausedUntil - this.#now());
  }

  stats(): { sentInWindow: number; queued: number } {
    return { sentInWindow: this.#occupied(this.#now()), queued: this.#queue.size + this.#queue.pending };
  }

  async #admit(signal: AbortSignal | undefined): Promise<Slot> {
    for (;;) {
      const now = this.#now();
      const wait = this.#delay(now);
      if (wait <= 0) return this.#take(now);
      if (wait === Infinity) await this.#untilWoken(signal);
      else await sleep(wait, signal);
    }
  }

  /** How long from `now` until one more request is allowed: <= 0 now, Infinity when only an answer can tell. */
  #delay(now: number): number {
    this.#prune(now);
    let wait = this.#pausedUntil - now;
    const excess = this.#slots.length - this.#limit;
    if (excess >= 0) {
      // The slot whose expiry makes room: the (excess+1)-th to expire.
      const ends = this.#slots.map((s) => s.end).sort((a, b) => a - b);
      wait = Math.max(wait, (ends[excess] as number) - now);
    }
    if (this.#spacingMs > 0 && now < this.#spreadUntil) {
      wait = Math.max(wait, this.#lastSend + this.#spacingMs - now);
    }
    // What the server said is left is spent (by us since, or by others): send at the budget's average
    // pace until an answer says more, rather than burst into a refusal.
    if (this.#serverLeft <= 0 && now - this.#lastObservedAt <= this.#windowMs) {
      wait = Math.max(wait, this.#lastSend + this.#windowMs / this.#limit - now);
    }
    // Slow start: with no word from the server in this window, a few requests go out first and the
    // rest wait for their answer (and the remaining count it brings).
    if (wait <= 0 && this.#serverTells !== false && now - this.#lastObservedAt > this.#windowMs && this.#inFlight() >= SLOW_START) {
      return Infinity;
    }
    return wait;
  }

  #take(now: number): Slot {
    const slot: Slot = { end: Infinity, sent: now };
    this.#serverLeft--;
    this.#slots.push(slot);
    this.#lastSend = now;
    return slot;
  }

  #prune(now: number): void {
    if (this.#slots.length > 0 && this.#slots.some((s) => s.end <= now)) {
      this.#slots = this.#slots.filter((s) => s.end > now);
    }
  }

  /** Requests sent in the last window: this process's part of what the server counts now. */
  #sentInWindow(now: number): number {
    let n = 0;
    for (const s of this.#slots) if (s.end !== -Infinity && s.sent > now - this.#windowMs) n++;
    return n;
  }

  #inFlight(): number {
    let n = 0;
    for (const s of this.#slots) if (s.end === Infinity) n++;
    return n;
  }

  #occupied(now: number): number {
    this.#prune(now);
    return this.#slots.length;
  }

  #untilWoken(signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.#wake = undefined;
        reject(signal?.reason);
      };
      this.#wake = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

const byToken = new Map<string, RateLimiter>();

/**
 * The limiter of one token in this process: the budget belongs to the token, so every client using
 * it (several sessions over the HTTP transport) must draw on one limiter.
 */
export function limiterFor(tokenFingerprint: string, opts?: RateLimiterOptions): RateLimiter {
  let limiter = byToken.get(tokenFingerprint);
  if (limiter === undefined) {
    limiter = new RateLimiter(opts);
    byToken.set(tokenFingerprint, limiter);
  }
  return limiter;
}
