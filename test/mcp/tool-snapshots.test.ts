// What the model sees, one file per tool: its name, description, input schema, annotations, and the
// output schema and _meta its client reads, exactly as tools/list gives them, for every tool of the default surface and of `all` (together,
// every tool this server can list). A change to a description, a schema or a hint shows up as a diff
// of the tool's file in review. `npm run regen` writes the file of a new tool and fails on a changed
// one; after a deliberate change, `npm run snapshots` rewrites them all, to commit beside the change.
// Under CI a missing file fails instead of being written.
import { existsSync, readdirSync } from 'node:fs';
import type { Tool } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { startStack } from '../helpers/stack.js';

let sandbox: SandboxHandle;
const tools = new Map<string, Tool>();

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  for (const toolsets of ['default', 'all']) {
    const stack = await startStack({ sandboxHandle: sandbox, env: { WORKSPACE_TOOLSETS: toolsets } });
    try {
      for (const tool of (await stack.client.listTools()).tools) {
        const seen = tools.get(tool.name);
        // A tool listed on both surfaces is listed the same way on both: one file can stand for it.
        if (seen) expect(tool, tool.name).toEqual(seen);
        else tools.set(tool.name, tool);
      }
    } finally {
      await stack.close();
    }
  }
});

afterAll(async () => {
  await sandbox.close();
});

describe('every listed tool, as the model sees it', () => {
  it('matches its reviewed snapshot', async () => {
    expect(tools.size).toBeGreaterThan(0);
    for (const [name, tool] of [...tools].sort(([a], [b]) => a.localeCompare(b))) {
      // Soft: one changed file does not stop the others being checked, or written when new.
      await expect.soft(`${JSON.stringify(tool, null, 2)}\n`, name).toMatchFileSnapshot(`./tool-snapshots/${name}.json`);
    }
  });

  it('has no snapshot left for a tool that is no longer listed', () => {
    // `npm run snapshots` empties the folder before rewriting it, so a removed tool's file goes too.
    // (Under --update the files are written at the end of the run: the folder may not exist yet.)
    const folder = new URL('./tool-snapshots/', import.meta.url);
    const files = existsSync(folder) ? readdirSync(folder).map((f) => f.replace(/\.json$/, '')) : [];
    expect(files.filter((f) => !tools.has(f))).toEqual([]);
  });
});
