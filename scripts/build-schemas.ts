// The shown input schema of every catalog operation, converted from zod as tools/list would convert
// it: scripts/build-server.ts bundles them with the server (src/mcp/pipeline/built-schemas.ts says why), run
// from the same sources the bundle is made of, in the same build.

import { catalog } from '../catalog/index.js';
import type { ShownSchema } from '../src/mcp/pipeline/built-schemas.js';
import { convertOperationSchema } from '../src/mcp/pipeline/shown-schema.js';

/** Every catalog operation's shown input schema, by name. */
export function shownSchemas(): Record<string, ShownSchema> {
  return Object.fromEntries(catalog.map((op) => [op.name, convertOperationSchema(op)]));
}
