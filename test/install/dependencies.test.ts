// What an install brings is what the server runs: each runtime dependency is imported by the server's
// code (src/), and each package src/ imports is a runtime dependency. The apps' SDK builds the views
// the server reads as files (dist/apps), so it is a devDependency.
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/spawn.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** The packages a TypeScript file imports at run time (static and dynamic imports; type-only ones left out). */
function runtimeImports(text: string): string[] {
  const specs = [
    ...[...text.matchAll(/^\s*(?:import|export)\s+(?!type\s)[^'";]*?from\s+'([^']+)'/gm)].map((m) => m[1] as string),
    ...[...text.matchAll(/^\s*import\s+'([^']+)'/gm)].map((m) => m[1] as string),
    ...[...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)].map((m) => m[1] as string),
  ];
  return specs.filter((s) => !s.startsWith('.') && !s.startsWith('node:') && !builtinModules.includes(s));
}

const packageName = (spec: string) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');

function srcImports(): Map<string, string[]> {
  const byPackage = new Map<string, string[]>();
  for (const file of readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.ts')) continue;
    for (const spec of runtimeImports(readFileSync(join(ROOT, 'src', file), 'utf8'))) {
      const name = packageName(spec);
      byPackage.set(name, [...(byPackage.get(name) ?? []), file]);
    }
  }
  return byPackage;
}

describe('runtime dependencies', () => {
  it('are each imported by the server, and the server imports no other package', () => {
    const imported = srcImports();
    // catalog/ is the catalog the server is built with (src imports it): its packages count too.
    for (const file of readdirSync(join(ROOT, 'catalog'), { encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))) {
      for (const spec of runtimeImports(readFileSync(join(ROOT, 'catalog', file), 'utf8'))) imported.set(packageName(spec), [`catalog/${file}`]);
    }
    expect(
      Object.keys(pkg.dependencies).filter((d) => !imported.has(d)),
      'dependencies src/ never imports',
    ).toEqual([]);
    expect(
      [...imported.keys()].filter((p) => !(p in pkg.dependencies)),
      'packages src/ imports that are not dependencies',
    ).toEqual([]);
  });

  it('leave the apps SDK to the build: the server reads the built views, never the package', () => {
    expect(pkg.dependencies).not.toHaveProperty('@modelcontextprotocol/ext-apps');
    expect(pkg.devDependencies).toHaveProperty('@modelcontextprotocol/ext-apps');
    expect(srcImports().has('@modelcontextprotocol/ext-apps')).toBe(false);
  });
});
