// The in-memory store: one process, nothing to run. Expired values are dropped when read, and swept
// now and then so a long-running server does not keep dead OAuth transactions.
import type { SetOptions, StateStore } from './store.js';

interface Entry {
  value: string;
  /** Epoch ms after which the entry is gone; Infinity when it has no TTL. */
  expires: number;
}

const SWEEP_EVERY = 1000;

export class MemoryStore implements StateStore {
  readonly #entries = new Map<string, Entry>();
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

  async close(): Promise<void> {
    this.#entries.clear();
  }
}
