// What the assistant reads when a DELETE's answer was lost after the workspace applied it: the
// server sends the DELETE again, the workspace answers 404, and the tool says the resource was
// deleted (already gone when checked again), not "not found, check the id". Black box: the server
// from source over stdio, the v2 client, the sandbox over real HTTP with one injected fault.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { ROOT } from '../helpers/spawn.js';

const FINDING = '/engagements/{engagement}/findings/{finding}';

let sandbox: SandboxHandle;
let client: Client;
let stderr = '';

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'src/cli.ts', 'serve'],
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      LANG: 'C',
      LOG_LEVEL: 'warn',
      WORKSPACE_URL: sandbox.url,
      WORKSPACE_TOKEN: sandbox.tokens.write,
      WORKSPACE_TOOLSETS: 'analysis',
    },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  client = new Client({ name: 'delete-already-gone', version: '1.0.0' });
  await client.connect(transport);
}, 60_000);
afterAll(async () => {
  await client?.close();
  await sandbox?.close();
});

const textOf = (r: { content?: unknown }) => ((r.content ?? []) as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');

describe('delete_finding whose first answer was lost', () => {
  it.each([
    ['a reset', { reset: true }],
    ['a 503', { status: 503 }],
  ])('after %s once the finding was deleted: "deleted (it was already gone when checked again)"', async (_, fault) => {
    const created = await client.callTool({
      name: 'create_finding',
      arguments: { engagement: ENGAGEMENT_AP, type: 'risk', statement: `lost delete answer: ${_}` },
    });
    expect(created.isError, textOf(created)).toBeFalsy();
    const finding = (created.structuredContent as { id: string }).id;

    sandbox.clearRequests();
    sandbox.admin.fault({ count: 1, ...fault, after_handler: true, match: { method: 'DELETE', path: FINDING } });
    const r = await client.callTool({ name: 'delete_finding', arguments: { engagement: ENGAGEMENT_AP, finding } });

    expect(r.isError, `${textOf(r)}\n${stderr}`).toBeFalsy();
    expect(textOf(r)).toMatch(/deleted \(it was already gone when checked again/);
    expect(textOf(r)).not.toMatch(/not found|check the id/i);
    expect(r.structuredContent).toMatchObject({ ok: true, already_gone: true });
    expect(
      sandbox
        .requests()
        .filter((q) => q.method === 'DELETE' && q.template === FINDING)
        .map((q) => q.handler_ran),
    ).toEqual([true, true]);
  });

  it('an id that does not exist is still "not found"', async () => {
    const r = await client.callTool({ name: 'delete_finding', arguments: { engagement: ENGAGEMENT_AP, finding: '01ZZZZZZZZZZZZZZZZZZZZZZZZ' } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/HTTP 404/);
    expect(textOf(r)).toMatch(/Check the id/);
  });
});
