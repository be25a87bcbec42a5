// A lock shared by every process on the machine: a file created with O_EXCL. Held only around a
// refresh or a store update (milliseconds to seconds); a holder that died is detected by its pid or
// by the lock's age, so a crash never blocks the others for long.
import { randomBytes } from 'node:crypto';
import { open, readFile, stat, unlink } from 'node:fs/promises';

export interface LockOptions {
  /** A lock older than this is considered abandoned. Default 30 s. */
  staleMs?: number;
  /** Give up waiting after this long. Default 60 s. */
  timeoutMs?: number;
  /** Poll interval while waiting. Default 25 ms. */
  pollMs?: number;
}

class LockTimeoutError extends Error {
  override name = 'LockTimeoutError';
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
    if (Date.now() - st.mtimeMs > staleMs) return true;
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
