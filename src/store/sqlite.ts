// The local store: the processes of one member on one machine (several assistant windows, each with
// its own stdio server) share one SQLite database in the configuration folder, so their rate budget
// is exact across them without running anything. node:sqlite (built into Node, no native build), in
// WAL mode: readers never wait on the writer, and every change is one short transaction that takes
// the write lock up front (BEGIN IMMEDIATE), so two processes never both read a window and then both
// write it. A window is one row: the plain object below, rewritten whole. On ':memory:' it is the
// memory store (src/store/memory.ts). The folder is the owner's only (0700), the database 0600 (SQLite gives its WAL files the
// database's mode). Values are written as given: callers seal what is secret (src/store/state-store.ts).
import { chmod, open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { makeDirectory } from '../fs/directories.js';
import type { SetOptions, StateStore } from './state-store.js';
import { type SettleOptions, type SlidingWindowStore, slotNamer, type WindowLimits, type WindowTake } from './windows.js';

/** Expired values and spent windows are deleted after this many writes (and once at open). */
const SWEEP_EVERY = 1000;
/** How long a change waits for another process's transaction (each is tens of microseconds). */
const BUSY_TIMEOUT_MS = 5_000;

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

/** A window as a row keeps it (docs/architecture.md, Rate budget: when a slot counts, and why). */
interface WindowState {
  /** `end`: epoch ms when the slot stops counting; `open`: not settled yet (`end` is its lease). */
  slots: Array<{ id: string; end: number; open?: true }>;
  seq: number;
  pausedUntil: number;
}

function takeFrom(w: WindowState, now: number, limits: WindowLimits, id: string): WindowTake {
  if (w.pausedUntil > now) return { taken: false, waitMs: Math.ceil(w.pausedUntil - now), paused: true };
  if (w.slots.length < limits.limit) {
    w.slots.push({ id, end: now + limits.leaseMs, open: true });
    w.seq++;
    // A settled slot's end is its settle plus holdMs; settled within the last window: end > this.
    const recent = now + limits.holdMs - limits.windowMs;
    return { taken: true, slot: id, count: w.slots.filter((s) => s.open || s.end > recent).length, seq: w.seq };
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

function settleIn(w: WindowState, now: number, id: string, opts: SettleOptions): { seq: number } {
  w.slots = w.slots.filter((s) => s.id !== id);
  // Counted from now even when its lease ran out before the answer came (a very slow request).
  if (!opts.refused) w.slots.push({ id, end: now + opts.holdMs });
  return { seq: w.seq };
}

export class SqliteStore implements StateStore, SlidingWindowStore {
  readonly #db: DatabaseSync;
  readonly #now: () => number;
  readonly #slotName = slotNamer();
  readonly #q: Record<'get' | 'put' | 'putIfAbsent' | 'take' | 'del' | 'window' | 'putWindow' | 'sweepValues' | 'sweepWindows', StatementSync>;
  #writes = 0;

  /** The database at `path` (':memory:': this process's alone, as MemoryStore). */
  constructor(path: string, opts: { now?: () => number } = {}) {
    const db = new (loadSqlite().DatabaseSync)(path, { timeout: BUSY_TIMEOUT_MS });
    this.#db = db;
    this.#now = opts.now ?? Date.now;
    db.exec(`PRAGMA journal_mode = WAL;
      PRAGMA synchronous = NORMAL;
      CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires INTEGER) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS windows (key TEXT PRIMARY KEY, state TEXT NOT NULL, expires INTEGER NOT NULL) WITHOUT ROWID;`);
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
      window: db.prepare('SELECT state FROM windows WHERE key = :key'),
      putWindow: db.prepare('INSERT OR REPLACE INTO windows (key, state, expires) VALUES (:key, :state, :expires)'),
      sweepValues: db.prepare('DELETE FROM kv WHERE expires <= :now'),
      sweepWindows: db.prepare('DELETE FROM windows WHERE expires <= :now'),
    };
    this.sweep();
  }

  /** Open (creating them owner-only) the folder `dir` and its database. */
  static async open(dir: string, opts: { now?: () => number } = {}): Promise<SqliteStore> {
    await makeDirectory(dir, 0o700);
    // mkdir's mode applies only to what it creates: a folder made earlier by hand may be wider.
    if (process.platform !== 'win32' && ((await stat(dir)).mode & 0o077) !== 0) await chmod(dir, 0o700);
    const path = join(dir, 'state.db');
    // Created owner-only before SQLite opens it (it would use the umask's mode).
    await (await open(path, 'a', 0o600)).close();
    return new SqliteStore(path, opts);
  }

  /** `fn` in one transaction holding the write lock from its start. */
  #tx<T>(fn: () => T): T {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const out = fn();
      this.#db.exec('COMMIT');
      return out;
    } catch (err) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      throw err;
    }
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

  async get(key: string): Promise<string | undefined> {
    return this.#get(key);
  }

  async set(key: string, value: string, opts?: SetOptions): Promise<void> {
    this.#put(key, value, opts);
  }

  async setIfAbsent(key: string, value: string, opts?: SetOptions): Promise<boolean> {
    const set = this.#q.putIfAbsent.run({ key, value, expires: this.#expires(opts), now: this.#now() }).changes > 0;
    if (set) this.#wrote();
    return set;
  }

  async take(key: string): Promise<string | undefined> {
    const row = this.#q.take.get({ key }) as { value: string; expires: number | null } | undefined;
    return row !== undefined && (row.expires === null || row.expires > this.#now()) ? row.value : undefined;
  }

  async compareAndSet(key: string, expected: string | undefined, value: string | undefined, opts?: SetOptions): Promise<boolean> {
    return this.#tx(() => {
      if (this.#get(key) !== expected) return false;
      this.#put(key, value, opts);
      return true;
    });
  }

  async delete(key: string): Promise<void> {
    this.#q.del.run({ key });
  }

  /** One round on the window `key`: read it, change it, write it back, in one transaction. */
  #inWindow<T>(key: string, change: (w: WindowState, now: number) => T): T {
    return this.#tx(() => {
      const row = this.#q.window.get({ key }) as { state: string } | undefined;
      const w: WindowState = row === undefined ? { slots: [], seq: 0, pausedUntil: 0 } : JSON.parse(row.state);
      const now = this.#now();
      w.slots = w.slots.filter((s) => s.end > now);
      const out = change(w, now);
      // Deleted by the sweep once nothing in it counts (every slot expired, no pause).
      const expires = Math.max(w.pausedUntil, ...w.slots.map((s) => s.end));
      this.#q.putWindow.run({ key, state: JSON.stringify(w), expires });
      this.#wrote();
      return out;
    });
  }

  async takeSlot(key: string, limits: WindowLimits): Promise<WindowTake> {
    const id = this.#slotName();
    return this.#inWindow(key, (w, now) => takeFrom(w, now, limits, id));
  }

  async settleSlot(key: string, slot: string, opts: SettleOptions): Promise<{ seq: number }> {
    return this.#inWindow(key, (w, now) => settleIn(w, now, slot, opts));
  }

  async pauseWindow(key: string, forMs: number): Promise<void> {
    this.#inWindow(key, (w, now) => {
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
    if (this.#db.isOpen) this.#db.close();
  }
}
