// Sliding windows: the atomic primitive under the rate budgets (src/api/limiter.ts), one window per
// budget key shared by every participant of the store. The rules (when a slot starts and stops
// counting, and why) are docs/architecture.md, "Rate budget"; here they are for a window kept as a
// plain object (the SQLite and memory stores); Redis runs them as Lua scripts (src/store/redis.ts).

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
  /** The slot's request was answered (or failed): it counts `holdMs` more, or not at all if refused. */
  settleSlot(key: string, slot: string, opts: SettleOptions): Promise<{ seq: number }>;
  /** No take in `key` succeeds for `forMs` from now (a Retry-After, shared with every participant). */
  pauseWindow(key: string, forMs: number): Promise<void>;
}

/** A window as the SQLite and memory stores keep it: plain data, rewritten whole in one transaction. */
export interface WindowState {
  /** `end`: epoch ms when the slot stops counting; `open`: not settled yet (`end` is its lease). */
  slots: Array<{ id: string; end: number; open?: true }>;
  seq: number;
  pausedUntil: number;
}

export function emptyWindow(): WindowState {
  return { slots: [], seq: 0, pausedUntil: 0 };
}

/** When nothing in the window matters any more (every slot expired, no pause): it may be deleted. */
export function windowExpires(w: WindowState): number {
  let end = w.pausedUntil;
  for (const s of w.slots) if (s.end > end) end = s.end;
  return end;
}

function prune(w: WindowState, now: number): void {
  if (w.slots.some((s) => s.end <= now)) w.slots = w.slots.filter((s) => s.end > now);
}

export function takeFrom(w: WindowState, now: number, limits: WindowLimits, id: string): WindowTake {
  prune(w, now);
  if (w.pausedUntil > now) return { taken: false, waitMs: Math.ceil(w.pausedUntil - now), paused: true };
  const n = w.slots.length;
  if (n < limits.limit) {
    w.slots.push({ id, end: now + limits.leaseMs, open: true });
    w.seq++;
    // A settled slot's end is its settle plus holdMs; settled within the last window: end > this.
    const recent = now + limits.holdMs - limits.windowMs;
    let count = 0;
    for (const s of w.slots) if (s.open || s.end > recent) count++;
    return { taken: true, slot: id, count, seq: w.seq };
  }
  return { taken: false, waitMs: waitForRoom(w, now, limits), paused: false };
}

/** Until the (n - limit + 1)-th settled slot expires; an unsettled one frees no sooner than `holdMs`. */
function waitForRoom(w: WindowState, now: number, limits: WindowLimits): number {
  const need = w.slots.length - Math.max(0, limits.limit) + 1;
  const ends = w.slots.filter((s) => !s.open).map((s) => s.end);
  if (ends.length < need) return Math.ceil(limits.holdMs);
  ends.sort((a, b) => a - b);
  return Math.max(1, Math.ceil((ends[need - 1] as number) - now));
}

export function settleIn(w: WindowState, now: number, id: string, opts: SettleOptions): { seq: number } {
  prune(w, now);
  const i = w.slots.findIndex((s) => s.id === id);
  if (opts.refused) {
    if (i >= 0) w.slots.splice(i, 1);
  } else if (i >= 0) {
    w.slots[i] = { id, end: now + opts.holdMs };
  } else {
    // Its lease ran out before the answer came (a very slow request): it counts again from now.
    w.slots.push({ id, end: now + opts.holdMs });
  }
  return { seq: w.seq };
}

export function pauseIn(w: WindowState, now: number, forMs: number): void {
  w.pausedUntil = Math.max(w.pausedUntil, now + forMs);
}

/** Slot names unique across processes: a random prefix per store instance and a counter. */
export function slotNamer(): () => string {
  const base = Array.from(globalThis.crypto.getRandomValues(new Uint8Array(6)), (b) => b.toString(16).padStart(2, '0')).join('');
  let n = 0;
  return () => `${base}.${(++n).toString(36)}`;
}
