// The two tiers of the tests (test/tiers.ts): the quick tier names files that exist, starts no
// process of its own, and together with the rest covers every test file exactly once.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/spawn.js';
import { FAST_TESTS } from '../tiers.js';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.test.ts') ? [relative(ROOT, p).split('\\').join('/')] : [];
  });
}

/** A tier pattern as a regular expression (`*` within one path segment, as vitest's globs). */
const matcher = (glob: string) => new RegExp(`^${glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);

const all = files(join(ROOT, 'test'));
const fast = all.filter((f) => FAST_TESTS.some((g) => matcher(g).test(f)));

describe('the quick tier', () => {
  it('names only files that exist: every pattern matches one at least', () => {
    expect(FAST_TESTS.filter((g) => !all.some((f) => matcher(g).test(f)))).toEqual([]);
  });

  it('starts no process of its own: no CLI, stdio server, worker, browser or proxy (Redis aside, on loopback)', () => {
    const starts = /\b(spawn|spawnSync|execFile|fork|runCli|stdioServer|spawnHttpServer|chromium|startCaddy)\(/;
    // A Node that exits at once, for the pid of a process that no longer exists (a dead lease holder).
    const allowed = new Set(['test/store/contract.test.ts']);
    expect(fast.filter((f) => !allowed.has(f) && starts.test(readFileSync(join(ROOT, f), 'utf8')))).toEqual([]);
  });

  it('leaves files to the rest: neither tier is empty', () => {
    expect(fast.length).toBeGreaterThan(0);
    expect(all.length - fast.length).toBeGreaterThan(0);
  });
});
