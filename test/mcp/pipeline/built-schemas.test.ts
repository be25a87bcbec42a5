// The shown input schemas the build converts once (scripts/build-schemas.ts) and bundles with the
// server (scripts/build-server.ts) instead of converting them each start: what it bundles is what
// tools/list would convert, byte for byte, for every catalog operation, and the listing takes a
// catalog operation's from there (test/install/package.test.ts checks the packed bundle holds them).
import { readFileSync } from 'node:fs';
import type { Tool } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { shownSchemas } from '../../../scripts/build-schemas.js';
import type { ShownSchema } from '../../../src/mcp/pipeline/built-schemas.js';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';

let built: Record<string, ShownSchema>;
// The modules as a server loads them: fresh copies, of which no schema has been shown yet (the
// quick tier's files share a module graph per worker).
let builtSchemas: typeof import('../../../src/mcp/pipeline/built-schemas.js').builtSchemas;
let convertOperationSchema: typeof import('../../../src/mcp/pipeline/shown-schema.js').convertOperationSchema;
let operationSchema: typeof import('../../../src/mcp/pipeline/shown-schema.js').operationSchema;
let catalog: typeof import('../../../catalog/index.js').catalog;
let area: typeof import('../../../catalog/shared.js').area;
let op: typeof import('../../../catalog/shared.js').op;
let startStack: typeof import('../../helpers/stack.js').startStack;

beforeAll(async () => {
  built = shownSchemas();
  vi.resetModules();
  const schemas = await import('../../../src/mcp/pipeline/built-schemas.js');
  ({ builtSchemas } = schemas);
  ({ convertOperationSchema, operationSchema } = await import('../../../src/mcp/pipeline/shown-schema.js'));
  ({ catalog } = await import('../../../catalog/index.js'));
  ({ area, op } = await import('../../../catalog/shared.js'));
  ({ startStack } = await import('../../helpers/stack.js'));
  // Before any schema of these modules is shown: the listing takes them from this build, through
  // the JSON text a bundle parses.
  schemas.useBuiltSchemas(JSON.parse(JSON.stringify(built)) as Record<string, ShownSchema>);
});

describe('the built input schemas', () => {
  it('are what tools/list converts, byte for byte, for every catalog operation', () => {
    expect(Object.keys(built)).toHaveLength(catalog.length);
    for (const o of catalog) expect(JSON.stringify(built[o.name]), o.name).toBe(JSON.stringify(convertOperationSchema(o)));
  });

  it('are what the listing shows of a catalog operation, not a conversion', () => {
    for (const o of catalog) expect(operationSchema(o), o.name).toBe(builtSchemas().get(o.name));
  });

  it('are not shown for an operation made elsewhere under a catalog name', () => {
    const [lookalike] = area('engagements', [
      op({ name: 'list_findings', title: 'List findings', description: 'A test double.', method: 'GET', path: '/x/{thing}' }),
    ]);
    if (!lookalike) throw new Error('no operation built');
    expect(operationSchema(lookalike)).not.toBe(builtSchemas().get('list_findings'));
    expect(Object.keys((operationSchema(lookalike) as { properties: object }).properties)).toEqual(['thing', 'response_format']);
  });
});

describe('the listing from the built schemas', () => {
  let sandbox: SandboxHandle;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, rateLimit: false });
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it('lists every tool exactly as its reviewed snapshot', async () => {
    for (const toolsets of ['all', 'default']) {
      const stack = await startStack({ sandboxHandle: sandbox, env: { WORKSPACE_TOOLSETS: toolsets } });
      try {
        const tools: Tool[] = (await stack.client.listTools()).tools;
        expect(tools.length).toBeGreaterThan(0);
        for (const tool of tools) {
          const snapshot = readFileSync(new URL(`../tool-snapshots/${tool.name}.json`, import.meta.url), 'utf8');
          expect(`${JSON.stringify(tool, null, 2)}\n`, tool.name).toBe(snapshot);
        }
      } finally {
        await stack.close();
      }
    }
  });
});
