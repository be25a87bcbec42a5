// The rate budget over real HTTP on vitest's fake clock (Date, performance and the timers): the
// clock moves only while no request is out, to the next timer the code set, so a request takes no
// time on it and every time a test reads from it is one the code chose (a window, a pause, a
// Retry-After), never one the machine took. Requests are counted out from when the limiter lets
// them go until their answer is read; setImmediate stays real, for the turns that let them finish.
import { vi } from 'vitest';
import { RateLimiter } from '../../src/api/limiter.js';

/** Epoch ms the fake clock starts at. */
const START = 1_000_000;

/** Fake Date, performance and timers from START; undo with vi.useRealTimers(). */
export function useFakeClock(): void {
  vi.useFakeTimers({ now: START, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] });
}

/** A limiter that knows how many of its requests are out (sent, their answer not yet read). */
export class CountingLimiter extends RateLimiter {
  #out = 0;
  #quiet = new Set<() => void>();

  override schedule<T>(fn: () => Promise<T>, opts?: Parameters<typeof RateLimiter.prototype.schedule<T>>[1]): Promise<T> {
    return super.schedule(async () => {
      this.#out++;
      try {
        return await fn();
      } finally {
        if (--this.#out === 0) for (const tell of this.#quiet) tell();
      }
    }, opts);
  }

  /** Resolves once no request is out and a turn of the event loop brought none. */
  async quiet(): Promise<void> {
    for (;;) {
      if (this.#out > 0) {
        await new Promise<void>((resolve) => {
          const tell = () => {
            this.#quiet.delete(tell);
            resolve();
          };
          this.#quiet.add(tell);
        });
      }
      // What an answer sets off (the caller's next request, a settle) runs in this turn.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.#out === 0) return;
    }
  }
}

/**
 * Moves the fake clock, from one timer to the next and only while none of `limiter`'s requests is
 * out, until `done` holds; fails if nothing is left to happen, or past `withinMs` of the clock.
 */
export async function runUntil(limiter: CountingLimiter, done: () => boolean, what: string, withinMs = 60_000): Promise<void> {
  const end = Date.now() + withinMs;
  for (;;) {
    await limiter.quiet();
    if (done()) return;
    if (vi.getTimerCount() === 0) throw new Error(`${what}: nothing out and no timer set, so it never will`);
    if (Date.now() > end) throw new Error(`${what}: not within ${withinMs} ms of the clock`);
    await vi.advanceTimersToNextTimerAsync();
  }
}

/** `work`'s outcome, the clock moved as runUntil does until it settles. */
export async function run<T>(limiter: CountingLimiter, work: Promise<T>, what: string, withinMs?: number): Promise<T> {
  let settled = false;
  const watched = work.finally(() => {
    settled = true;
  });
  watched.catch(() => {});
  await runUntil(limiter, () => settled, what, withinMs);
  return watched;
}
