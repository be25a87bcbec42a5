import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureAppsBuilt } from '../../scripts/build-apps.js';
import { updateReadme } from '../../scripts/generate-docs.js';
import { demoToken } from '../../src/sandbox/data/workspace.js';
import { SERVER_VERSION } from '../../src/version.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

describe('README stays true', () => {
  // The README states each app's built size.
  beforeAll(() => ensureAppsBuilt(), 60_000);

  it('has the generated blocks up to date (run npm run docs)', () => {
    expect(updateReadme(readme)).toBe(readme);
  });

  it('lists the sandbox tokens the sandbox really issues', () => {
    for (const slug of ['atelier', 'globex']) {
      for (const kind of ['read', 'write'] as const) expect(readme).toContain(demoToken(slug, kind));
    }
  });

  it('reports the package version in initialize', () => {
    expect(SERVER_VERSION).toBe(pkg.version);
  });
});
