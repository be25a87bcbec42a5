// A store's windows as a rate limiter writes to them, the first settle written heard: a test awaits
// that write instead of reading the store again and again.
import type { SlidingWindowStore } from '../../src/store/windows.js';

/** `store`'s windows, and a promise that settles once a settle has been written through them. */
export function settleHeard(store: SlidingWindowStore): { windows: SlidingWindowStore; written: Promise<void> } {
  let wrote!: () => void;
  const written = new Promise<void>((resolve) => (wrote = resolve));
  const windows: SlidingWindowStore = {
    takeSlot: (key, limits) => store.takeSlot(key, limits),
    pauseWindow: (key, forMs) => store.pauseWindow(key, forMs),
    settleSlot: async (key, slot, opts) => {
      const settled = await store.settleSlot(key, slot, opts);
      wrote();
      return settled;
    },
  };
  return { windows, written };
}
