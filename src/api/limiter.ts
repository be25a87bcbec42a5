// Client-side rate limiting, so a busy assistant spends its budget (120 requests a minute per token)
// without ever being refused: a refused request still counts in the workspace's usage.
import PQueue from 'p-queue';
import { sleep } from './retry.js';

export interface RateLimiterOptions {
  /** Requests allowed in any rolling window. Default 120 (the API's global limit). */
  limit?: number;
  /** Length of the rolling window. Default 60 s. */
  windowMs?: number;
  /**
   * Extra time a send stays counted after its window: the server stamps a request when it arrives,
   * later than we sent it, and two arrivals can be closer together than the two sends were.
   * Default 1% of the window, at least 25 ms.
   */
  safetyMs?: number;
  now?: () => number;
}

export interface RateLimitObservation {
  limit?: number;
  remaining?: number;
  retryAfterSeconds?: number;
}

/**
 * Admits requests so that no rolling window of `windowMs` ever holds more than `limit` sends.
 *
 * A sliding log of send times, not a counter per fixed window: a fixed window lets `limit` requests
 * through at the end of one window and `limit` more at the start of the next, twice the budget in
 * one window-length. The p-queue (concurrency 1) only orders the admissions, first come first
 * served, and drops a waiting caller whose signal aborts; the requests themselves run concurrently.
 */
export class RateLimiter {
  readonly #queue = new PQueue({ concurrency: 1 });
  readonly #now: () => number;
  readonly #windowMs: number;
  readonly #safetyMs: number;
  #limit: number;
  /** Send times, oldest first, kept for windowMs + safetyMs. */
  readonly #sent: number[] = [];
  #lastSend = -Infinity;
  /** No send before this time: the server said Retry-After. */
  #pausedUntil = 0;
  /** While another consumer spends the same budget: minimum gap between two sends, and until when. */
  #spacingMs = 0;
  #spreadUntil = 0;

  constructor(opts: RateLimiterOptions = {}) {
    this.#limit = opts.limit ?? 120;
    this.#windowMs = opts.windowMs ?? 60_000;
    this.#safetyMs = opts.safetyMs ?? Math.max(25, this.#windowMs / 100);
    this.#now = opts.now ?? Date.now;
  }

  /** Run `fn` once a send is allowed. An abort while waiting rejects with the signal's reason. */
  async schedule<T>(fn: () => Promise<T>, opts?: { signal?: AbortSignal }): Promise<T> {
    const signal = opts?.signal;
    // Fast path: nothing waiting and a slot free now, so skip the queue (and its promise) entirely.
    if (this.#queue.size === 0 && this.#queue.pending === 0 && this.#delay(this.#now()) <= 0) {
      if (signal?.aborted) throw signal.reason;
      this.#record(this.#now());
      return fn();
    }
    await this.#queue.add(({ signal: taskSignal }) => this.#admit(taskSignal), signal ? { signal } : {});
    return fn();
  }

  /** Learn from the rate-limit headers of an answer. */
  observe(headers: RateLimitObservation): void {
    const now = this.#now();
    if (headers.limit !== undefined && headers.limit > 0 && headers.limit < this.#limit) this.#limit = headers.limit;
    if (headers.retryAfterSeconds !== undefined) {
      // A refusal: the server says when to come back, which is all the remaining count (0) adds.
      this.#pausedUntil = Math.max(this.#pausedUntil, now + headers.retryAfterSeconds * 1000);
      return;
    }
    const remaining = headers.remaining;
    if (remaining === undefined) return;
    const localRemaining = this.#limit - this.#countSince(now - this.#windowMs);
    if (remaining < localRemaining) {
      // Someone else (another process, another app of the same member) spends this budget. Spread
      // what is left over a window instead of bursting into a 429; at 0 left, wait a whole window.
      this.#spacingMs = this.#windowMs / Math.max(remaining, 1);
      this.#spreadUntil = now + this.#windowMs;
    } else {
      this.#spacingMs = 0;
    }
  }

  stats(): { sentInWindow: number; queued: number } {
    return {
      sentInWindow: this.#countSince(this.#now() - this.#windowMs),
      queued: this.#queue.size + this.#queue.pending,
    };
  }

  async #admit(signal: AbortSignal | undefined): Promise<void> {
    for (;;) {
      const now = this.#now();
      const wait = this.#delay(now);
      if (wait <= 0) {
        this.#record(now);
        return;
      }
      await sleep(wait, signal);
    }
  }

  /** How long from `now` until one more send is allowed (<= 0: now). */
  #delay(now: number): number {
    this.#prune(now);
    let wait = this.#pausedUntil - now;
    if (this.#sent.length >= this.#limit) {
      // The send whose expiry frees a slot for us.
      const freeing = this.#sent[this.#sent.length - this.#limit] as number;
      wait = Math.max(wait, freeing + this.#windowMs + this.#safetyMs - now);
    }
    if (this.#spacingMs > 0 && now < this.#spreadUntil) {
      wait = Math.max(wait, this.#lastSend + this.#spacingMs - now);
    }
    return wait;
  }

  #record(now: number): void {
    this.#sent.push(now);
    this.#lastSend = now;
  }

  #prune(now: number): void {
    const horizon = now - this.#windowMs - this.#safetyMs;
    let drop = 0;
    while (drop < this.#sent.length && (this.#sent[drop] as number) <= horizon) drop++;
    if (drop > 0) this.#sent.splice(0, drop);
  }

  #countSince(since: number): number {
    let n = 0;
    for (let i = this.#sent.length - 1; i >= 0 && (this.#sent[i] as number) > since; i--) n++;
    return n;
  }
}

const byToken = new Map<string, RateLimiter>();

/**
 * The limiter of one token in this process: the budget belongs to the token, so every client using
 * it (several sessions over HTTP transport) must draw on one limiter.
 */
export function limiterFor(tokenFingerprint: string, opts?: RateLimiterOptions): RateLimiter {
  let limiter = byToken.get(tokenFingerprint);
  if (limiter === undefined) {
    limiter = new RateLimiter(opts);
    byToken.set(tokenFingerprint, limiter);
  }
  return limiter;
}
