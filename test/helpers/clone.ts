// A clone of this checkout, as a newcomer gets one: the files git would commit, copied to a folder
// named like the repository, this checkout's node_modules linked in (an install would fetch the same),
// and built the way `npm install` builds a fresh clone (its prepare script, `npm run build`). The README's
// from-a-clone commands and the banner's suggestions run against it, not against this checkout's dist/,
// which other test files use and which may be older than the sources.
//
// The build is most of a clone's cost and gives the same files each time: it is done once per run, in
// the run's temp root (test/setup/temp-root.ts), and each file gets a copy of its own to change as it
// likes. Test files run in separate workers: the first to ask builds, under a lock folder; the others
// watch the temp root for the build's outcome (the built clone, or the failure it met).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT } from './spawn.js';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const NAME = 'workspace-consulting-mcp';

/** Where the README's snippets put the clone: the reader writes their clone's absolute path there. */
export const CLONE_PLACEHOLDER = '/path/to/workspace-consulting-mcp';

/** Copies the files git would commit to `parent`/workspace-consulting-mcp, links node_modules, builds. */
function buildClone(parent: string): string {
  const clone = join(parent, NAME);
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter(Boolean);
  for (const file of files) {
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    // A file deleted in the work tree but still in the index is not part of the next commit.
    try {
      cpSync(join(ROOT, file), join(clone, file));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'), 'junction');
  execFileSync(NPM, ['run', 'build'], { cwd: clone, stdio: ['ignore', 'ignore', 'pipe'], shell: process.platform === 'win32' });
  return clone;
}

/** The run's built clone: built here when no other file has started it, else awaited from the one that did. */
async function sharedClone(): Promise<string> {
  const root = tmpdir();
  const ready = join(root, 'wcm-built-clone');
  const failed = join(root, 'wcm-built-clone.failed');
  const outcome = (): string | undefined => {
    if (existsSync(ready)) return join(ready, NAME);
    if (existsSync(failed)) throw new Error(`the run's built clone failed: ${readFileSync(failed, 'utf8')}`);
    return undefined;
  };
  try {
    mkdirSync(join(root, 'wcm-built-clone.lock'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // Another file builds it: its outcome appears in the temp root as one rename or one write.
    const watcher = watch(root);
    try {
      const now = outcome();
      if (now) return now;
      return await new Promise<string>((resolve, reject) => {
        watcher.on('error', reject);
        watcher.on('change', () => {
          try {
            const done = outcome();
            if (done) resolve(done);
          } catch (failure) {
            reject(failure);
          }
        });
      });
    } finally {
      watcher.close();
    }
  }
  const building = join(root, `wcm-built-clone.${process.pid}`);
  try {
    buildClone(building);
  } catch (err) {
    writeFileSync(failed, err instanceof Error ? err.message : String(err));
    throw err;
  }
  renameSync(building, ready);
  return join(ready, NAME);
}

/** A built clone under `parent`, this file's own, and returns its absolute path (`parent/workspace-consulting-mcp`). */
export async function builtClone(parent: string): Promise<string> {
  const built = await sharedClone();
  const clone = join(parent, NAME);
  // Times kept: the build's outputs stay newer than their sources, as in the clone that was built.
  cpSync(built, clone, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
  return clone;
}
