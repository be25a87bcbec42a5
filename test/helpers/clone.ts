// A clone of this checkout, as a newcomer gets one: the files git would commit, copied to a folder
// named like the repository, this checkout's node_modules linked in (an install would fetch the same),
// and built the way `npm install` builds a fresh clone (its prepare script, `npm run build`). The README's
// from-a-clone commands and the banner's suggestions run against it, not against this checkout's dist/,
// which other test files use and which may be older than the sources.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT } from './spawn.js';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Where the README's snippets put the clone: the reader writes their clone's absolute path there. */
export const CLONE_PLACEHOLDER = '/path/to/workspace-consulting-mcp';

/** Builds a clone under `parent` and returns its absolute path (`parent/workspace-consulting-mcp`). */
export function builtClone(parent: string): string {
  const clone = join(parent, 'workspace-consulting-mcp');
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
