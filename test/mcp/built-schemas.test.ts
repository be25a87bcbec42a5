// The shown input schemas the build converts once (scripts/build-schemas.ts) instead of each start:
// what it writes is what tools/list would convert, byte for byte, for every catalog operation; the
// listing takes them from the file when its key still matches the modules that decide them, and
// never when one changed since (or another zod is installed): a stale schema cannot be listed.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importClosure, writeBuiltSchemas } from '../../scripts/build-schemas.js';
import { type BuiltSchemasFile, builtSchemas, readBuiltSchemas, schemasKey, useBuiltSchemas } from '../../src/mcp/built-schemas.js';
import { convertOperationSchema, operationSchema } from '../../src/mcp/schema.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { catalog } from '../../tools/index.js';
import { area, op } from '../../tools/shared.js';
import { ROOT } from '../helpers/spawn.js';
import { startStack } from '../helpers/stack.js';

const MODULES = { catalog: join(ROOT, 'tools/index.ts'), schema: join(ROOT, 'src/mcp/schema.ts') };

let dir: string;
let file: string;
let built: BuiltSchemasFile;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wcm-built-schemas-'));
  file = join(dir, 'shown-schemas.json');
  built = await writeBuiltSchemas(MODULES, file);
  // Before any schema of this process is shown: the listing takes them from this build.
  expect(useBuiltSchemas(file)).toBe(true);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('the built input schemas', () => {
  it('are what tools/list converts, byte for byte, for every catalog operation', () => {
    const read = readBuiltSchemas(file);
    expect(read?.size).toBe(catalog.length);
    for (const o of catalog) expect(JSON.stringify(read?.get(o.name)), o.name).toBe(JSON.stringify(convertOperationSchema(o)));
  });

  it('are keyed by every module that decides them: the catalog, the extras, the compaction', () => {
    const keyed = importClosure([MODULES.catalog, MODULES.schema]).map((f) =>
      f
        .slice(ROOT.length)
        .replace(/^[/\\]/, '')
        .split('\\')
        .join('/'),
    );
    for (const m of ['tools/index.ts', 'tools/shared.ts', 'tools/deliverables.ts', 'src/mcp/schema.ts', 'src/mcp/extras.ts', 'src/mcp/render/concise.ts']) {
      expect(keyed).toContain(m);
    }
    expect(built.modules).toHaveLength(keyed.length);
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

describe('a built file that does not match its modules', () => {
  const keyed = (modules: string[], key: string, at: string) => {
    const f = join(at, 'shown-schemas.json');
    writeFileSync(f, JSON.stringify({ modules, key, schemas: { list_findings: { type: 'object' } } }));
    return f;
  };

  it('is used while its modules are as they were built', () => {
    writeFileSync(join(dir, 'module.js'), 'export const a = 1;\n');
    expect(readBuiltSchemas(keyed(['module.js'], schemasKey(dir, ['module.js']), dir))?.get('list_findings')).toEqual({ type: 'object' });
  });

  it('is not used once one of its modules changed (recompiled without the build step)', () => {
    writeFileSync(join(dir, 'module.js'), 'export const a = 1;\n');
    const f = keyed(['module.js'], schemasKey(dir, ['module.js']), dir);
    writeFileSync(join(dir, 'module.js'), 'export const a = 2;\n');
    expect(readBuiltSchemas(f)).toBeUndefined();
  });

  it('is not used when one of its modules is gone', () => {
    writeFileSync(join(dir, 'gone.js'), 'export const a = 1;\n');
    const f = keyed(['gone.js'], schemasKey(dir, ['gone.js']), dir);
    rmSync(join(dir, 'gone.js'));
    expect(readBuiltSchemas(f)).toBeUndefined();
  });

  it('is not used under another zod than the one it was built with', () => {
    writeFileSync(join(dir, 'module.js'), 'export const a = 1;\n');
    expect(readBuiltSchemas(keyed(['module.js'], schemasKey(dir, ['module.js'], '3.25.0'), dir))).toBeUndefined();
  });

  it('is not used when absent or unreadable', () => {
    expect(readBuiltSchemas(join(dir, 'absent.json'))).toBeUndefined();
    writeFileSync(join(dir, 'torn.json'), '{"modules": [');
    expect(readBuiltSchemas(join(dir, 'torn.json'))).toBeUndefined();
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
          const snapshot = readFileSync(new URL(`./tool-snapshots/${tool.name}.json`, import.meta.url), 'utf8');
          expect(`${JSON.stringify(tool, null, 2)}\n`, tool.name).toBe(snapshot);
        }
      } finally {
        await stack.close();
      }
    }
  });
});
