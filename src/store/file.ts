// The file store: the local processes of one member on one machine (several assistant windows, each
// with its own stdio server) share it through a folder in the configuration directory, so their rate
// budget is exact across them without running anything. One file per key, named by a hash of the key;
// every change is made under that key's lock file (src/fs/file-lock.ts, which survives a holder that
// died). Values are written whole by rename (src/fs/atomic-write.ts), so a reader never sees half a file;
// windows, rewritten on every request, in place under their lock (writeWindowSync says why). The
// folder is the owner's only (0700), every file 0600. Values are written as given: callers seal what
// is secret before storing it (src/store/state-store.ts).
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import { chmod, readdir, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { makeDirectory } from '../fs/directories.js';
import { lockTokenOwner, processAlive, withFileLock, withFileLockSync } from '../fs/file-lock.js';
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

interface ValueRecord {
  key: string;
  value: string;
  /** Epoch ms, or null: kept until deleted. */
  expires: number | null;
}

interface WindowRecord {
  key: string;
  window: WindowState;
}

/**
 * A window's file as this process holds it between rounds: its names, made once (a hash per round
 * was a tenth of a round's time), its descriptor, kept open (an open and a close fewer per round),
 * and what this process last wrote there.
 */
interface WindowFile {
  path: string;
  lock: string;
  /** Open between rounds where a file may be deleted while open (not Windows: see KEEP_OPEN). */
  fd: number | undefined;
  /**
   * The bytes this process's last round wrote and the window they encode. A round that reads the
   * same bytes back (no other process wrote since, the common case) takes the window as it is
   * instead of parsing it again: the parse grows with the window (120 slots a minute: 6 KB).
   */
  written: { bytes: Buffer; window: WindowState } | undefined;
}

interface WindowBatch {
  ops: Array<{ change: (w: WindowState, now: number) => unknown; resolve: (v: unknown) => void; reject: (err: unknown) => void }>;
  /** The round (and the rounds after it) under way, once started. */
  done: Promise<void> | undefined;
  /** A round is due: on the next turn of the event loop (`soon`), or after a settle's grace. */
  due: { timer: NodeJS.Timeout | NodeJS.Immediate; soon: boolean } | undefined;
}

/**
 * How long a settle may wait for a round that something else starts (the next request's take, most
 * often): one round for both, instead of one each. Its slot counts meanwhile as unanswered, which is
 * safe; a waiter of another process learns its end this much later at most (in a window of a minute),
 * and this process's limiter learns the answer's headers this much later (a slow start's or a
 * probe's next request waits that much more). Long enough for the next call of a client that runs a
 * turn's calls one after another (the next comes a few to tens of milliseconds after an answer): a
 * settle alone costs a round (a lock, a read, a write: ten system calls) and a wake-up of its own.
 * Measured (calls 6 ms apart, CPU per call of the stdio server): 5 ms, 1.15 ms; 20 ms, 1.06 ms.
 */
const SETTLE_GRACE_MS = 20;

/**
 * Whether a window's descriptor stays open between rounds. On Windows a file deleted while open
 * (the sweep of another process) keeps its name until the last handle closes, and nobody could
 * create the window again meanwhile: there each round opens and closes it, as before.
 */
const KEEP_OPEN = process.platform !== 'win32';

/** Trailing spaces a window's file may keep after it shrank (a few slots' worth). */
const TRUNCATE_PAST_BYTES = 512;

/** Held for a read and a write (well under a millisecond): waiters poll often. */
const LOCK_OPTIONS = { pollMs: 2, staleMs: 10_000, timeoutMs: 30_000 };

/** Expired files and leftovers of killed writers are removed just after open and then this often. */
const SWEEP_EVERY_MS = 10 * 60_000;
/** A temporary file this old belongs to a writer that died. */
const STALE_TEMP_MS = 60_000;

export interface FileStoreOptions {
  now?: () => number;
}

export class FileStore implements StateStore, SlidingWindowStore {
  readonly dir: string;
  readonly #now: () => number;
  readonly #slotName = slotNamer();
  /** One change at a time per file within this process, before the lock file orders processes. */
  readonly #chains = new Map<string, Promise<unknown>>();
  /** Window changes waiting for their round under the window's lock, by key. */
  readonly #batches = new Map<string, WindowBatch>();
  /** The windows this process has used, by key (one per token and rate: a handful). */
  readonly #windows = new Map<string, WindowFile>();
  #sweeper: NodeJS.Timeout | undefined;
  /** The background sweep under way (it opens files as it reads them), for close to wait on. */
  #sweeping: Promise<void> | undefined;
  #closed = false;

  private constructor(dir: string, opts: FileStoreOptions) {
    this.dir = dir;
    this.#now = opts.now ?? Date.now;
  }

  /** Open (creating it owner-only) the store in `dir`. */
  static async open(dir: string, opts: FileStoreOptions = {}): Promise<FileStore> {
    await makeDirectory(dir, 0o700);
    // mkdir's mode applies only to what it creates: a folder made earlier by hand may be wider.
    if (process.platform !== 'win32' && ((await stat(dir)).mode & 0o077) !== 0) await chmod(dir, 0o700);
    const store = new FileStore(dir, opts);
    // Swept soon after, not before, it is opened: a server's start-up does not wait on a folder scan.
    // Not once closed: a sweep left running would read the folder's files after close returned.
    const sweep = () => {
      if (store.#closed || store.#sweeping) return;
      const run = store.sweep().catch(() => {});
      store.#sweeping = run;
      void run.then(() => {
        store.#sweeping = undefined;
      });
    };
    setImmediate(sweep).unref();
    store.#sweeper = setInterval(sweep, SWEEP_EVERY_MS);
    store.#sweeper.unref();
    return store;
  }

  #file(kind: 'k' | 'w', key: string): string {
    return join(this.dir, `${kind}-${createHash('sha256').update(key).digest('hex').slice(0, 40)}.json`);
  }

  /** Run `fn` holding the file's lock: in this process first (no polling), then across processes. */
  #locked<T>(file: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.#chains.get(file) ?? Promise.resolve();
    const run = prev.then(() => withFileLock(`${file}.lock`, fn, LOCK_OPTIONS));
    const tail = run.catch(() => {});
    this.#chains.set(file, tail);
    void tail.then(() => {
      if (this.#chains.get(file) === tail) this.#chains.delete(file);
    });
    return run;
  }

  async #readValue(file: string, key: string): Promise<ValueRecord | undefined> {
    const r = await readJson(file);
    if (!isValueRecord(r) || r.key !== key) return undefined;
    if (r.expires !== null && r.expires <= this.#now()) return undefined;
    return r;
  }

  async #writeValue(file: string, key: string, value: string, opts?: SetOptions): Promise<void> {
    const record: ValueRecord = { key, value, expires: opts?.ttlMs !== undefined ? this.#now() + opts.ttlMs : null };
    await writeFileAtomic(file, JSON.stringify(record));
  }

  async get(key: string): Promise<string | undefined> {
    // No lock: a rename replaces the file whole, so a read sees the old value or the new one.
    return (await this.#readValue(this.#file('k', key), key))?.value;
  }

  async set(key: string, value: string, opts?: SetOptions): Promise<void> {
    const file = this.#file('k', key);
    await this.#locked(file, () => this.#writeValue(file, key, value, opts));
  }

  async setIfAbsent(key: string, value: string, opts?: SetOptions): Promise<boolean> {
    const file = this.#file('k', key);
    return this.#locked(file, async () => {
      if (await this.#readValue(file, key)) return false;
      await this.#writeValue(file, key, value, opts);
      return true;
    });
  }

  async take(key: string): Promise<string | undefined> {
    const file = this.#file('k', key);
    return this.#locked(file, async () => {
      const r = await this.#readValue(file, key);
      await unlinkIfThere(file);
      return r?.value;
    });
  }

  async compareAndSet(key: string, expected: string | undefined, value: string | undefined, opts?: SetOptions): Promise<boolean> {
    const file = this.#file('k', key);
    return this.#locked(file, async () => {
      if ((await this.#readValue(file, key))?.value !== expected) return false;
      if (value === undefined) await unlinkIfThere(file);
      else await this.#writeValue(file, key, value, opts);
      return true;
    });
  }

  async delete(key: string): Promise<void> {
    const file = this.#file('k', key);
    await this.#locked(file, () => unlinkIfThere(file));
  }

  /**
   * Read, change and write back the window `key` under its lock. Changes asked for while one round
   * is under way wait for the next, and go together under one lock (group commit): a process with ten
   * requests to admit or settle pays for one read and one write, not ten.
   */
  #inWindow<T>(key: string, change: (w: WindowState, now: number) => T, opts: { soon: boolean } = { soon: true }): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let batch = this.#batches.get(key);
      if (batch === undefined) {
        batch = { ops: [], done: undefined, due: undefined };
        this.#batches.set(key, batch);
      }
      batch.ops.push({ change, resolve: resolve as (v: unknown) => void, reject });
      // A round under way takes what was added meanwhile in its next pass.
      if (batch.done !== undefined) return;
      // The round starts on the next turn of the event loop: what this turn asks for (a burst of
      // takes) goes in it together. A settle alone waits a little for company.
      if (batch.due?.soon || (batch.due && !opts.soon)) return;
      const b = batch;
      if (b.due) clearTimeout(b.due.timer as NodeJS.Timeout);
      const start = () => {
        b.due = undefined;
        b.done = this.#commit(key, b);
      };
      // Not unref'd: a caller may be waiting for this settle (a limiter admits the next request when an
      // answer's settle lands), and an event loop with nothing else to do would exit under it.
      b.due = opts.soon ? { timer: setImmediate(start), soon: true } : { timer: setTimeout(start, SETTLE_GRACE_MS), soon: false };
    });
  }

  /** Start every round that is only due (close: nothing may be left waiting on a timer). */
  #flush(): void {
    for (const [key, b] of this.#batches) {
      if (b.due === undefined) continue;
      if (b.due.soon) clearImmediate(b.due.timer as NodeJS.Immediate);
      else clearTimeout(b.due.timer as NodeJS.Timeout);
      b.due = undefined;
      b.done = this.#commit(key, b);
    }
  }

  #windowFile(key: string): WindowFile {
    let wf = this.#windows.get(key);
    if (wf === undefined) {
      const path = this.#file('w', key);
      wf = { path, lock: `${path}.lock`, fd: undefined, written: undefined };
      this.#windows.set(key, wf);
    }
    return wf;
  }

  async #commit(key: string, batch: WindowBatch): Promise<void> {
    const wf = this.#windowFile(key);
    try {
      while (batch.ops.length > 0) {
        const ops = batch.ops.splice(0);
        // How to answer each caller, once the round is written: its value, or the error its change threw.
        let settles: Array<() => void>;
        try {
          // A read, a few changes and a write in place, on every request: synchronous calls, each a
          // few microseconds, where the thread pool would cost tens per step and a millisecond a round.
          settles = await withFileLockSync(wf.lock, () => this.#round(wf, key, ops), LOCK_OPTIONS);
        } catch (error) {
          for (const op of ops) op.reject(error);
          continue;
        }
        for (const settle of settles) settle();
      }
    } finally {
      this.#batches.delete(key);
    }
  }

  /** One round under the window's lock: read it, apply the changes, write it back in place. */
  #round(wf: WindowFile, key: string, ops: WindowBatch['ops']): Array<() => void> {
    const written = wf.written;
    // Set again only once this round's write is done: a round that fails leaves nothing to trust.
    wf.written = undefined;
    let fd = wf.fd;
    try {
      let size: number;
      if (fd === undefined) {
        fd = openWindowSync(wf.path);
        size = fstatSync(fd).size;
      } else {
        const st = fstatSync(fd);
        size = st.size;
        // Deleted since the last round (another process's sweep found it spent): the window is
        // whatever file now has its name, or a new one.
        if (st.nlink === 0) {
          closeSync(fd);
          fd = undefined;
          fd = openWindowSync(wf.path);
          size = fstatSync(fd).size;
        }
      }
      const w = readWindowSync(fd, key, size, written);
      const now = this.#now();
      const out = ops.map((op) => {
        try {
          const value = op.change(w, now);
          return () => op.resolve(value);
        } catch (error) {
          return () => op.reject(error);
        }
      });
      const text = JSON.stringify({ key, window: w } satisfies WindowRecord);
      const bytes = writeWindowSync(fd, text, size);
      // A value JSON cannot hold (written as null) reads back unlike the object: parsed next time.
      if (!text.includes('null')) wf.written = { bytes, window: w };
      return out;
    } catch (error) {
      if (fd !== undefined) closeQuietly(fd);
      fd = undefined;
      throw error;
    } finally {
      if (KEEP_OPEN) wf.fd = fd;
      else if (fd !== undefined) {
        wf.fd = undefined;
        closeSync(fd);
      }
    }
  }

  takeSlot(key: string, limits: WindowLimits): Promise<WindowTake> {
    const id = this.#slotName();
    return this.#inWindow(key, (w, now) => takeFrom(w, now, limits, id));
  }

  settleSlot(key: string, slot: string, opts: SettleOptions): Promise<{ seq: number }> {
    // The answer came before this call, not when the lock is free: the hold counts from the call,
    // or every wait for the lock would idle the budget that long.
    const answered = this.#now();
    return this.#inWindow(key, (w) => settleIn(w, answered, slot, opts), { soon: false });
  }

  pauseWindow(key: string, forMs: number): Promise<void> {
    return this.#inWindow(key, (w, now) => pauseIn(w, now, forMs));
  }

  /** Remove expired values, windows nothing counts in any more, and temporary files of dead writers. */
  async sweep(): Promise<void> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    for (const name of names) {
      const file = join(this.dir, name);
      const owner = lockTokenOwner(name);
      if (owner !== undefined) {
        // The lock token of a process that died without its exit handler (killed).
        if (!processAlive(owner)) await unlinkIfThere(file);
        continue;
      }
      if (name.endsWith('.tmp')) {
        const st = await stat(file).catch(() => undefined);
        if (st && this.#now() - st.mtimeMs > STALE_TEMP_MS) await unlinkIfThere(file);
        continue;
      }
      if (!/^[kw]-[0-9a-f]{40}\.json$/.test(name)) continue;
      const expired = (r: unknown) =>
        (isValueRecord(r) && r.expires !== null && r.expires <= this.#now()) || (isWindowRecord(r) && windowExpires(r.window) <= this.#now());
      if (!expired(await readJson(file))) continue;
      await this.#locked(file, async () => {
        if (expired(await readJson(file))) await unlinkIfThere(file);
      }).catch(() => {});
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweeper);
    this.#flush();
    // The sweep's own rounds join the chains below: waited for first.
    await this.#sweeping;
    await Promise.all([...this.#chains.values(), ...[...this.#batches.values()].map((b) => b.done)]);
    for (const wf of this.#windows.values()) {
      if (wf.fd !== undefined) closeQuietly(wf.fd);
      wf.fd = undefined;
      wf.written = undefined;
    }
  }
}

