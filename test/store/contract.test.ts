import { mkdir, mkdtemp, readdir, readlink, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemoryStore } from '../../src/store/memory.js';
import { openStore, type Store } from '../../src/store/open.js';
import { RedisStore } from '../../src/store/redis.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { TestClock } from '../helpers/clock.js';
import { type KeyExpiries, keyExpiries, type RedisHandle, startRedis } from '../helpers/redis.js';
import { takeAndAnswer, twoProcesses } from '../helpers/sqlite-store.js';

let redis: RedisHandle;
let redisClock: KeyExpiries;
let tmp: string;

beforeAll(async () => {
  redis = await startRedis();
  redisClock = await keyExpiries(redis.url);
  tmp = await mkdtemp(join(tmpdir(), 'wcm-store-'));
});
afterAll(async () => {
  await redisClock?.close();
  await redis?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

let n = 0;
/**
 * Two handles on one fresh store (the same object for memory, which is one process's alone), and a
 * way to let time go by on the clock the store reads: expiry is the behaviour under test.
 */
interface Backend {
  name: string;
  open(): Promise<{ a: Store; b: Store; close(): Promise<void>; pass(ms: number): Promise<void> }>;
}

/** The memory and SQLite stores read an injected clock: it stands still until the test moves it. */
const moved = (clock: TestClock) => async (ms: number) => clock.advance(ms);

const backends: Backend[] = [
  {
    name: 'memory',
    async open() {
      const clock = new TestClock({ frozen: true });
      const a = new MemoryStore({ now: clock.now });
      return { a, b: a, close: () => a.close(), pass: moved(clock) };
    },
  },
  {
    name: 'sqlite',
    async open() {
      const clock = new TestClock({ frozen: true });
      const dir = join(tmp, `sqlite-${++n}`);
      const a = await SqliteStore.open(dir, { now: clock.now });
      const b = await SqliteStore.open(dir, { now: clock.now });
      return { a, b, close: async () => void (await Promise.all([a.close(), b.close()])), pass: moved(clock) };
    },
  },
  {
    // Redis reads its own clock (TIME): the test lets the time go by there, as long as asked, and no
    // less, however late it hears of it.
    name: 'redis',
    async open() {
      const prefix = `t${++n}:`;
      const a = await RedisStore.connect(redis.url, { prefix });
      const b = await RedisStore.connect(redis.url, { prefix });
      return { a, b, close: async () => void (await Promise.all([a.close(), b.close()])), pass: (ms) => redisClock.pass(ms) };
    },
  },
];

const limits = { limit: 3, windowMs: 1_000, holdMs: 1_010, leaseMs: 60_000 };

describe.each(backends)('the $name store', (backend) => {
  let s: Awaited<ReturnType<Backend['open']>>;
  beforeAll(async () => {
    s = await backend.open();
  });
  afterAll(async () => {
    await s?.close();
  });

  it('gives back what was set, and nothing for a key never set', async () => {
    expect(await s.a.get('never')).toBeUndefined();
    await s.a.set('k1', 'v1');
    expect(await s.b.get('k1')).toBe('v1');
    await s.a.set('k1', 'v2');
    expect(await s.b.get('k1')).toBe('v2');
  });

  it('keeps values byte for byte, including JSON, unicode and newlines', async () => {
    const value = JSON.stringify({ a: 'é 漢字 \u0000 \n "quoted"', n: [1, 2] });
    await s.a.set('odd:key/with spaces{and}braces', value);
    expect(await s.b.get('odd:key/with spaces{and}braces')).toBe(value);
  });

  it('forgets a value once its time to live is over', async () => {
    await s.a.set('ttl', 'x', { ttlMs: 150 });
    expect(await s.b.get('ttl')).toBe('x');
    await s.pass(150);
    expect(await s.b.get('ttl')).toBeUndefined();
  });

  it('deletes, and deleting what is absent is no error', async () => {
    await s.a.set('del', 'x');
    await s.b.delete('del');
    expect(await s.a.get('del')).toBeUndefined();
    await s.a.delete('del');
  });

  it('sets if absent only once, even when twenty try at the same moment from two handles', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? s.a : s.b).setIfAbsent('once', `v${i}`)));
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = results.indexOf(true);
    expect(await s.a.get('once')).toBe(`v${winner}`);
  });

  it('sets if absent again once the value expired', async () => {
    expect(await s.a.setIfAbsent('once-ttl', 'a', { ttlMs: 100 })).toBe(true);
    expect(await s.b.setIfAbsent('once-ttl', 'b', { ttlMs: 100 })).toBe(false);
    await s.pass(100);
    expect(await s.b.setIfAbsent('once-ttl', 'c')).toBe(true);
    expect(await s.a.get('once-ttl')).toBe('c');
  });

  it('takes a one-time value exactly once among twenty takers', async () => {
    await s.a.set('code', 'auth-code');
    const taken = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? s.a : s.b).take('code')));
    expect(taken.filter((v) => v !== undefined)).toEqual(['auth-code']);
    expect(await s.a.get('code')).toBeUndefined();
    expect(await s.b.take('absent')).toBeUndefined();
  });

  it('compares and sets: absent, present, wrong expectation, delete', async () => {
    expect(await s.a.compareAndSet('cas', undefined, 'r1')).toBe(true);
    expect(await s.b.compareAndSet('cas', undefined, 'r2')).toBe(false);
    expect(await s.b.compareAndSet('cas', 'wrong', 'r2')).toBe(false);
    expect(await s.a.get('cas')).toBe('r1');
    expect(await s.b.compareAndSet('cas', 'r1', 'r2', { ttlMs: 60_000 })).toBe(true);
    expect(await s.a.get('cas')).toBe('r2');
    expect(await s.a.compareAndSet('cas', 'r2', undefined)).toBe(true);
    expect(await s.b.get('cas')).toBeUndefined();
  });

  it('lets exactly one of twenty racing refreshes replace the same value', async () => {
    await s.a.set('refresh', 'old');
    const won = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? s.a : s.b).compareAndSet('refresh', 'old', `new${i}`)));
    expect(won.filter(Boolean)).toHaveLength(1);
    expect(await s.a.get('refresh')).toBe(`new${won.indexOf(true)}`);
  });

  it('takes window slots up to the limit, from either handle, and counts each take', async () => {
    const takes = [await s.a.takeSlot('w1', limits), await s.b.takeSlot('w1', limits), await s.a.takeSlot('w1', limits)];
    expect(takes.map((t) => t.taken && t.count)).toEqual([1, 2, 3]);
    expect(takes.map((t) => t.taken && t.seq)).toEqual([1, 2, 3]);
    const full = await s.b.takeSlot('w1', limits);
    // Every slot is unanswered: the first to free does so a hold after its answer, at the earliest.
    expect(full).toEqual({ taken: false, waitMs: limits.holdMs, paused: false });
  });

  it('frees a refused slot at once, and an answered one a hold after its answer', async () => {
    const one = await s.a.takeSlot('w2', { ...limits, limit: 1 });
    expect(one.taken).toBe(true);
    if (!one.taken) return;
    await s.b.settleSlot('w2', one.slot, { refused: true, holdMs: limits.holdMs, leaseMs: limits.leaseMs });
    const two = await s.b.takeSlot('w2', { ...limits, limit: 1 });
    expect(two.taken).toBe(true);
    if (!two.taken) return;
    const settled = await s.a.settleSlot('w2', two.slot, { refused: false, holdMs: 300, leaseMs: limits.leaseMs });
    expect(settled.seq).toBe(2);
    const blocked = await s.a.takeSlot('w2', { ...limits, limit: 1, holdMs: 300 });
    expect(blocked.taken).toBe(false);
    if (blocked.taken) return;
    expect(blocked.waitMs).toBeGreaterThan(200);
    expect(blocked.waitMs).toBeLessThanOrEqual(300);
    // Free once the wait it was told has gone by.
    await s.pass(blocked.waitMs);
    expect((await s.b.takeSlot('w2', { ...limits, limit: 1, holdMs: 300 })).taken).toBe(true);
  });

  it('counts only the slots the server may still count: unanswered, or answered within the window', async () => {
    // A hold much longer than the window, so that the first slot is still held when read, however late.
    const w = { limit: 10, windowMs: 200, holdMs: 60_000, leaseMs: 60_000 };
    const first = await s.a.takeSlot('w3', w);
    if (!first.taken) throw new Error('not taken');
    await s.a.settleSlot('w3', first.slot, { refused: false, holdMs: w.holdMs, leaseMs: w.leaseMs });
    const soon = await s.b.takeSlot('w3', w);
    expect(soon.taken && soon.count).toBe(2);
    // Answered more than a window ago but still held for the safety margin: not the server's any more.
    await s.pass(250);
    const later = await s.b.takeSlot('w3', w);
    expect(later.taken && later.count).toBe(2);
  });

  it('pauses a window for every handle, and only that window', async () => {
    await s.a.pauseWindow('w4', 300);
    const paused = await s.b.takeSlot('w4', limits);
    expect(paused.taken).toBe(false);
    if (paused.taken) return;
    expect(paused.paused).toBe(true);
    expect(paused.waitMs).toBeGreaterThan(200);
    expect(paused.waitMs).toBeLessThanOrEqual(300);
    expect((await s.b.takeSlot('w4-other', limits)).taken).toBe(true);
    // A shorter pause does not cut a longer one short.
    await s.b.pauseWindow('w4', 10);
    const still = await s.a.takeSlot('w4', limits);
    expect(still.taken).toBe(false);
    if (still.taken) return;
    expect(still.waitMs).toBeGreaterThan(200);
    // Free once the wait it was told has gone by.
    await s.pass(still.waitMs);
    expect((await s.a.takeSlot('w4', limits)).taken).toBe(true);
  });

  it('shows a settle to either handle once it is answered', async () => {
    const one = await s.a.takeSlot('w6', { ...limits, limit: 1 });
    if (!one.taken) throw new Error('not taken');
    await s.a.settleSlot('w6', one.slot, { refused: true, holdMs: limits.holdMs, leaseMs: limits.leaseMs });
    const two = await s.b.takeSlot('w6', { ...limits, limit: 1 });
    expect(two.taken).toBe(true);
    if (!two.taken) return;
    await s.b.settleSlot('w6', two.slot, { refused: true, holdMs: limits.holdMs, leaseMs: limits.leaseMs });
    expect((await s.b.takeSlot('w6', { ...limits, limit: 1 })).taken).toBe(true);
  });

  it('counts a slot once when its settle is written twice (written again after a failure)', async () => {
    const w = { ...limits, limit: 2 };
    const one = await s.a.takeSlot('w7', w);
    if (!one.taken) throw new Error('not taken');
    for (const handle of [s.a, s.b]) await handle.settleSlot('w7', one.slot, { refused: false, holdMs: w.holdMs, leaseMs: w.leaseMs });
    expect(await s.b.takeSlot('w7', w)).toMatchObject({ taken: true, count: 2 });
  });

  it('never lets more than the limit into one window when a hundred take at once from two handles', async () => {
    const takes = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? s.a : s.b).takeSlot('w5', { ...limits, limit: 17 })));
    expect(takes.filter((t) => t.taken)).toHaveLength(17);
    const seqs = takes.flatMap((t) => (t.taken ? [t.seq] : [])).sort((x, y) => x - y);
    expect(seqs).toEqual(Array.from({ length: 17 }, (_, i) => i + 1));
  });
});

