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

function notAFolder(path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${path}'`), { code: 'ENOTDIR', path, syscall: 'mkdir' });
}

/** The folders of `dir`'s path that do not exist yet, outermost first. */
function missingLevels(dir: string, isFolder: (path: string) => boolean | undefined): string[] {
  const missing: string[] = [];
  let at = resolve(dir);
  for (;;) {
    const folder = isFolder(at);
    if (folder === true) break;
    if (folder === false) throw notAFolder(at);
    missing.push(at);
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  return missing.reverse();
}

/** Creates `dir` and every missing folder above it, each with `mode`; rejects as mkdir does, never loops. */
export async function makeDirectory(dir: string, mode = 0o777): Promise<void> {
  const known = new Map<string, boolean | undefined>();
  // Walked upwards with stat first (asynchronously), then made downwards.
  let at = resolve(dir);
  for (;;) {
    try {
      known.set(at, (await stat(at)).isDirectory());
      break;
    } catch (err) {
      if (code(err) !== 'ENOENT') throw err;
      known.set(at, undefined);
      const parent = dirname(at);
      if (parent === at) break;
      at = parent;
    }
  }
  for (const level of missingLevels(dir, (p) => known.get(p))) {
    try {
      await mkdir(level, { mode });
    } catch (err) {
      // Made meanwhile by another process: what was wanted.
      if (code(err) !== 'EEXIST') throw err;
    }
  }
}

/** makeDirectory, synchronously (for a destination opened synchronously). */
export function makeDirectorySync(dir: string, mode = 0o777): void {
  const isFolder = (p: string) => {
    try {
      return statSync(p).isDirectory();
    } catch (err) {
      if (code(err) !== 'ENOENT') throw err;
      return undefined;
    }
  };
  for (const level of missingLevels(dir, isFolder)) {
    try {
      mkdirSync(level, { mode });
    } catch (err) {
      if (code(err) !== 'EEXIST') throw err;
    }
  }
}
