// A server that serves no metrics never loads prom-client (docs/architecture.md, Loading only
// what is used): the library is imported in one module only, dynamically, and
// that module is itself reached only through a dynamic import, taken when a metrics port is set.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/spawn.js';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const sources = files(join(ROOT, 'src')).map((f) => ({ path: relative(ROOT, f), text: readFileSync(f, 'utf8') }));

describe('prom-client is loaded only for metrics', () => {
  it('is imported by src/metrics/metrics.ts alone, dynamically', () => {
    const importers = sources.filter((s) => /['"]prom-client['"]/.test(s.text)).map((s) => s.path);
    expect(importers).toEqual(['src/metrics/metrics.ts']);
    const text = sources.find((s) => s.path === 'src/metrics/metrics.ts')?.text ?? '';
    expect(text).toMatch(/await import\('prom-client'\)/);
    expect(text).not.toMatch(/^import [^;]*from 'prom-client'/m);
  });

  it('whose module is reached only by a dynamic import', () => {
    const staticImporters = sources.filter((s) => /^(?:import|export) (?!type )[^;]*from '[^']*metrics\/metrics\.js'/m.test(s.text)).map((s) => s.path);
    expect(staticImporters).toEqual([]);
    const dynamic = sources.filter((s) => /import\('\.\/metrics\/metrics\.js'\)/.test(s.text)).map((s) => s.path);
    expect(dynamic).toEqual(['src/operator.ts']);
  });
});
