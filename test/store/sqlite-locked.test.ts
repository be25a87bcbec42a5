// The SQLite store when another process holds the database's write lock past the busy timeout (5 s):
// a settle whose deferred write fails is kept, not dropped, so the slot stops counting when its hold
// ends rather than when its lease does. Apart from the store contract because the wait is real.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { ONE_SLOT, takeAndAnswer, twoProcesses } from '../helpers/sqlite-store.js';

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'wcm-locked-'));
});
afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

it('keeps a settle its deferred write could not make (the database locked) for the next round on its window', async () => {
  let now = 1_000_000;
  // The store's own timer (the deferred write) on vitest's clock; the database waits in real time.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const { a, b, close } = await twoProcesses(join(tmp, 'busy'), () => now);
  try {
    const { DatabaseSync } = process.getBuiltinModule('node:sqlite');
    const lock = new DatabaseSync(join(tmp, 'busy', 'state.db'));
    await takeAndAnswer(a, 'w1');
    await takeAndAnswer(a, 'w2');
    lock.exec('BEGIN IMMEDIATE');
    // The deferred write comes due, waits out the busy timeout and fails.
    vi.advanceTimersByTime(ONE_SLOT.holdMs);
    lock.exec('COMMIT');
    lock.close();
    now += ONE_SLOT.holdMs + 1;
    // The next round of `a` on w2 writes its settle: another process then sees the slot answered and gone.
    await a.pauseWindow('w2', 0);
    expect((await b.takeSlot('w2', ONE_SLOT)).taken).toBe(true);
  } finally {
    vi.useRealTimers();
    await close();
  }
}, 20_000);
