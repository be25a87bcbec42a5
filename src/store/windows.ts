// Sliding windows: the atomic primitive under the rate budgets (src/api/limiter.ts), one window per
// budget key shared by every participant of the store. The rules (when a slot starts and stops
// counting, and why) are docs/architecture.md, "Rate budget"; src/store/sqlite.ts applies them to a
// window kept as a plain object (the local and memory stores), src/store/redis.ts in Lua scripts.

export interface WindowLimits {
  /** Slots allowed in the window at once (at least 0: 0 refuses every take). */
  limit: number;
  /** The server's window: how long it counts a request from its stamp. */
  windowMs: number;
  /** How long a settled slot keeps counting after its settle: the window plus a safety margin. */
  holdMs: number;
  /** How long an unsettled slot counts at most (a process that died mid-request). Longer than any request. */
  leaseMs: number;
}

export type WindowTake =
  | {
      taken: true;
      /** The slot's name, for settleSlot. */
      slot: string;
      /**
       * The slots the server may still count when it stamps this request (this one, every unsettled one, those settled less
       * than `windowMs` ago): what a participant compares with the server's count.
       */
      count: number;
      /** Takes ever made in this window (it counts up by one per take): tells how many others took since. */
      seq: number;
    }
  | {
      taken: false;
      /** How long until a take can succeed, at the earliest (at least `holdMs` while the slot in the way is unsettled). */
      waitMs: number;
      /** The window is paused (a Retry-After shared by a participant), not full. */
      paused: boolean;
    };

export interface SettleOptions {
  /** The request was refused (429): the server did not count it, so neither does the window. */
  refused: boolean;
  holdMs: number;
  leaseMs: number;
}

/** The sliding-window half of a store: what a rate budget needs, atomic per key. */
export interface SlidingWindowStore {
  /** Take a slot in the window `key` if it holds fewer than `limits.limit` (atomic check and add). */
  takeSlot(key: string, limits: WindowLimits): Promise<WindowTake>;
  /**
   * The slot's request was answered (or failed): it counts `holdMs` from now, or not at all if refused.
   * Idempotent: written again after a failure, it counts from then (longer, never less). The seq is the
   * window's now.
   */
  settleSlot(key: string, slot: string, opts: SettleOptions): Promise<{ seq: number }>;
  /** No take in `key` succeeds for `forMs` from now (a Retry-After, shared with every participant). */
  pauseWindow(key: string, forMs: number): Promise<void>;
}

/** Slot names unique across processes: a random prefix per store instance and a counter. */
export function slotNamer(): () => string {
  const base = Array.from(globalThis.crypto.getRandomValues(new Uint8Array(6)), (b) => b.toString(16).padStart(2, '0')).join('');
  let n = 0;
  return () => `${base}.${(++n).toString(36)}`;
}
