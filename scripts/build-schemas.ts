// `npm run build`'s last step: the shown input schema of every catalog operation, converted from zod
// as tools/list would convert it, written with its key to dist/src/mcp/shown-schemas.json, where the
// built server lists from it instead of converting at start (src/mcp/built-schemas.ts says when it
// is used). Run after tsc, on the modules tsc emitted: the key is computed over those very files.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BUILT_SCHEMAS_FILE, type BuiltSchemasFile, type ShownSchema, schemasKey } from '../src/mcp/built-schemas.js';
import type { Operation } from '../src/operation.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The modules that decide the schemas: the catalog, and the conversion with what it imports. */
export interface SchemaModules {
  /** tools/index (the catalog). */
  catalog: string;
  /** src/mcp/schema (convertOperationSchema). */
  schema: string;
}

const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

/**
 * Every module these reach through relative imports, themselves included, sorted: what the key
 * covers. A `.js` specifier that names no file is read as its `.ts` source (the modules run from source).
 */
export function importClosure(entries: readonly string[]): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(RELATIVE_IMPORT)) {
      let target = resolve(dirname(file), m[1] as string);
      if (!existsSync(target) && target.endsWith('.js')) target = `${target.slice(0, -3)}.ts`;
      if (existsSync(target)) visit(target);
    }
  };
  for (const e of entries) visit(resolve(e));
  return [...seen].sort();
}

/** Converts every catalog operation's shown input schema and writes them, keyed, to `out`. */
export async function writeBuiltSchemas(modules: SchemaModules, out: string): Promise<BuiltSchemasFile> {
  // Converted afresh: never from a file a previous build left.
  rmSync(out, { force: true });
  const { catalog } = (await import(pathToFileURL(modules.catalog).href)) as { catalog: readonly Operation[] };
  const { convertOperationSchema } = (await import(pathToFileURL(modules.schema).href)) as {
    convertOperationSchema: (op: Operation) => ShownSchema;
  };
  const dir = dirname(out);
  const files = importClosure([modules.catalog, modules.schema]).map((f) => relative(dir, f).split('\\').join('/'));
  const built: BuiltSchemasFile = {
    modules: files,
    key: schemasKey(dir, files),
    schemas: Object.fromEntries(catalog.map((op) => [op.name, convertOperationSchema(op)])),
  };
  writeFileSync(out, JSON.stringify(built));
  return built;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dist = join(ROOT, 'dist');
  const out = join(dist, 'src', 'mcp', BUILT_SCHEMAS_FILE);
  const built = await writeBuiltSchemas({ catalog: join(dist, 'tools', 'index.js'), schema: join(dist, 'src', 'mcp', 'schema.js') }, out);
  // On stderr, as build-apps says its sizes: `npm pack --json` prints its answer on stdout.
  process.stderr.write(`${relative(ROOT, out)}: ${Object.keys(built.schemas).length} input schemas, keyed by ${built.modules.length} modules\n`);
}
