// A catalog entry's zod input is built when something first reads it (a call validating its
// arguments, the sandbox, a conversion), not when the catalog loads: tools/list shows the schemas
// the build converted, so a session that lists every tool and calls one builds one entry's schema.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { shownSchemas } from '../../../scripts/build-schemas.js';
import type { ApiClient } from '../../../src/api/client.js';
import type { Operation } from '../../../src/operation.js';

/** Whether the entry's input was built: it is then held as a plain value, no longer a getter. */
const built = (o: Operation) => 'value' in (Object.getOwnPropertyDescriptor(o, 'input') ?? {});

// The modules as a server loads them, after the build: fresh copies, whose entries nothing has read.
let catalog: readonly Operation[];
let area: typeof import('../../../catalog/shared.js').area;
let op: typeof import('../../../catalog/shared.js').op;
let Session: typeof import('../../../src/mcp/server/session.js').Session;
let toolListFor: typeof import('../../../src/mcp/server/session.js').toolListFor;
let OperationSet: typeof import('../../../src/mcp/operations/operation-set.js').OperationSet;
let loadConfig: typeof import('../../../src/config.js').loadConfig;
let createLogger: typeof import('../../../src/log.js').createLogger;

beforeAll(async () => {
  // The build converts every entry's schema (so reads every input): in this module graph, not the next.
  const schemas = shownSchemas();
  vi.resetModules();
  ({ catalog } = await import('../../../catalog/index.js'));
  ({ area, op } = await import('../../../catalog/shared.js'));
  ({ Session, toolListFor } = await import('../../../src/mcp/server/session.js'));
  ({ OperationSet } = await import('../../../src/mcp/operations/operation-set.js'));
  ({ loadConfig } = await import('../../../src/config.js'));
  ({ createLogger } = await import('../../../src/log.js'));
  (await import('../../../src/mcp/pipeline/built-schemas.js')).useBuiltSchemas(schemas);
});

describe("a catalog entry's input", () => {
  it('is built on first read, once, and held, with the fields it declares', () => {
    let fieldsBuilt = 0;
    const [entry] = area('engagements', [
      op({
        name: 'list_things',
        title: 'List things',
        description: 'A test entry.',
        method: 'GET',
        path: '/things/{thing}',
        paginated: true,
        fields: () => {
          fieldsBuilt++;
          return { status: z.enum(['open', 'closed']).optional() };
        },
      }),
    ]);
    if (!entry) throw new Error('no entry');
    expect([built(entry), fieldsBuilt]).toEqual([false, 0]);
    const input = entry.input;
    expect(Object.keys(input.shape)).toEqual(['thing', 'status', 'cursor', 'limit']);
    expect(built(entry)).toBe(true);
    expect(entry.input).toBe(input);
    expect(fieldsBuilt).toBe(1);
  });

  it('is built by no listing: every tool of either surface is listed with none built', () => {
    expect(catalog.filter(built).map((o) => o.name)).toEqual([]);
    expect(toolListFor({ toolsets: 'all', readOnly: false }, catalog).length).toBeGreaterThanOrEqual(catalog.length);
    expect(toolListFor({ toolsets: 'default', readOnly: false }, catalog).length).toBeGreaterThan(0);
    expect(catalog.filter(built).map((o) => o.name)).toEqual([]);
  });

  it("is built by a call of its tool, and no other entry's is", async () => {
    const { logger } = createLogger('silent');
    const refused = () => Promise.reject(new Error('no workspace in this test'));
    const session = new Session({
      config: loadConfig({ WORKSPACE_TOOLSETS: 'all' }),
      client: { callOperation: refused, request: refused } as unknown as ApiClient,
      logger,
      operations: new OperationSet({ catalog, logger, live: false }),
    });
    try {
      const result = await session
        .call('list_findings', { engagement: '01M1D4MS5080000000GGT70VZH' }, { signal: new AbortController().signal })
        .catch((err: unknown) => err);
      expect(result).toBeDefined();
    } finally {
      session.close();
    }
    expect(catalog.filter(built).map((o) => o.name)).toEqual(['list_findings']);
  });
});
