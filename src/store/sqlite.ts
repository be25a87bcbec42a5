// The local store: the processes of one member on one machine (several assistant windows, each with
// its own stdio server) share one SQLite database in the configuration folder, so their rate budget
// is exact across them without running anything. node:sqlite (built into Node, no native build), in
// WAL mode: readers never wait on the writer, and every change is one short transaction that takes
// the write lock up front, so two processes never both read a window and then both write it. A window
// is one row (below), changed in place by one UPDATE statement. On ':memory:' it is the memory store
// (src/store/memory.ts). The folder is the owner's only (0700), the database 0600 (SQLite gives its
// WAL files the database's mode). Values are written as given: callers seal what is secret
// (src/store/state-store.ts).
import { chmod, open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { makeDirectory } from '../fs/directories.js';
import type { SetOptions, StateStore } from './state-store.js';
import type { SettleOptions, SlidingWindowStore, WindowLimits, WindowTake } from './windows.js';

/** Expired values and spent windows are deleted after this many writes (and once at open). */
const SWEEP_EVERY = 1000;
/** How long a change waits for another process's transaction (each is tens of microseconds). */
const BUSY_TIMEOUT_MS = 5_000;
/** The longest an answered slot's settle waits to be folded into the next round (at most half its hold). */
const SETTLE_DELAY_MS = 1_000;
/** The layout of the `budget` table (PRAGMA user_version): raised with each change of it. */
const WINDOWS_LAYOUT = 3;

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

/**
 * A window as its row keeps it (docs/architecture.md, Rate budget: when a slot counts, and why): one
 * blob of float64s, the seq, the pause's end, then a pair per slot: (number, end of lease) for an
 * unanswered one, (0, when it stops counting) for an answered one. A blob of numbers costs a fraction
 * of JSON text to read and write, and one column lets one UPDATE, calling budget_round (below), read
 * and write it: every call's request waits on that round.
 */
interface WindowState {
  /** Takes ever made in the window (WindowTake's seq). */
  seq: number;
  pausedUntil: number;
  open: Map<number, number>;
  settled: number[];
}

function takeFrom(w: WindowState, now: number, limits: WindowLimits, id: number): WindowTake {
  if (w.pausedUntil > now) return { taken: false, waitMs: Math.ceil(w.pausedUntil - now), paused: true };
  const need = w.open.size + w.settled.length - Math.max(0, limits.limit) + 1;
  if (need <= 0) {
    // Two slots of one number would count as one: unique in the window, under its write lock.
    while (w.open.has(id)) id = (id % 2 ** 52) + 1;
    w.open.set(id, now + limits.leaseMs);
    // A settled slot's end is its settle plus holdMs; settled within the last window: end > this.
    const recent = now + limits.holdMs - limits.windowMs;
    return { taken: true, slot: String(id), count: w.open.size + w.settled.filter((end) => end > recent).length, seq: ++w.seq };
  }
  // Until the need-th settled slot expires; an unsettled one frees no sooner than holdMs.
  const ends = w.settled.toSorted((a, b) => a - b);
  const waitMs = ends.length < need ? limits.holdMs : (ends[need - 1] as number) - now;
  return { taken: false, waitMs: Math.max(1, Math.ceil(waitMs)), paused: false };
}

/** The window `blob` holds (an empty one, or none: a new window), less what no longer counts at `now`. */
function readWindow(blob: Uint8Array | null, now: number): WindowState {
  const w: WindowState = { seq: 0, pausedUntil: 0, open: new Map(), settled: [] };
  if (blob === null || blob.byteLength < 16) return w;
  // A Float64Array needs an aligned offset: copied when the blob's is not.
  const f = blob.byteOffset % 8 === 0 ? new Float64Array(blob.buffer, blob.byteOffset, blob.byteLength / 8) : new Float64Array(blob.slice().buffer);
  w.seq = f[0] as number;
  w.pausedUntil = f[1] as number;
  for (let i = 2; i < f.length; i += 2) {
    const slot = f[i] as number;
    const end = f[i + 1] as number;
    if (end <= now) continue;
    if (slot === 0) w.settled.push(end);
    else w.open.set(slot, end);
  }
  return w;
}

/** Where writeWindow lays a window out: SQLite copies the blob it is given, so one array serves every round. */
let scratch = new Float64Array(256);

function writeWindow(w: WindowState): Uint8Array {
  const n = 2 + 2 * (w.open.size + w.settled.length);
  if (scratch.length < n) scratch = new Float64Array(2 * n);
  const f = scratch;
  f[0] = w.seq;
  f[1] = w.pausedUntil;
  let i = 2;
  for (const [slot, end] of w.open) {
    f[i++] = slot;
    f[i++] = end;
  }
  for (const end of w.settled) {
    f[i++] = 0;
    f[i++] = end;
  }
  return new Uint8Array(f.buffer, 0, 8 * n);
}

/** An answer recorded: counted a hold from when it came (even past its lease: a very slow request), or not at all if refused. */
interface Settle {
  slot: number;
  at: number;
  opts: SettleOptions;
  /** Written by then at the latest: half its hold after it, or a second if sooner. */
  due: number;
}

/** A round on a window: its key, the change, and what the change answered once budget_round ran. */
interface Round {
  key: string;
  change: (w: WindowState, now: number) => unknown;
  out?: unknown;
  ran: boolean;
}

export class SqliteStore implements StateStore, SlidingWindowStore {
  readonly #db: DatabaseSync;
  readonly #now: () => number;
  readonly #q: Record<
    'get' | 'put' | 'putIfAbsent' | 'take' | 'del' | 'begin' | 'commit' | 'window' | 'addWindow' | 'round' | 'sweepValues' | 'sweepWindows',
    StatementSync
  >;
  /** The round budget_round is applying. */
  #round: Round | undefined;
  /** Settles made and not yet written, by window (settleSlot). */
  readonly #unwritten = new Map<string, Settle[]>();
  #writing: NodeJS.Timeout | undefined;
  /** When #writing fires. */
  #writingAt = Infinity;
  /** Slot numbers: a random base per store (a process), counted up; unique in a window for certain (takeFrom). */
  readonly #slotBase = (globalThis.crypto.getRandomValues(new Uint32Array(1))[0] as number) * 2 ** 20;
  #slotCount = 0;
  #writes = 0;

  /** The database at `path` (':memory:': this process's alone, as MemoryStore). */
  constructor(path: string, opts: { now?: () => number } = {}) {
    const db = new (loadSqlite().DatabaseSync)(path, { timeout: BUSY_TIMEOUT_MS });
    this.#db = db;
    this.#now = opts.now ?? Date.now;
    db.exec(`PRAGMA journal_mode = WAL;
      PRAGMA synchronous = NORMAL;
      CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires INTEGER) WITHOUT ROWID;`);
    // The windows' layout, by its version: another layout's windows are dropped (they hold a minute of
    // slots at most; a process of that version counts alone from then on, as when its store fails).
    db.exec('BEGIN IMMEDIATE');
    try {
      if ((db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version !== WINDOWS_LAYOUT) {
        db.exec(`DROP TABLE IF EXISTS windows;
          DROP TABLE IF EXISTS budget;
          CREATE TABLE budget (key TEXT PRIMARY KEY, state BLOB NOT NULL) WITHOUT ROWID;
          PRAGMA user_version = ${WINDOWS_LAYOUT};`);
      }
      db.exec('COMMIT');
    } catch (err) {
      db.close();
      throw err;
    }
    // One round on a window, inside the UPDATE that writes it: read, changed and written back under the
    // write lock the statement takes, so a round is one statement on the path of every call's request.
    // Only this connection's own SQL can call it.
    db.function('budget_round', { directOnly: true }, (state) => this.#apply(state as Uint8Array | null));
    // Whether nothing in a window counts at `now` any more (no slot, no pause): the sweep deletes it.
    db.function('budget_spent', { directOnly: true, deterministic: true }, (state, now) => {
      const w = readWindow(state as Uint8Array | null, now as number);
      return w.open.size + w.settled.length === 0 && w.pausedUntil <= (now as number) ? 1 : 0;
    });
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
      // A window's row changed in place (a fraction of the cost of INSERT OR REPLACE, which deletes and inserts it).
      round: db.prepare('UPDATE budget SET state = budget_round(state) WHERE key = ?'),
      addWindow: db.prepare("INSERT OR IGNORE INTO budget (key, state) VALUES (?, x'')"),
      sweepValues: db.prepare('DELETE FROM kv WHERE expires <= :now'),
      sweepWindows: db.prepare('DELETE FROM budget WHERE budget_spent(state, :now)'),
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
    this.#q.begin.run();
    try {
      const out = fn();
      this.#q.commit.run();
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

  /** One round on the window `key`: read it, write what was settled meanwhile, change it, write it back, in one statement. */
  #inWindow<T>(key: string, change: (w: WindowState, now: number) => T): T {
    const round: Round = { key, change, ran: false };
    this.#round = round;
    try {
      // A window not yet in the table (or swept by another process meanwhile) is added empty first;
      // twice at most: it is swept only when nothing in it counts, and sweeps are a thousand writes apart.
      for (let tries = 0; this.#q.round.run(key).changes === 0; tries++) {
        if (tries === 2) throw new Error(`the budget window ${key} could not be added`);
        this.#q.addWindow.run(key);
      }
    } finally {
      this.#round = undefined;
    }
    this.#wrote();
    // Only once written: a round that failed leaves them for the next. The timer stays: when it fires
    // it writes what is due, or waits for the oldest settle made since (back-to-back calls then fold
    // every settle into the next take, and no call sets a timer of its own).
    this.#unwritten.delete(key);
    return round.out as T;
  }

  /** budget_round: the round in progress applied to the window's stored state, the new state returned. */
  #apply(state: Uint8Array | null): Uint8Array {
    const round = this.#round;
    // Called only by the round statement, once, for its one row.
    if (round === undefined || round.ran) throw new Error('budget_round outside a round');
    round.ran = true;
    const now = this.#now();
    const w = readWindow(state, now);
    for (const s of this.#unwritten.get(round.key) ?? []) {
      w.open.delete(s.slot);
      // Counted from its answer even when its lease ran out before (a very slow request).
      if (!s.opts.refused && s.at + s.opts.holdMs > now) w.settled.push(s.at + s.opts.holdMs);
    }
    round.out = round.change(w, now);
    return writeWindow(w);
  }

  async takeSlot(key: string, limits: WindowLimits): Promise<WindowTake> {
    const id = this.#slotBase + (this.#slotCount++ % 2 ** 20) + 1;
    return this.#inWindow(key, (w, now) => takeFrom(w, now, limits, id));
  }

  /**
   * A refusal is written at once: it frees a slot. An answer is written by the next round on its
   * window (back-to-back calls: one statement a call), or after at most half its hold: until then
   * the slot counts as unanswered, as it does for another process until its hold ends anyway, so no
   * count and no wait changes. The seq, read now when asked for, is the window's at the answer: a read
   * the answer of every call would otherwise wait on.
   */
  async settleSlot(key: string, slot: string, opts: SettleOptions): Promise<{ seq: number | undefined }> {
    const unwritten = this.#unwritten.get(key) ?? [];
    const at = this.#now();
    const due = at + Math.min(SETTLE_DELAY_MS, opts.holdMs / 2);
    unwritten.push({ slot: Number(slot), at, opts, due });
    this.#unwritten.set(key, unwritten);
    if (opts.refused) this.#writeSettles();
    else if (due < this.#writingAt) this.#writeBy(due);
    if (opts.seq !== true) return { seq: undefined };
    const row = this.#q.window.get(key) as { state: Uint8Array } | undefined;
    return { seq: row === undefined ? 0 : readWindow(row.state, this.#now()).seq };
  }

  /** The timer that writes the settles not folded into a round by `at`. */
  #writeBy(at: number): void {
    clearTimeout(this.#writing);
    this.#writingAt = at;
    this.#writing = setTimeout(() => this.#due(), Math.max(0, at - this.#now())).unref();
  }

  /** The timer fired: the settles due are written (with every other); if none is, it waits for the first. */
  #due(): void {
    const firedFor = this.#writingAt;
    this.#writing = undefined;
    this.#writingAt = Infinity;
    let first = Infinity;
    for (const settles of this.#unwritten.values()) for (const s of settles) first = Math.min(first, s.due);
    if (first <= firedFor) this.#writeSettles();
    else if (first < Infinity) this.#writeBy(first);
  }

  #writeSettles(): void {
    clearTimeout(this.#writing);
    this.#writing = undefined;
    this.#writingAt = Infinity;
    try {
      for (const key of [...this.#unwritten.keys()]) this.#inWindow(key, () => {});
    } catch {
      // Not written (the database locked past its timeout): kept for the next round on each window, or
      // close; meanwhile the slots count as unanswered.
    }
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
    if (!this.#db.isOpen) return;
    this.#writeSettles();
    this.sweep();
    this.#db.close();
  }
}
