// Client-side rate limiting, so a busy assistant spends its budget (120 requests a minute per token)
// without ever being refused: a refused request still counts in the workspace's usage.
import PQueue from 'p-queue';
import { sleep } from './retry.js';

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
  /** Wakes the admission that waits for an in-flight request to finish. */
  #wake: (() => void) | undefined;

  constructor(opts: RateLimiterOptions = {}) {
    this.#limit = opts.limit ?? 120;
    this.#windowMs = opts.windowMs ?? 60_000;
    this.#safetyMs = opts.safetyMs ?? Math.max(10, this.#windowMs / 100);
    this.#now = opts.now ?? Date.now;
  }

  /** Run `fn` once a request is allowed. An abort while waiting rejects with the signal's reason. */
  async schedule<T>(fn: () => Promise<T>, opts?: { signal?: AbortSignal }): Promise<T> {
    const signal = opts?.signal;
    let slot: Slot;
    // Fast path: nobody waiting and room now, so skip the queue (and its promises) entirely.
    if (this.#queue.size === 0 && this.#queue.pending === 0 && this.#delay(this.#now()) <= 0) {
      if (signal?.aborted) throw signal.reason;
      slot = this.#take(this.#now());
    } else {
      slot = await this.#queue.add(({ signal: taskSignal }) => this.#admit(taskSignal), signal ? { signal } : {});
    }
    try {
      return await fn();
    } finally {
      slot.end = this.#now() + this.#windowMs + this.#safetyMs;
      const wake = this.#wake;
      this.#wake = undefined;
      wake?.();
    }
  }

  /** Learn from the rate-limit headers of an answer. */
  observe(headers: RateLimitObservation): void {
    const now = this.#now();
    if (headers.limit !== undefined && headers.limit > 0 && headers.limit < this.#limit) this.#limit = headers.limit;
    if (headers.retryAfterSeconds !== undefined) {
      // A refusal: the server says when to come back, which is all its remaining count (0) adds.
      this.#pausedUntil = Math.max(this.#pausedUntil, now + headers.retryAfterSeconds * 1000);
      return;
    }
    const remaining = headers.remaining;
    if (remaining === undefined) return;
    const localRemaining = this.#limit - this.#occupied(now);
    if (remaining < localRemaining) {
      // Someone else (another process, another app of the same member) spends this budget. Spread
      // what is left over a window instead of bursting into a 429; at 0 left, wait a whole window.
      this.#spacingMs = this.#windowMs / Math.max(remaining, 1);
      this.#spreadUntil = now + this.#windowMs;
    } else {
      this.#spacingMs = 0;
    }
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
    return wait;
  }

  #take(now: number): Slot {
    const slot: Slot = { end: Infinity };
    this.#slots.push(slot);
    this.#lastSend = now;
    return slot;
  }

  #prune(now: number): void {
    if (this.#slots.length > 0 && this.#slots.some((s) => s.end <= now)) {
      this.#slots = this.#slots.filter((s) => s.end > now);
    }
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
