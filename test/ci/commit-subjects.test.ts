// Commit subjects fit one line of `git log --oneline` (docs/development.md, Commits): at most 72
// characters, the why in the body. Held for every commit after the last one written before the rule;
// the history before it is left as it is.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/spawn.js';

/** The last commit before the rule: its subject and those before it may be longer. */
const RULE_FROM = '872319b';
const MAX = 72;

const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** Whether this checkout holds the history the rule is counted from (a shallow clone may not). */
function hasBase(): boolean {
  try {
    git('cat-file', '-e', `${RULE_FROM}^{commit}`);
    return true;
  } catch {
    return false;
  }
}

describe('commit subjects', () => {
  it(`are at most ${MAX} characters since ${RULE_FROM}`, (ctx) => {
    ctx.skip(!hasBase(), `this clone does not hold ${RULE_FROM}, the commit the rule is counted from (a shallow clone)`);
    const subjects = git('log', '--format=%h %s', `${RULE_FROM}..HEAD`).split('\n').filter(Boolean);
    const long = subjects.filter((l) => l.slice(l.indexOf(' ') + 1).length > MAX);
    expect(long).toEqual([]);
  });
});
