// The two tiers of the tests (test/tiers.ts): the quick tier names files that exist, starts no
// process of its own, and together with the rest covers every test file exactly once.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/spawn.js';
import { FAST_TESTS, fastTestFiles, testFiles, tierPattern } from '../tiers.js';

const all = testFiles(ROOT);
const fast = fastTestFiles(all);

describe('the quick tier', () => {
  it('names only files that exist: every pattern matches one at least', () => {
    expect(FAST_TESTS.filter((g) => !all.some((f) => tierPattern(g).test(f)))).toEqual([]);
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
