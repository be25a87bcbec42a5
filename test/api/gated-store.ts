// A participant's view of a shared store whose takes the test answers when it chooses: the store
// is asked (and the slot taken) at once, its answer held until the test releases it, as a Redis far
// away or busy would hold it.
import type { MemoryStore } from '../../src/store/memory.js';
import type { SettleOptions, SlidingWindowStore, WindowLimits, WindowTake } from '../../src/store/windows.js';

/** One participant's view of a shared store: its takes answer only when the script lets them. */
export class GatedStore implements SlidingWindowStore {
  #gate: Promise<void> | undefined;
  #open: (() => void) | undefined;
  constructor(readonly inner: MemoryStore) {}

  /** Takes asked from now on are made in the store at once, but answered only at `release()`. */
  hold(): () => void {
    this.#gate = new Promise((r) => {
      this.#open = r;
    });
    return () => {
      this.#gate = undefined;
      this.#open?.();
    };
  }

  async takeSlot(key: string, limits: WindowLimits): Promise<WindowTake> {
    const gate = this.#gate;
    const taken = await this.inner.takeSlot(key, limits);
    await gate;
    return taken;
  }

  settleSlot(key: string, slot: string, opts: SettleOptions): Promise<{ seq: number }> {
    return this.inner.settleSlot(key, slot, opts);
  }

  pauseWindow(key: string, forMs: number): Promise<void> {
    return this.inner.pauseWindow(key, forMs);
  }
}
