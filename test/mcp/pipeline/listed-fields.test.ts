// `fields` (keep only these fields of each record) is an argument of the MCP layer, not of the API
// (src/mcp/pipeline/extras.ts). A model learns what a tool takes from its listed input schema alone, so
// every tool that takes `fields` lists it, and every tool that lists it takes it: each tool of each
// surface is sent `fields` and the answer read for whether it was refused by name.
import type { Tool } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { startStack, textOf } from '../../helpers/stack.js';

let sandbox: SandboxHandle;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
});
afterAll(async () => {
  await sandbox?.close();
});

/** The refusal's line for `fields`: its own ("- fields: ..."), or among the unknown arguments. */
const FIELDS_REFUSED = /^- (fields: |\(arguments\): unknown arguments?\b[^\n]*\bfields\b)/m;

describe('fields, as listed', () => {
  it.each(['default', 'all', 'code'] as const)('every tool of %s that takes fields lists it, and every one that lists it takes it', async (surface) => {
    const stack = await startStack({ sandboxHandle: sandbox, env: { WORKSPACE_TOOLSETS: surface, WORKSPACE_JOB_WAIT_SECONDS: '0' } });
    try {
      const { tools } = await stack.client.listTools();
      const wrong: string[] = [];
      let lists = 0;
      for (const t of tools as Tool[]) {
        const listed = 'fields' in (t.inputSchema.properties ?? {});
        if (listed) lists++;
        const r = await stack.call(t.name, { fields: ['id'] });
        const text = r.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
        if (t.name === 'call_operation') {
          // It runs another operation with that operation's arguments, fields among them for a list:
          // its listed `arguments` says so.
          const described = (t.inputSchema.properties?.arguments as { description?: string } | undefined)?.description ?? '';
          if (!/fields/.test(described)) wrong.push(`call_operation: arguments does not say list operations take fields`);
          continue;
        }
        const taken = !FIELDS_REFUSED.test(text);
        if (taken !== listed)
          wrong.push(`${t.name}: ${listed ? 'lists fields but refuses it' : 'takes fields but does not list it'}: ${textOf(r).slice(0, 200)}`);
      }
      expect(wrong).toEqual([]);
      // The list tools are there to check (on the code surface, scripts reach them through api).
      if (surface !== 'code') expect(lists).toBeGreaterThan(3);
    } finally {
      await stack.close();
    }
  });
});
