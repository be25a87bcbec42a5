// Two processes on one SQLite store, as the store tests open them: two handles on one folder.
import { SqliteStore } from '../../src/store/sqlite.js';

/** The window limits these tests take slots under: one slot, a one-second window. */
export const ONE_SLOT = { limit: 1, windowMs: 1_000, holdMs: 1_010, leaseMs: 60_000 };

/** Two processes' handles on the SQLite store in `dir` (on an injected clock when `now` is given). */
export async function twoProcesses(dir: string, now?: () => number): Promise<{ a: SqliteStore; b: SqliteStore; close(): Promise<void> }> {
  const a = await SqliteStore.open(dir, now ? { now } : {});
  const b = await SqliteStore.open(dir, now ? { now } : {});
  return { a, b, close: async () => void (await Promise.all([a.close(), b.close()])) };
}

/** `a` takes the one slot of window `key` and its answer comes (the settle, maybe not written yet). */
export async function takeAndAnswer(a: SqliteStore, key: string): Promise<void> {
  const t = await a.takeSlot(key, ONE_SLOT);
  if (!t.taken) throw new Error('not taken');
  await a.settleSlot(key, t.slot, { refused: false, holdMs: ONE_SLOT.holdMs, leaseMs: ONE_SLOT.leaseMs });
}
