// The generated parts of the README and docs/*.md (scripts/generate-docs.ts) are current, each block
// in the one file that holds its markers, and what the docs say of the sandbox and the package is true.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureAppsBuilt } from '../../scripts/build-apps.js';
import { BLOCKS, generatedDocs, updateDoc } from '../../scripts/generate-docs.js';
import { SETTINGS } from '../../src/config.js';
import { demoToken } from '../../src/sandbox/data/workspace.js';
import { SERVER_VERSION } from '../../src/version.js';
import { ROOT } from '../helpers/spawn.js';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const pkg = JSON.parse(read('package.json')) as { version: string };

describe('the docs stay true', () => {
  // The apps' page states each app's built size.
  beforeAll(() => ensureAppsBuilt(), 60_000);

  it('has every generated block and fact up to date (run npm run docs)', () => {
    const docs = generatedDocs();
    expect(docs.map((d) => d.path)).toContain('README.md');
    for (const d of docs) expect(d.next, `${d.path} is out of date: run npm run docs`).toBe(d.current);
  });

  it('generates each block in the file a reader looks in', () => {
    const where = Object.fromEntries(Object.keys(BLOCKS).map((name) => [name, generatedDocs().find((d) => d.current.includes(`<!-- ${name}:start`))?.path]));
    expect(where).toEqual({
      config: 'docs/configuration.md',
      surface: 'docs/tools.md',
      toolsets: 'docs/tools.md',
      tools: 'docs/tools.md',
      drafting: 'docs/code-mode.md',
    });
  });

  it('lists every setting in the generated settings table', () => {
    const config = read('docs/configuration.md');
    for (const st of SETTINGS) expect(config, st.env).toContain(`| \`${st.env}\` | \`${st.flag}\` |`);
  });

  it('refuses a fact it does not know, naming the file', () => {
    expect(() => updateDoc('<!-- fact:no-such-fact -->1<!-- /fact -->', 'docs/x.md')).toThrow(/docs\/x\.md quotes an unknown fact "no-such-fact"/);
  });

  it('lists the sandbox tokens the sandbox really issues', () => {
    const config = read('docs/configuration.md');
    for (const slug of ['atelier', 'globex']) {
      for (const kind of ['read', 'write'] as const) expect(config).toContain(demoToken(slug, kind));
    }
  });

  it('keeps the README a front door: at most 300 lines, linking every page of docs/ and SECURITY.md', () => {
    const readme = read('README.md');
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
    const pages = generatedDocs()
      .map((d) => d.path)
      .filter((p) => p.startsWith('docs/'));
    for (const page of [...pages, 'SECURITY.md']) expect(readme, page).toContain(`](${page})`);
  });

  it('reports the package version in initialize', () => {
    expect(SERVER_VERSION).toBe(pkg.version);
  });
});
