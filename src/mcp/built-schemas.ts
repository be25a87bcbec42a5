// The shown input schemas of the catalog's operations, converted from zod once by `npm run build`
// (scripts/build-schemas.ts) instead of at every start: converting them all is most of the work a
// first tools/list costs this server (about 130 us a tool). The file holds, beside the schemas, a key:
// a hash of the modules that decide them (the catalog, the extras, the compaction, found by following
// their imports at build time) and of zod's version. It is used only when the key still matches the
// modules as they are on disk, so a module recompiled since (a `tsc` without the build step, another
// zod installed) makes it stale and the schemas are converted as before: a stale schema can never be
// listed. Absent (running from the sources: tsx, vitest), the same.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';

export type ShownSchema = Tool['inputSchema'];

/** The file's name, beside this module (in dist/src/mcp/ once built). */
export const BUILT_SCHEMAS_FILE = 'shown-schemas.json';

export interface BuiltSchemasFile {
  /** The modules the key covers, relative to the file's folder. */
  modules: string[];
  key: string;
  /** By operation name: the catalog's operations. */
  schemas: Record<string, ShownSchema>;
}

function zodVersion(): string {
  const { major, minor, patch } = z.core.version;
  return `${major}.${minor}.${patch}`;
}

/** The key of these modules (paths relative to `dir`) with this zod: throws if one cannot be read. */
export function schemasKey(dir: string, modules: readonly string[], zod = zodVersion()): string {
  const hash = createHash('sha256').update(`zod ${zod}\n`);
  for (const m of modules) hash.update(`${m}\n`).update(readFileSync(join(dir, m)));
  return hash.digest('hex');
}

/**
 * The schemas of a built file, when its key matches its modules as they are now; undefined when
 * the file is absent, unreadable or stale.
 */
export function readBuiltSchemas(file: string): ReadonlyMap<string, ShownSchema> | undefined {
  try {
    const built = JSON.parse(readFileSync(file, 'utf8')) as BuiltSchemasFile;
    if (built.key !== schemasKey(dirname(file), built.modules)) return undefined;
    return new Map(Object.entries(built.schemas));
  } catch {
    return undefined;
  }
}

let inUse: ReadonlyMap<string, ShownSchema> | undefined;

/** The built schemas this process lists from: read (and checked) on first use, from beside this module. */
export function builtSchemas(): ReadonlyMap<string, ShownSchema> {
  inUse ??= readBuiltSchemas(join(dirname(fileURLToPath(import.meta.url)), BUILT_SCHEMAS_FILE)) ?? new Map();
  return inUse;
}

/** Lists from another built file (the tests' own build); whether it was fresh. */
export function useBuiltSchemas(file: string): boolean {
  const read = readBuiltSchemas(file);
  inUse = read ?? new Map();
  return read !== undefined;
}
