// Citations a reader of the repository can follow (docs/architecture.md, Tests): the design of
// record is docs/architecture.md, cited by its section headings. A design document or an issue tracker
// outside the repository cannot be opened by a reader of it, so no line may cite a DESIGN.md or an
// issue by number (an upstream project's issue is cited by its address), and a citation of
// docs/architecture.md must name a section heading it has.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/spawn.js';

/** Where citations are read: the code, its tests, scripts, benchmarks, views and documentation. */
const ROOTS = ['src', 'catalog', 'test', 'scripts', 'bench', 'apps', 'docs', 'lint', 'README.md', 'SECURITY.md'];
const TEXT = /\.(ts|tsx|mts|js|mjs|cjs|json|md|yml|yaml|sh|html|css|tsv|txt)$/;
const SELF = 'test/architecture/citations.test.ts';

function files(path: string): string[] {
  const full = join(ROOT, path);
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(full);
  } catch {
    return [];
  }
  if (!st.isDirectory()) return TEXT.test(path) ? [path] : [];
  return readdirSync(full).flatMap((name) => (name === 'node_modules' || name === 'dist' ? [] : files(join(path, name))));
}

const sources = ROOTS.flatMap(files)
  .filter((p) => p !== SELF)
  .map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') }));

/** A citation no reader of the repository can open: the original design file, or an issue by number. */
const UNREADABLE: Array<[string, RegExp]> = [
  ['the design file outside the repository', /\bDESIGN\.md\b/],
  ['an issue by number', /\b[Ii]ssues? #?\d+/],
  ['a pull request by number', /\b(?:PR|[Pp]ull request) #?\d+/],
  ['an issue by #number', /(?:^|[\s(,;])#\d+(?![\w.\-/])/],
];

/** The `## ` headings of docs/architecture.md: the sections a citation may name. */
function architectureSections(text: string): string[] {
  return [...text.matchAll(/^## (.+)$/gm)].map((m) => (m[1] as string).trim());
}

/**
 * Every `docs/architecture.md, <Section>` citation in a text and whether it names a section: the words
 * after the comma, a comment's line breaks and markers folded into spaces, must start with a heading
 * followed by the end of the phrase (punctuation, a quote, the end of the line).
 */
function citations(text: string, sections: readonly string[]): Array<{ line: number; cited: string; known: boolean }> {
  const out: Array<{ line: number; cited: string; known: boolean }> = [];
  for (const m of text.matchAll(/docs\/architecture\.md, /g)) {
    const at = (m.index as number) + m[0].length;
    const after = text
      .slice(at, at + 200)
      .replace(/\s*\n\s*(?:\/\/|\*|#)?\s*/g, ' ')
      .replace(/^["'`]/, '');
    const known = sections.some((s) => after.startsWith(s) && !/^[\w-]/.test(after.slice(s.length)));
    out.push({ line: text.slice(0, at).split('\n').length, cited: (/^[^).;:"'`]*/.exec(after)?.[0] ?? '').trim(), known });
  }
  return out;
}

const sections = architectureSections(readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8'));

describe('citations', () => {
  it('no line cites DESIGN.md, an issue or a pull request by number', () => {
    const found: string[] = [];
    for (const { path, text } of sources) {
      text.split('\n').forEach((line, i) => {
        for (const [what, re] of UNREADABLE) if (re.test(line)) found.push(`${path}:${i + 1}: ${what}: ${line.trim().slice(0, 160)}`);
      });
    }
    expect(found, 'cite docs/architecture.md by section, or say the reason itself').toEqual([]);
  });

  it('every "docs/architecture.md, <Section>" names a section heading docs/architecture.md has', () => {
    expect(sections.length).toBeGreaterThan(5);
    const unknown: string[] = [];
    let cited = 0;
    for (const { path, text } of sources) {
      for (const c of citations(text, sections)) {
        cited++;
        if (!c.known) unknown.push(`${path}:${c.line}: "${c.cited}"`);
      }
    }
    expect(unknown, `sections: ${sections.join(' | ')}`).toEqual([]);
    // The architecture tests cite it: a count of zero would mean this test reads nothing.
    expect(cited).toBeGreaterThanOrEqual(4);
  });

  it('the architecture tests each cite docs/architecture.md', () => {
    const tests = sources.filter((s) => s.path.startsWith('test/architecture/') && s.path.endsWith('.test.ts'));
    expect(tests.length).toBeGreaterThan(0);
    expect(tests.filter((s) => !s.text.includes('docs/architecture.md')).map((s) => s.path)).toEqual([]);
  });

  it('tells a known section from an unknown one, across a comment line break', () => {
    const known = citations('// see docs/architecture.md, Who may\n// import whom): ok', ['Who may import whom']);
    expect(known).toEqual([{ line: 1, cited: 'Who may import whom', known: true }]);
    expect(citations('(docs/architecture.md, One doors)', ['One door'])[0]?.known).toBe(false);
    expect(citations('(docs/architecture.md, Nowhere)', ['One door'])[0]).toMatchObject({ cited: 'Nowhere', known: false });
  });
});
