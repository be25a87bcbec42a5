// The shown input schemas of the catalog's operations, converted from zod once when the server is
// bundled (scripts/build-server.ts hands them to esbuild, which writes them into the bundle in place
// of WORKSPACE_SHOWN_SCHEMAS) instead of at every start: converting them all was most of the work a
// first tools/list cost this server. Bundled with the very code and zod they were converted from, in
// the same build, they cannot be stale: there is no file to outlive its modules and no key to check.
// Running from the sources (tsx, vitest, the unbundled tsc output) the constant is absent and each
// schema is converted when first listed.
import type { Tool } from '@modelcontextprotocol/server';

export type ShownSchema = Tool['inputSchema'];

/** The bundle's JSON text of the schemas by operation name; undeclared outside a bundle. */
declare const WORKSPACE_SHOWN_SCHEMAS: string | undefined;

/** The name esbuild's `define` replaces with the schemas' JSON text (a string literal). */
export const SHOWN_SCHEMAS_CONSTANT = 'WORKSPACE_SHOWN_SCHEMAS';

let inUse: ReadonlyMap<string, ShownSchema> | undefined;

/** The built schemas this process lists from: the bundle's, parsed on first use; none from the sources. */
export function builtSchemas(): ReadonlyMap<string, ShownSchema> {
  inUse ??=
    typeof WORKSPACE_SHOWN_SCHEMAS === 'string' ? new Map(Object.entries(JSON.parse(WORKSPACE_SHOWN_SCHEMAS) as Record<string, ShownSchema>)) : new Map();
  return inUse;
}

/** Lists from these schemas instead (the tests and the bench: what a bundle holds, from the sources). */
export function useBuiltSchemas(schemas: Readonly<Record<string, ShownSchema>>): void {
  inUse = new Map(Object.entries(schemas));
}
