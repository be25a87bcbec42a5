// A lock shared by every process on the machine: a file created with O_EXCL. Held only around a
// refresh or a store update (milliseconds to seconds); a holder that died is detected by its pid or
// by the lock's age, so a crash never blocks the others for long.
import { randomBytes } from 'node:crypto';
import { closeSync, linkSync, openSync, readFileSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { open, readFile, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export interface LockOptions {
  /** A lock older than this is considered abandoned. Default 30 s. */
  staleMs?: number;
  /** Give up waiting after this long. Default 60 s. */
  timeoutMs?: number;
  /** Poll interval while waiting. Default 25 ms. */
  pollMs?: number;
}

export class LockTimeoutError extends Error {
  override name = 'LockTimeoutError';
}

/**
 * When the lock was taken: its change time. A lock created and written (withFileLock) has it then; a
 * lock linked to its holder's token (withFileLockSync) has its token's creation time as modification
 * time, but the link sets the change time.
 */
function heldSince(st: { ctimeMs: number; mtimeMs: number }): number {
  return Math.max(st.ctimeMs, st.mtimeMs);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function abandoned(path: string, staleMs: number): Promise<boolean> {
  try {
    const [text, st] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
    if (Date.now() - heldSince(st) > staleMs) return true;
    const pid = Number(text.split(' ')[0]);
    return Number.isInteger(pid) && pid > 0 && !alive(pid);
  } catch {
    return false; // gone meanwhile, or still being written: try again
  }
}

/** Run `fn` while holding the lock file at `path`. */
export async function withFileLock<T>(path: string, fn: () => Promise<T>, opts: LockOptions = {}): Promise<T> {
  const staleMs = opts.staleMs ?? 30_000;
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  const pollMs = opts.pollMs ?? 25;
  const mine = `${process.pid} ${randomBytes(8).toString('hex')}`;
  for (;;) {
    try {
      const fh = await open(path, 'wx', 0o600);
      try {
        await fh.writeFile(mine);
      } finally {
        await fh.close();
      }
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (await abandoned(path, staleMs)) {
      await unlink(path).catch(() => {});
      continue;
    }
    if (Date.now() > deadline) throw new LockTimeoutError(`Another process holds ${path}; gave up waiting.`);
    await new Promise((r) => setTimeout(r, pollMs + Math.floor(Math.random() * pollMs)));
  }
  try {
    return await fn();
  } finally {
    // Remove only our own lock: if it was judged stale and taken over, it is someone else's now.
    const now = await readFile(path, 'utf8').catch(() => '');
    if (now === mine) await unlink(path).catch(() => {});
  }
}

function abandonedSync(path: string, staleMs: number): boolean {
  try {
    if (Date.now() - heldSince(statSync(path)) > staleMs) return true;
    const pid = Number(readFileSync(path, 'utf8').split(' ')[0]);
    return Number.isInteger(pid) && pid > 0 && !alive(pid);
  } catch {
    return false; // gone meanwhile, or still being written: try again
  }
}

/**
 * This process's lock token in a folder: a file holding what withFileLock writes into its lock ("pid
 * random"), made once, removed when the process exits. withFileLockSync takes a lock by linking it to
 * the lock's name (link fails if the name exists, as an exclusive create does): one system call where
 * creating and writing a lock file costs four and the file system's allocation of an inode, on every
 * request for the rate budget. Undefined where the file system has no hard links.
 */
interface Token {
  path: string;
  content: string;
  ino: number;
  dev: number;
}
const tokens = new Map<string, Token | null>();
/** Token files: this process's are removed at exit, a dead one's by the state store's sweep (lockTokenOwner). */
const TOKEN_PREFIX = '.lock-owner-';

function tokenIn(dir: string): Token | undefined {
  let token = tokens.get(dir);
  if (token === undefined) {
    const content = `${process.pid} ${randomBytes(8).toString('hex')}`;
    const path = join(dir, `${TOKEN_PREFIX}${process.pid}-${content.split(' ')[1]}`);
    try {
      writeFileSync(path, content, { mode: 0o600, flag: 'wx' });
      const st = statSync(path);
      token = { path, content, ino: st.ino, dev: st.dev };
      if (tokens.size === 0) process.once('exit', removeTokens);
    } catch {
      token = null;
    }
    tokens.set(dir, token);
  }
  return token ?? undefined;
}

function removeTokens(): void {
  for (const token of tokens.values()) {
    if (!token) continue;
    try {
      unlinkSync(token.path);
    } catch {
      // already gone
    }
  }
  tokens.clear();
}

/** A lock token file of some process (the state store's sweep removes those of dead processes). */
export function lockTokenOwner(name: string): number | undefined {
  const m = /^\.lock-owner-(\d+)-[0-9a-f]{16}$/.exec(name);
  return m ? Number(m[1]) : undefined;
}

/** Whether the process `pid` still runs (for a sweep of token files). */
export function processAlive(pid: number): boolean {
  return alive(pid);
}

/**
 * The same lock (the same file, content and rules, so the two can guard one file) around a
 * synchronous critical section of a few system calls: each try and the release are synchronous calls
 * (microseconds, where the thread pool costs tens per step), only the wait between tries is not.
 * For state rewritten on every request (the rate budget's file store).
 */
export async function withFileLockSync<T>(path: string, fn: () => T, opts: LockOptions = {}): Promise<T> {
  const staleMs = opts.staleMs ?? 30_000;
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  const pollMs = opts.pollMs ?? 25;
  let token = tokenIn(dirname(path));
  const mine = token?.content ?? `${process.pid} ${randomBytes(8).toString('hex')}`;
  for (;;) {
    try {
      if (token) {
        linkSync(token.path, path);
      } else {
        const fd = openSync(path, 'wx', 0o600);
        try {
          writeSync(fd, mine);
        } finally {
          closeSync(fd);
        }
      }
      break;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') {
        // A file system that refuses links (or the token vanished): lock by creating the file.
        if (token) {
          tokens.set(dirname(path), null);
          token = undefined;
          continue;
        }
        throw err;
      }
    }
    if (abandonedSync(path, staleMs)) {
      try {
        unlinkSync(path);
      } catch {
        // taken over by another waiter meanwhile
      }
      continue;
    }
    if (Date.now() > deadline) throw new LockTimeoutError(`Another process holds ${path}; gave up waiting.`);
    await new Promise((r) => setTimeout(r, pollMs + Math.floor(Math.random() * pollMs)));
  }
  try {
    return fn();
  } finally {
    try {
      // Remove only our own lock: if it was judged stale and taken over, it is someone else's now.
      if (token) {
        const st = statSync(path);
        if (st.ino === token.ino && st.dev === token.dev) unlinkSync(path);
      } else if (readFileSync(path, 'utf8') === mine) {
        unlinkSync(path);
      }
    } catch {
      // already gone
    }
  }
}
