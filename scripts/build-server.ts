// Builds the server into dist/src as an esbuild bundle: the entry dist/src/cli.js (the bin, with its
// shebang), the script worker's entry dist/src/script-worker.js, and the chunks both share, flat beside
// them. Run by `npm run build` after tsc (which type-checks, and writes the same code as separate
// modules to dist/unbundled for the bench to time piece by piece).
//
// Why a bundle: before its first tools/list the server loaded about 280 ES modules (zod alone 97,
// its own about 100, the SDK, pino...), and resolving, reading and linking that many files was a
// large share of its start (bench/run.ts). Bundled, a start reads a few dozen files.
//
// What keeps working from the bundle:
// - cli.ts imports nothing statically: with `splitting`, each of its dynamic imports is a chunk of
//   its own, so a command still loads only what it needs, and the compile cache is on before any of
//   them loads.
// - Files found from import.meta.url: the script worker is an entry point written beside the chunks
//   (script-thread.ts starts `./script-worker.js`, beside itself in either layout); the apps' views
//   are found under the nearest dist/ (views.ts).
// - createRequire(import.meta.url)('node:http') stays a run-time require of the builtin.
// - The catalog's input schemas are converted here, once, and bundled (src/mcp/pipeline/built-schemas.ts).

import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { SHOWN_SCHEMAS_CONSTANT } from '../src/mcp/pipeline/built-schemas.js';
import { shownSchemas } from './build-schemas.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const SERVER_OUT = join(ROOT, 'dist', 'src');

/**
 * Left to node_modules, loaded from there at run time (each must be a dependency, checked below):
 * quickjs-emscripten loads its .wasm from its own package; the others load only off the start of
 * a stdio or HTTP server (redis and prom-client in remote mode, undici in doctor and remote
 * mode's client metadata fetch, the MCP client in demo) and are large: bundled, they would only
 * add a copy of what the install holds anyway.
 */
export const EXTERNAL = ['quickjs-emscripten', 'redis', 'prom-client', 'undici', '@modelcontextprotocol/client'] as const;

/**
 * The bundle is ES modules, and the CommonJS packages inside it (pino and its streams) require
 * Node's builtins: esbuild's require shim needs a `require` in scope to do so.
 */
const REQUIRE_SHIM = "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

const BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

/** The package an import path names (`@scope/name/sub` is `@scope/name`). */
function packageName(path: string): string {
  const parts = path.split('/');
  return path.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string);
}

/** Every import the bundle leaves to run time is a builtin or a dependency of the package. */
export function checkImports(metafile: Metafile, dependencies: ReadonlySet<string>): void {
  for (const [file, out] of Object.entries(metafile.outputs)) {
    for (const imp of out.imports) {
      if (!imp.external || BUILTINS.has(imp.path)) continue;
      if (!dependencies.has(packageName(imp.path)))
        throw new Error(`${file} imports ${imp.path} at run time, which is not a dependency in package.json: bundle it or make it one`);
    }
  }
}

/** Builds the bundle into `outDir` (emptied first: a chunk of an earlier build must not linger). */
export async function buildServer(outDir = SERVER_OUT): Promise<Metafile> {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const dependencies = new Set(Object.keys(pkg.dependencies));
  for (const name of EXTERNAL) if (!dependencies.has(name)) throw new Error(`${name} is left external but is not a dependency in package.json`);
  await rm(outDir, { recursive: true, force: true });
  const { metafile } = await build({
    absWorkingDir: ROOT,
    entryPoints: { cli: 'src/cli.ts', 'script-worker': 'src/mcp/scripts/script-worker.ts' },
    outdir: outDir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22.19',
    external: [...EXTERNAL],
    banner: { js: REQUIRE_SHIM },
    // The catalog's shown input schemas, converted here once from these same sources, written into
    // the bundle as a string literal (parsed on first listing): src/mcp/pipeline/built-schemas.ts.
    define: { [SHOWN_SCHEMAS_CONSTANT]: JSON.stringify(JSON.stringify(shownSchemas())) },
    // Linked maps, without the sources' text: a stack trace names src/ files and lines when the
    // process runs with --enable-source-maps (NODE_OPTIONS), at no cost when it does not.
    sourcemap: 'linked',
    sourcesContent: false,
    // The licence notices the bundled packages carry (/*! ... */, @license) kept, at the end of each file.
    legalComments: 'eof',
    metafile: true,
    logLevel: 'warning',
  });
  checkImports(metafile, dependencies);
  return metafile;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const metafile = await buildServer();
  const js = Object.entries(metafile.outputs).filter(([f]) => f.endsWith('.js'));
  const kb = js.reduce((n, [, o]) => n + o.bytes, 0) / 1024;
  process.stderr.write(`dist/src: ${js.length} files, ${kb.toFixed(0)} KiB (entries cli.js, script-worker.js)\n`);
}
