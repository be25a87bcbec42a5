// Making a folder and the missing ones above it. Node's own recursive mkdir (fs.mkdir and mkdirSync
// with `recursive: true`, Node 22.23) never returns when a folder cannot be made for want of its
// parent and making the parent answers ENOENT again, as anywhere under /proc: it retries forever,
// spinning a CPU, and a server whose configuration folder was such a path never started its budget
// and never exited (measured: 6.5 minutes of CPU in 9.5, SIGTERM ignored while shutdown waited on it).
// Made here one level at a time instead: at most one mkdir per missing level, then the error as is.
import { mkdirSync, statSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

const code = (err: unknown) => (err as NodeJS.ErrnoException).code;

/** `dir`, then each folder above it, up to the root. */
function* upwards(dir: string): Generator<string> {
  let at = resolve(dir);
  for (;;) {
    yield at;
    const parent = dirname(at);
    if (parent === at) return;
    at = parent;
  }
}

/**
 * Whether `path` is a folder, from what stat gave (its stats, or its error): false when absent;
 * stat's other errors as they are; ENOTDIR when something else is there.
 */
function isFolder(path: string, stats: { isDirectory(): boolean } | { error: unknown }): boolean {
  if ('error' in stats) {
    if (code(stats.error) !== 'ENOENT') throw stats.error;
    return false;
  }
  if (!stats.isDirectory()) throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${path}'`), { code: 'ENOTDIR', path, syscall: 'mkdir' });
  return true;
}

/** Made already (by another process meanwhile): what was wanted. */
function unlessThere(err: unknown): void {
  if (code(err) !== 'EEXIST') throw err;
}

/** Creates `dir` and every missing folder above it, each with `mode`; rejects as mkdir does, never loops. */
export async function makeDirectory(dir: string, mode = 0o777): Promise<void> {
  const missing: string[] = [];
  for (const at of upwards(dir)) {
    if (isFolder(at, await stat(at).catch((error: unknown) => ({ error })))) break;
    missing.unshift(at);
  }
  for (const level of missing) await mkdir(level, { mode }).catch(unlessThere);
}

/** makeDirectory, synchronously (for a destination opened synchronously). */
export function makeDirectorySync(dir: string, mode = 0o777): void {
  const statOf = (at: string) => {
    try {
      return statSync(at);
    } catch (error) {
      return { error };
    }
  };
  const missing: string[] = [];
  for (const at of upwards(dir)) {
    if (isFolder(at, statOf(at))) break;
    missing.unshift(at);
  }
  for (const level of missing) {
    try {
      mkdirSync(level, { mode });
    } catch (err) {
      unlessThere(err);
    }
  }
}
