// The layout's rules (docs/architecture.md, Who may import whom), checked on the import statements:
// no import cycles (a module can be read before the ones that use it), catalog/ imports nothing from
// src/ but the Operation type, src/api and src/mcp never import the sandbox, src/store knows nothing
// of MCP or HTTP. Only value imports count: `import type` is erased at build time.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/spawn.js';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const sources = [...files(join(ROOT, 'src')), ...files(join(ROOT, 'catalog'))];

/** The project files a module imports as values (static and dynamic), as paths relative to the root. */
function valueImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  const re = /(?:^|\n)\s*(import|export)\s+(type\s+)?[^'"]*?from\s+'(\.[^']+)'|import\('(\.[^']+)'\)/g;
  for (const m of text.matchAll(re)) {
    if (m[2]) continue; // import type / export type
    const spec = m[3] ?? m[4];
    if (!spec) continue;
    out.push(relative(ROOT, resolve(dirname(file), spec.replace(/\.js$/, '.ts'))));
  }
  return out;
}

const graph = new Map(sources.map((f) => [relative(ROOT, f), valueImports(f)]));

/** Every cycle of static imports, each as the modules in order. */
function cycles(only: (path: string) => boolean): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (n: string) => {
    state.set(n, 'open');
    stack.push(n);
    for (const m of graph.get(n) ?? []) {
      if (!only(m) || !graph.has(m)) continue;
      if (state.get(m) === 'open') found.push([...stack.slice(stack.indexOf(m)), m]);
      else if (!state.has(m)) visit(m);
    }
    stack.pop();
    state.set(n, 'done');
  };
  for (const n of graph.keys()) if (only(n) && !state.has(n)) visit(n);
  return found;
}

const importers = (from: string, to: string) =>
  [...graph.entries()].filter(([f]) => f.startsWith(from)).flatMap(([f, deps]) => deps.filter((d) => d.startsWith(to)).map((d) => `${f} -> ${d}`));

/**
 * The layers of src/ and catalog/, from the bottom up (docs/architecture.md, Who may import whom): a
 * module imports only from its own layer or one listed before it. A folder is one layer; a file at
 * the root of src/ is its own.
 */
const LAYERS = [
  'src/path-template.ts',
  'src/operation.ts',
  'catalog/',
  'src/version.ts',
  'src/i18n.ts',
  'src/node-floor.ts',
  'src/log.ts',
  'src/launcher.ts',
  'src/fs/',
  'src/net/',
  'src/store/',
  'src/api/',
  'src/config.ts',
  'src/auth/',
  'src/audit/',
  'src/metrics/',
  'src/operator.ts',
  'src/sandbox/',
  'src/mcp/operations/',
  'src/mcp/documents/',
  'src/mcp/files/',
  'src/mcp/render/',
  'src/mcp/pipeline/',
  'src/mcp/apps/',
  'src/mcp/scripts/',
  'src/mcp/tools/',
  'src/mcp/transport/',
  'src/mcp/server/',
  'src/remote/',
  'src/serve/',
  'src/demo/',
  'src/doctor/',
  'src/cli.ts',
];
/** A module's layer: the longest entry of LAYERS it is, or lies in; -1 for none. */
const layerOf = (path: string): number => {
  let best = -1;
  LAYERS.forEach((l, i) => {
    if ((l.endsWith('/') ? path.startsWith(l) : path === l) && (best < 0 || l.length > (LAYERS[best] as string).length)) best = i;
  });
  return best;
};

describe('the layout', () => {
  it('places every module of src/ and catalog/ in a layer', () => {
    expect([...graph.keys()].filter((f) => layerOf(f) < 0)).toEqual([]);
  });

  it('has no import running back up a layer', () => {
    const up = [...graph.entries()].flatMap(([f, deps]) => deps.filter((d) => graph.has(d) && layerOf(d) > layerOf(f)).map((d) => `${f} -> ${d}`));
    expect(up).toEqual([]);
  });

  it('has no import cycle, the rendering folder included', () => {
    expect(cycles(() => true)).toEqual([]);
  });

  it('catalog/ imports nothing from src/ but the operation shape', () => {
    expect(importers('catalog/', 'src/').filter((l) => !l.endsWith('-> src/operation.ts'))).toEqual([]);
  });

  it('the API client and the MCP layer never import the sandbox: they reach it over HTTP', () => {
    expect([...importers('src/api/', 'src/sandbox/'), ...importers('src/mcp/', 'src/sandbox/')]).toEqual([]);
  });

  it('the state store knows nothing of MCP, HTTP serving or the remote mode', () => {
    expect([...importers('src/store/', 'src/mcp/'), ...importers('src/store/', 'src/remote/'), ...importers('src/store/', 'src/serve/')]).toEqual([]);
  });

  it('the API client knows nothing of MCP', () => {
    expect(importers('src/api/', 'src/mcp/')).toEqual([]);
  });

  it('the sandbox imports nothing of the server but the operation shape (and the catalog, in catalog/)', () => {
    const outside = importers('src/sandbox/', 'src/').filter((l) => !l.includes(' -> src/sandbox/') && !l.endsWith(' -> src/operation.ts'));
    expect(outside).toEqual([]);
  });
});