/** The window's file, opened for reading and writing; created (owner-only) if missing. Called under its lock. */
function openWindowSync(file: string): number {
  try {
    return openSync(file, 'r+');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    return openSync(file, 'w+', 0o600);
  }
}

/**
 * The window in the file (`size` bytes). The bytes this process wrote last, read back unchanged,
 * are the window it wrote: no parse.
 */
function readWindowSync(fd: number, key: string, size: number, written: WindowFile['written']): WindowState {
  if (size === 0) return emptyWindow();
  const buf = Buffer.allocUnsafe(size);
  const got = readSync(fd, buf, 0, size, 0);
  if (written !== undefined && got === written.bytes.length && buf.equals(written.bytes)) return written.window;
  try {
    const r = JSON.parse(buf.toString('utf8', 0, got)) as unknown;
    if (isWindowRecord(r) && r.key === key) return r.window;
  } catch {
    // Only a hand edit, or a power cut that lost the page (the writes below are never half-seen by a
    // process): the window starts again empty. The workspace still counts what it counted; at worst
    // a refusal's Retry-After paces the first minute.
  }
  return emptyWindow();
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed, or the file system is gone: nothing to release
  }
}

/**
 * Rewrite the window in place. Not by renaming a new file over it: on ext4 a rename that replaces a
 * file starts writing the new one to disk (its auto_da_alloc heuristic), a third of a millisecond a
 * round; in place, a round is a few microseconds. A file with its old length holds at every moment
 * one JSON document and spaces: the text is padded to the old length, and the spaces are cut once
 * they pass TRUNCATE_PAST_BYTES (JSON allows them; a window that shrinks by a slot or two on most
 * rounds would otherwise pay a system call for it every other round). Nothing is flushed to disk:
 * a budget lost in a power cut costs a slow first minute, no more. Answers the bytes the file holds.
 */
