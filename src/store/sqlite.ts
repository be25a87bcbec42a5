// The local store: the processes of one member on one machine (several assistant windows, each with
// its own stdio server) share one SQLite database in the configuration folder, so their rate budget
// is exact across them without running anything. node:sqlite (built into Node, no native build), in
// WAL mode: readers never wait on the writer, and every change of a window is one short transaction
// that takes the write lock up front (BEGIN IMMEDIATE, SELECT, UPDATE, COMMIT), so two processes never
// both read a window and then both write it. node:sqlite would block the event loop while it waits
// for a lock, so it is told not to wait: a locked database answers busy at once, and the change is
// tried again after a short timer, the event loop turning between tries (whileBusy). On
// ':memory:' it is the memory store (src/store/memory.ts). The folder is the owner's only (0700), the
// database 0600 (SQLite gives its WAL files the database's mode). Values are written as given:
// callers seal what is secret (src/store/state-store.ts).
import { chmod, open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { makeDirectory } from '../fs/directories.js';
import { type SetOptions, type StateStore, StoreClosedError } from './state-store.js';
import type { SettleOptions, SlidingWindowStore, WindowLimits, WindowTake } from './windows.js';

/** Expired values and spent windows are deleted after this many writes (and once at open). */
const SWEEP_EVERY = 1000;
/**
 * The first pause before a change that found the database locked is tried again, doubled at each try
 * up to BUSY_RETRY_MAX_MS: another process's transaction takes tens of microseconds, so the first
 * retry mostly succeeds, and one that holds the lock longer is looked at again every few milliseconds.
 */
const BUSY_RETRY_MS = 1;
const BUSY_RETRY_MAX_MS = 10;
/** How long a change waits in all for a database another process keeps locked, the event loop turning between tries. */
const BUSY_WAIT_MS = 5_000;
/** The `budget` table's layout (PRAGMA user_version): raised with each change of it. */
const WINDOWS_LAYOUT = 4;

/**
 * node:sqlite, loaded without the ExperimentalWarning Node prints on its first use (on stderr): that
 * warning only, and only while the module loads; every other warning is emitted as usual.
 */
function loadSqlite(): typeof import('node:sqlite') {
  const emit = process.emitWarning;
  process.emitWarning = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
    const type = warning instanceof Error ? warning.name : typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    const text = warning instanceof Error ? warning.message : warning;
    if (type === 'ExperimentalWarning' && text.startsWith('SQLite ')) return;
    return (emit as (...a: unknown[]) => void).call(this, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    return process.getBuiltinModule('node:sqlite');
  } finally {
    process.emitWarning = emit;
  }
}

/** Another connection holds the lock (SQLITE_BUSY, with any extended code). */
function isBusy(err: unknown): boolean {
  const code = (err as { errcode?: unknown } | null)?.errcode;
  return typeof code === 'number' && (code & 0xff) === 5;
}

/** `fn`, tried again while another process holds the lock, the event loop turning between tries, for BUSY_WAIT_MS in all. */
async function whileBusy<T>(fn: () => T): Promise<T> {
  const until = performance.now() + BUSY_WAIT_MS;
  for (let pause = BUSY_RETRY_MS; ; pause = Math.min(pause * 2, BUSY_RETRY_MAX_MS)) {
    try {
      return fn();
    } catch (err) {
      if (!isBusy(err) || performance.now() >= until) throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

/**
 * A window as its row keeps it, in JSON (docs/architecture.md, Rate budget: when a slot counts, and
 * why): the seq, the pause's end, and each slot by its number with when it stops counting: the end
 * of its lease while unanswered, a hold after its answer once settled.
 */
interface WindowState {
  /** Takes ever made in the window (WindowTake's seq). */
  seq: number;
  pausedUntil: number;
  open: Map<number, number>;
  settled: Map<number, number>;
}

/** The window a row holds (none: a new window), less what no longer counts at `now`. */
function readWindow(state: string | undefined, now: number): WindowState {
  type Slots = Array<[number, number]>;
  const s = state === undefined ? undefined : (JSON.parse(state) as { seq: number; pausedUntil: number; open: Slots; settled: Slots });
  const counting = (slots: Slots = []) => new Map(slots.filter(([, end]) => end > now));
  return { seq: s?.seq ?? 0, pausedUntil: s?.pausedUntil ?? 0, open: counting(s?.open), settled: counting(s?.settled) };
}

function takeFrom(w: WindowState, now: number, limits: WindowLimits, id: number): WindowTake {
  if (w.pausedUntil > now) return { taken: false, waitMs: Math.ceil(w.pausedUntil - now), paused: true };
  const need = w.open.size + w.settled.size - Math.max(0, limits.limit) + 1;
  if (need <= 0) {
    // Two slots of one number would count as one: unique in the window, under its write lock.
    while (w.open.has(id) || w.settled.has(id)) id = (id % 2 ** 52) + 1;
    w.open.set(id, now + limits.leaseMs);
    // A settled slot's end is its settle plus holdMs; settled within the last window: end > this.
    const recent = now + limits.holdMs - limits.windowMs;
    return { taken: true, slot: String(id), count: w.open.size + [...w.settled.values()].filter((end) => end > recent).length, seq: ++w.seq };
  }
  // Until the need-th settled slot expires; an unsettled one frees no sooner than holdMs.
  const ends = [...w.settled.values()].sort((a, b) => a - b);
  const waitMs = ends.length < need ? limits.holdMs : (ends[need - 1] as number) - now;
  return { taken: false, waitMs: Math.max(1, Math.ceil(waitMs)), paused: false };
}

export class SqliteStore implements StateStore, SlidingWindowStore {
  readonly #db: DatabaseSync;
  readonly #now: () => number;
  readonly #q: Record<
    'get' | 'put' | 'putIfAbsent' | 'take' | 'del' | 'begin' | 'commit' | 'window' | 'putWindow' | 'sweepValues' | 'sweepWindows',
    StatementSync
  >;
  /** Slot numbers: a random base per store (a process), counted up; unique in a window for certain (takeFrom). */
  readonly #slotBase = (globalThis.crypto.getRandomValues(new Uint32Array(1))[0] as number) * 2 ** 20;
  #slotCount = 0;
  #writes = 0;

  /** The database at `path` (':memory:': this process's alone, as MemoryStore). Throws SQLITE_BUSY while another process sets it up. */
  constructor(path: string, opts: { now?: () => number } = {}) {
    // SQLite's own wait for a lock sleeps in the calling thread: none (whileBusy waits instead).
    const db = new (loadSqlite().DatabaseSync)(path, { timeout: 0 });
    this.#db = db;
    this.#now = opts.now ?? Date.now;
    try {
      db.exec(`PRAGMA journal_mode = WAL;
        PRAGMA synchronous = NORMAL;
        CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires INTEGER) WITHOUT ROWID;`);
      // The windows' layout, by its version: another layout's windows are dropped (they hold a minute of
      // slots at most; a process of that version counts alone from then on, as when its store fails).
      db.exec('BEGIN IMMEDIATE');
      if ((db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version !== WINDOWS_LAYOUT) {
        db.exec(`DROP TABLE IF EXISTS windows;
          DROP TABLE IF EXISTS budget;
          CREATE TABLE budget (key TEXT PRIMARY KEY, state TEXT NOT NULL, expires REAL NOT NULL) WITHOUT ROWID;
          PRAGMA user_version = ${WINDOWS_LAYOUT};`);
      }
      db.exec('COMMIT');
      const live = '(expires IS NULL OR expires > :now)';
      this.#q = {
        get: db.prepare(`SELECT value FROM kv WHERE key = :key AND ${live}`),
        put: db.prepare('INSERT OR REPLACE INTO kv (key, value, expires) VALUES (:key, :value, :expires)'),
        // Sets only over nothing or an expired value: `changes` says whether it did.
        putIfAbsent: db.prepare(
          'INSERT INTO kv (key, value, expires) VALUES (:key, :value, :expires) ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires = excluded.expires WHERE kv.expires IS NOT NULL AND kv.expires <= :now',
        ),
        take: db.prepare('DELETE FROM kv WHERE key = :key RETURNING value, expires'),
        del: db.prepare('DELETE FROM kv WHERE key = :key'),
        begin: db.prepare('BEGIN IMMEDIATE'),
        commit: db.prepare('COMMIT'),
        window: db.prepare('SELECT state FROM budget WHERE key = ?'),
        putWindow: db.prepare('INSERT OR REPLACE INTO budget (key, state, expires) VALUES (?, ?, ?)'),
        sweepValues: db.prepare('DELETE FROM kv WHERE expires <= :now'),
        sweepWindows: db.prepare('DELETE FROM budget WHERE expires <= :now'),
      };
      this.sweep();
    } catch (err) {
      db.close();
      throw err;
    }
  }

  /** Open (creating them owner-only) the folder `dir` and its database. */
  static async open(dir: string, opts: { now?: () => number } = {}): Promise<SqliteStore> {
    await makeDirectory(dir, 0o700);
    // mkdir's mode applies only to what it creates: a folder made earlier by hand may be wider.
    if (process.platform !== 'win32' && ((await stat(dir)).mode & 0o077) !== 0) await chmod(dir, 0o700);
    const path = join(dir, 'state.db');
    // Created owner-only before SQLite opens it (it would use the umask's mode).
    await (await open(path, 'a', 0o600)).close();
    return whileBusy(() => new SqliteStore(path, opts));
  }

  /** `fn` on the open database, tried again while another process holds the lock. */
  #run<T>(fn: () => T): Promise<T> {
    return whileBusy(() => {
      if (!this.#db.isOpen) throw new StoreClosedError('the SQLite store is closed');
      return fn();
    });
  }

  /** `fn` in one transaction holding the write lock from its start. */
  #tx<T>(fn: () => T): Promise<T> {
    return this.#run(() => {
      this.#q.begin.run();
      try {
        const out = fn();
        this.#q.commit.run();
        return out;
      } catch (err) {
        if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
        throw err;
      }
    });
  }

  #wrote(): void {
    if (++this.#writes % SWEEP_EVERY === 0) this.sweep();
  }

  #expires(opts?: SetOptions): number | null {
    return opts?.ttlMs !== undefined ? this.#now() + opts.ttlMs : null;
  }

  #get(key: string): string | undefined {
    return (this.#q.get.get({ key, now: this.#now() }) as { value: string } | undefined)?.value;
  }

  #put(key: string, value: string | undefined, opts?: SetOptions): void {
    if (value === undefined) this.#q.del.run({ key });
    else this.#q.put.run({ key, value, expires: this.#expires(opts) });
    this.#wrote();
  }

  get(key: string): Promise<string | undefined> {
    return this.#run(() => this.#get(key));
  }

  set(key: string, value: string, opts?: SetOptions): Promise<void> {
    return this.#run(() => this.#put(key, value, opts));
  }

  setIfAbsent(key: string, value: string, opts?: SetOptions): Promise<boolean> {
    return this.#run(() => {
      const set = this.#q.putIfAbsent.run({ key, value, expires: this.#expires(opts), now: this.#now() }).changes > 0;
      if (set) this.#wrote();
      return set;
    });
  }

  take(key: string): Promise<string | undefined> {
    return this.#run(() => {
      const row = this.#q.take.get({ key }) as { value: string; expires: number | null } | undefined;
      return row !== undefined && (row.expires === null || row.expires > this.#now()) ? row.value : undefined;
    });
  }

  compareAndSet(key: string, expected: string | undefined, value: string | undefined, opts?: SetOptions): Promise<boolean> {
    return this.#tx(() => {
      if (this.#get(key) !== expected) return false;
      this.#put(key, value, opts);
      return true;
    });
  }

  delete(key: string): Promise<void> {
    return this.#run(() => void this.#q.del.run({ key }));
  }

  /** One round on the window `key`: read it, change it, write it back, in one transaction. */
  #inWindow<T>(key: string, change: (w: WindowState, now: number) => T): Promise<T> {
    return this.#tx(() => {
      const now = this.#now();
      const w = readWindow((this.#q.window.get(key) as { state: string } | undefined)?.state, now);
      const out = change(w, now);
      // Deleted by the sweep once nothing in it counts (every slot expired, no pause).
      let expires = w.pausedUntil;
      for (const end of [...w.open.values(), ...w.settled.values()]) expires = Math.max(expires, end);
      this.#q.putWindow.run(key, JSON.stringify({ seq: w.seq, pausedUntil: w.pausedUntil, open: [...w.open], settled: [...w.settled] }), expires);
      this.#wrote();
      return out;
    });
  }

  takeSlot(key: string, limits: WindowLimits): Promise<WindowTake> {
    const id = this.#slotBase + (this.#slotCount++ % 2 ** 20) + 1;
    return this.#inWindow(key, (w, now) => takeFrom(w, now, limits, id));
  }

  settleSlot(key: string, slot: string, opts: SettleOptions): Promise<{ seq: number }> {
    return this.#inWindow(key, (w, now) => {
      w.open.delete(Number(slot));
      // Counted a hold from its answer, even when its lease ran out before (a very slow request).
      if (!opts.refused) w.settled.set(Number(slot), now + opts.holdMs);
      return { seq: w.seq };
    });
  }

  pauseWindow(key: string, forMs: number): Promise<void> {
    return this.#inWindow(key, (w, now) => {
      w.pausedUntil = Math.max(w.pausedUntil, now + forMs);
    });
  }

  /** Delete expired values and windows nothing counts in any more. */
  sweep(): void {
    const now = this.#now();
    this.#q.sweepValues.run({ now });
    this.#q.sweepWindows.run({ now });
  }

  async close(): Promise<void> {
    if (!this.#db.isOpen) return;
    try {
      this.sweep();
    } catch {
      // Another process is writing: a later sweep (its own, or this database's next open) deletes them.
    }
    this.#db.close();
  }
}
