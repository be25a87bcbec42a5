// Every skip says why in the run's output: a test is skipped only through `ctx.skip(condition, note)`
// (or `ctx.skip(note)`), whose note test/setup/skip-reasons.ts prints at the end of the run. The forms
// that cannot carry one (`it.skip`, `it.skipIf`, `it.runIf`, `describe.skip`, `it.todo`) are refused,
// and so is a ctx.skip without its note.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/spawn.js';

const SELF = 'test/ci/skips.test.ts';
const MODIFIERS = ['skip', 'skipIf', 'runIf', 'todo'];
const SILENT = new RegExp(`\\b(?:it|test|describe|suite)(?:\\.\\w+)*\\.(?:${MODIFIERS.join('|')})\\b`, 'g');

/** Every TypeScript file under test/, relative to the root. */
function files(dir = join(ROOT, 'test')): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [relative(ROOT, p).split('\\').join('/')] : [];
  });
}

/** The argument text of the call whose `(` is at `open`: up to its matching `)`. */
function argumentsAt(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return text.slice(open + 1, i);
  }
  return text.slice(open + 1);
}

/** True when a call's arguments carry a note: a string alone, or a second argument at the top level. */
function hasNote(args: string): boolean {
  const a = args.trim();
  if (/^(['"`])[\s\S]*\1$/.test(a)) return true;
  let depth = 0;
  for (const c of a) {
    if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth--;
    else if (c === ',' && depth === 0) return true;
  }
  return false;
}

/** `source` without its comments (blanked, so lines keep their numbers): prose may name the forms. */
const code = (source: string) => source.replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, (c) => c.replace(/[^\n]/g, ' '));

/** Where `text` skips without saying why, as `line: text`. */
function silentSkips(text: string): string[] {
  const source = code(text);
  const lineOf = (at: number) => source.slice(0, at).split('\n').length;
  const found = [...source.matchAll(SILENT)].map((m) => `${lineOf(m.index)}: ${m[0]}`);
  for (const m of source.matchAll(/\b\w+\.skip\(/g)) {
    if (SILENT.test(m[0])) continue;
    if (!hasNote(argumentsAt(source, m.index + m[0].length - 1))) found.push(`${lineOf(m.index)}: ${m[0]}) without a note`);
  }
  SILENT.lastIndex = 0;
  return found.sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10));
}

describe('skips', () => {
  it('every skip under test/ is a ctx.skip with a note', () => {
    const bad = files()
      .filter((f) => f !== SELF)
      .flatMap((f) => silentSkips(readFileSync(join(ROOT, f), 'utf8')).map((s) => `${f}:${s}`));
    expect(bad).toEqual([]);
  });

  it('finds the forms that cannot say why, and a ctx.skip without its note', () => {
    const source = [
      "// it.skip in prose is no skip: it.skipIf(x)('a', () => {})",
      "it.skipIf(process.platform === 'win32')('a', () => {});",
      "describe.skip('b', () => {});",
      "it.runIf(ok)('c', () => {});",
      "it.todo('d');",
      "it('e', (ctx) => { ctx.skip(!ok); });",
      "it('f', (ctx) => { ctx.skip(); });",
      "it('g', (ctx) => { ctx.skip(!ok, 'no /proc here'); });",
      "it('h', (ctx) => { ctx.skip(`x is missing`); });",
      "it('i', (ctx) => { ctx.skip(gap !== undefined, gap); });",
    ].join('\n');
    expect(silentSkips(source)).toEqual([
      '2: it.skipIf',
      '3: describe.skip',
      '4: it.runIf',
      '5: it.todo',
      '6: ctx.skip() without a note',
      '7: ctx.skip() without a note',
    ]);
  });
});
