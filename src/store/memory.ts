// The in-memory store: one process, nothing to run. Expired values are dropped when read, and swept
// now and then so a long-running server does not keep dead OAuth transactions. Its sliding windows
// are exact for this process alone: one event loop runs each take and settle whole.
import type { SetOptions, StateStore } from './state-store.js';
import {
  emptyWindow,
  pauseIn,
  type SettleOptions,
  type SlidingWindowStore,
  settleIn,
  slotNamer,
  takeFrom,
  type WindowLimits,
  type WindowState,
  type WindowTake,
  windowExpires,
} from './windows.js';

interface Entry {
  value: string;
  /** Epoch ms after which the entry is gone; Infinity when it has no TTL. */
  expires: number;
}

const SWEEP_EVERY = 1000;

export class MemoryStore implements StateStore, SlidingWindowStore {
  readonly #entries = new Map<string, Entry>();
  readonly #windows = new Map<string, WindowState>();
  readonly #slotName = slotNamer();
  readonly #now: () => number;
  #writes = 0;

  constructor(opts: { now?: () => number } = {}) {
    this.#now = opts.now ?? Date.now;
  }

  #live(key: string): Entry | undefined {
    const e = this.#entries.get(key);
    if (e && e.expires <= this.#now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return e;
  }

  #put(key: string, value: string, opts?: SetOptions): void {
    this.#entries.set(key, { value, expires: opts?.ttlMs !== undefined ? this.#now() + opts.ttlMs : Infinity });
    if (++this.#writes % SWEEP_EVERY === 0) this.#sweep();
  }

  #sweep(): void {
    const now = this.#now();
    for (const [k, e] of this.#entries) if (e.expires <= now) this.#entries.delete(k);
    for (const [k, w] of this.#windows) if (windowExpires(w) <= now) this.#windows.delete(k);
  }

  #window(key: string): WindowState {
    let w = this.#windows.get(key);
    if (w === undefined) {
      w = emptyWindow();
      this.#windows.set(key, w);
    }
    return w;
  }

  async get(key: string): Promise<string | undefined> {
    return this.#live(key)?.value;
  }

  async set(key: string, value: string, opts?: SetOptions): Promise<void> {
    this.#put(key, value, opts);
  }

  async setIfAbsent(key: string, value: string, opts?: SetOptions): Promise<boolean> {
    if (this.#live(key)) return false;
    this.#put(key, value, opts);
    return true;
  }

  async take(key: string): Promise<string | undefined> {
    const e = this.#live(key);
    this.#entries.delete(key);
    return e?.value;
  }

  async compareAndSet(key: string, expected: string | undefined, value: string | undefined, opts?: SetOptions): Promise<boolean> {
    if (this.#live(key)?.value !== expected) return false;
    if (value === undefined) this.#entries.delete(key);
    else this.#put(key, value, opts);
    return true;
  }

  async delete(key: string): Promise<void> {
    this.#entries.delete(key);
  }

  async takeSlot(key: string, limits: WindowLimits): Promise<WindowTake> {
    const taken = takeFrom(this.#window(key), this.#now(), limits, this.#slotName());
    if (taken.taken && ++this.#writes % SWEEP_EVERY === 0) this.#sweep();
    return taken;
  }

  async settleSlot(key: string, slot: string, opts: SettleOptions): Promise<{ seq: number }> {
    return settleIn(this.#window(key), this.#now(), slot, opts);
  }

  async pauseWindow(key: string, forMs: number): Promise<void> {
    pauseIn(this.#window(key), this.#now(), forMs);
  }

  async close(): Promise<void> {
    this.#entries.clear();
    this.#windows.clear();
  }
}