describe('the SQLite store on disk', () => {
  it('is owner-only: the folder 0700, the database and its WAL files 0600, and no key or value in a file name', async () => {
    const dir = join(tmp, 'perm', 'state');
    const s = await SqliteStore.open(dir);
    await s.set('grant:member-42', 'sealed-value');
    await s.takeSlot('budget:abcdef', limits);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const names = await readdir(dir);
    expect(names).toEqual(expect.arrayContaining(['state.db', 'state.db-wal']));
    for (const name of names) {
      expect(name).not.toMatch(/grant|member|budget|abcdef/);
      expect((await stat(join(dir, name))).mode & 0o777).toBe(0o600);
    }
    await s.close();
  });

  it('keeps the database in WAL mode, so a process reads while another writes', async () => {
    const dir = join(tmp, 'wal');
    const s = await SqliteStore.open(dir);
    await s.close();
    const { DatabaseSync } = process.getBuiltinModule('node:sqlite');
    const db = new DatabaseSync(join(dir, 'state.db'), { readOnly: true });
    expect(db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    db.close();
  });

  it('holds no file of its folder open once closed', async (ctx) => {
    ctx.skip(process.platform !== 'linux', 'the files a process holds open are read from Linux /proc');
    const dir = join(tmp, 'closed');
    const s = await SqliteStore.open(dir);
    await s.takeSlot('held', limits);
    const openIn = async () => {
      const fds = await readdir('/proc/self/fd');
      const targets = await Promise.all(fds.map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')));
      return targets.filter((t) => t.startsWith(dir));
    };
    expect((await openIn()).length).toBeGreaterThan(0);
    await s.close();
    expect(await openIn()).toEqual([]);
  });

  it('shows a slot given back to another process, also once it has closed', async () => {
    const dir = join(tmp, 'pending');
    const a = await SqliteStore.open(dir);
    const b = await SqliteStore.open(dir);
    const one = await a.takeSlot('w', { ...limits, limit: 1 });
    if (!one.taken) throw new Error('not taken');
    await a.settleSlot('w', one.slot, { refused: true, holdMs: limits.holdMs, leaseMs: limits.leaseMs });
    await a.close();
    expect((await b.takeSlot('w', { ...limits, limit: 1 })).taken).toBe(true);
    await b.close();
  });

  it('numbers slots uniquely in a window even when two processes draw the same random numbers', async () => {
    const { a, b, close } = await twoProcesses(join(tmp, 'collide'));
    // Processes started with one --random-seed repeat Math.random; a system generator repeating is simulated.
    const random = vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const system = vi.spyOn(globalThis.crypto, 'getRandomValues').mockImplementation((array) => {
      if (array instanceof Uint32Array) array.fill(7);
      return array;
    });
    try {
      const two = { ...limits, limit: 2 };
      const takes = [await a.takeSlot('w', two), await b.takeSlot('w', two), await a.takeSlot('w', two)];
      expect(takes.map((t) => t.taken)).toEqual([true, true, false]);
    } finally {
      random.mockRestore();
      system.mockRestore();
      await close();
    }
  });

  it('counts an answered slot for another process while its hold lasts', async () => {
    const { a, b, close } = await twoProcesses(join(tmp, 'answered'));
    await takeAndAnswer(a, 'w');
    expect((await b.takeSlot('w', { ...limits, limit: 1 })).taken).toBe(false);
    await close();
  });

  it('replaces the windows of another layout (an earlier version) and keeps the stored values', async () => {
    const dir = join(tmp, 'layout');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const { DatabaseSync } = process.getBuiltinModule('node:sqlite');
    const old = new DatabaseSync(join(dir, 'state.db'));
    old.exec(`CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires INTEGER) WITHOUT ROWID;
      INSERT INTO kv VALUES ('grant:kept', 'sealed', NULL);
      CREATE TABLE windows (key TEXT PRIMARY KEY, state TEXT NOT NULL, expires INTEGER NOT NULL) WITHOUT ROWID;
      CREATE TABLE budget (key TEXT PRIMARY KEY, seq INTEGER NOT NULL, paused REAL NOT NULL, open TEXT NOT NULL, settled TEXT NOT NULL, expires REAL NOT NULL) WITHOUT ROWID;`);
    old.close();
    const s = await SqliteStore.open(dir);
    expect(await s.get('grant:kept')).toBe('sealed');
    expect((await s.takeSlot('w', limits)).taken).toBe(true);
    await s.close();
    const db = new DatabaseSync(join(dir, 'state.db'), { readOnly: true });
    expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all()).toEqual([{ name: 'budget' }, { name: 'kv' }]);
    db.close();
  });

  it('sweeps expired values and spent windows', async () => {
    const dir = join(tmp, 'sweep');
    let now = Date.now();
    const s = await SqliteStore.open(dir, { now: () => now });
    await s.set('short', 'x', { ttlMs: 20 });
    await s.set('long', 'y');
    const t = await s.takeSlot('w', { limit: 1, windowMs: 10, holdMs: 20, leaseMs: 40 });
    if (t.taken) await s.settleSlot('w', t.slot, { refused: false, holdMs: 20, leaseMs: 40 });
    now += 60;
    s.sweep();
    await s.close();
    const { DatabaseSync } = process.getBuiltinModule('node:sqlite');
    const db = new DatabaseSync(join(dir, 'state.db'), { readOnly: true });
    expect(db.prepare('SELECT key FROM kv').all()).toEqual([{ key: 'long' }]);
    expect(db.prepare('SELECT key FROM budget').all()).toEqual([]);
    db.close();
  });
});

describe('openStore', () => {
  it('opens Redis for a URL, the SQLite store for a folder, and memory otherwise', async () => {
    const r = await openStore({ redisUrl: redis.url, dir: join(tmp, 'unused'), prefix: 'open:' });
    expect(r).toBeInstanceOf(RedisStore);
    await r.close();
    const f = await openStore({ dir: join(tmp, 'open-file') });
    expect(f).toBeInstanceOf(SqliteStore);
    await f.close();
    expect(await openStore({})).toBeInstanceOf(MemoryStore);
  });

  it('fails clearly, without repeating the URL or its password, when Redis cannot be reached', async () => {
    const err = await openStore({ redisUrl: 'redis://user:s3cret-pass@127.0.0.1:1/0' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/Could not connect to Redis at REDIS_URL: ECONNREFUSED/);
    expect((err as Error).message).not.toContain('s3cret');
    expect((err as Error).message).not.toContain('127.0.0.1:1');
  });
});