function writeWindowSync(fd: number, text: string, oldSize: number): Buffer {
  const body = Buffer.from(text, 'utf8');
  const out = body.length < oldSize ? Buffer.concat([body, Buffer.alloc(oldSize - body.length, 0x20)]) : body;
  writeSync(fd, out, 0, out.length, 0);
  if (out.length - body.length <= TRUNCATE_PAST_BYTES) return out;
  ftruncateSync(fd, body.length);
  return body;
}

async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // A hand edit, or a window read without its lock (the sweep) as it was rewritten: treated as
    // absent (the sweep reads it again under the lock before deleting anything).
    return undefined;
  }
}

async function unlinkIfThere(file: string): Promise<void> {
  try {
    await unlink(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

function isValueRecord(r: unknown): r is ValueRecord {
  const o = r as ValueRecord | undefined;
  return (
    typeof o === 'object' && o !== null && typeof o.key === 'string' && typeof o.value === 'string' && (o.expires === null || typeof o.expires === 'number')
  );
}

function isWindowRecord(r: unknown): r is WindowRecord {
  const o = r as WindowRecord | undefined;
  const w = o?.window;
  return (
    typeof o === 'object' &&
    o !== null &&
    typeof o.key === 'string' &&
    typeof w === 'object' &&
    w !== null &&
    Array.isArray(w.slots) &&
    w.slots.every((s) => typeof s?.id === 'string' && typeof s.end === 'number') &&
    typeof w.seq === 'number' &&
    typeof w.pausedUntil === 'number'
  );
}
