// Every error answer reaches the model as text, in the clients that embed this server (docs/architecture.md,
// Result contract). Every tool of the default surface and of WORKSPACE_TOOLSETS=all is called the way a
// model gets it wrong (no arguments, ids of the right form that name nothing, values its listed schema
// refuses; scripts whose calls fail), through each client's own callTool after listing, over a real
// transport against the sandbox: the MCP SDK v1 client (1.32, what most hosts and agent frameworks
// embed), which validates structuredContent against the tool's outputSchema on error results too and
// throws on a mismatch, and the v2 client, in both protocol eras. Each answer must be an error result,
// never a thrown protocol error, whose text names the fields at fault and whose code is in _meta.

import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1Stdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_META_KEY } from '../../src/mcp/render/tool-result.js';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { connectHttp, connectStdio, type Era, serverHome } from '../helpers/eras.js';
import { type ErrorCall, errorCalls, scriptErrorCalls } from '../helpers/error-calls.js';
import { ROOT } from '../helpers/spawn.js';
import { type HttpChild, spawnHttpServer } from '../helpers/spawn-http.js';
import type { ServerHome } from '../helpers/stdio-server.js';

type Surface = 'default' | 'all';

/** What the test needs of a client, whichever SDK it comes from. */
interface Caller {
  listTools(): Promise<{ tools: Array<{ name: string; inputSchema: Record<string, unknown> }> }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

type Answer = { isError?: boolean; content?: Array<{ type: string; text?: string }>; _meta?: Record<string, unknown> };

let sandbox: SandboxHandle;
const homes = new Map<Surface, ServerHome>();
const https = new Map<Surface, HttpChild>();

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  for (const surface of ['default', 'all'] as const) {
    // A budget that never makes a call wait, and job tools that answer once the start is refused.
    const home = await serverHome(sandbox, { WORKSPACE_TOOLSETS: surface, WORKSPACE_RATE_LIMIT: '120/0.1', WORKSPACE_JOB_WAIT_SECONDS: '0' });
    homes.set(surface, home);
    https.set(surface, await spawnHttpServer(home.env));
  }
});
afterAll(async () => {
  for (const child of https.values()) await child.stop();
  for (const home of homes.values()) await home.cleanup();
  await sandbox?.close();
});

const homeOf = (surface: Surface) => homes.get(surface) as ServerHome;
const httpOf = (surface: Surface) => https.get(surface) as HttpChild;

async function v1(surface: Surface, wire: 'stdio' | 'http'): Promise<Caller> {
  const client = new V1Client({ name: 'sdk-v1', version: '1.0.0' });
  await client.connect(
    wire === 'stdio'
      ? new V1Stdio({ command: process.execPath, args: ['--import', 'tsx', 'src/cli.ts'], cwd: ROOT, env: homeOf(surface).env, stderr: 'pipe' })
      : new V1Http(new URL(httpOf(surface).url)),
  );
  return client as unknown as Caller;
}

async function v2(surface: Surface, wire: 'stdio' | 'http', era: Era): Promise<Caller> {
  const c = wire === 'stdio' ? await connectStdio(era, homeOf(surface)) : await connectHttp(era, httpOf(surface));
  return { listTools: () => c.client.listTools(), callTool: (p) => c.client.callTool(p), close: () => c.close() };
}

const textOf = (r: Answer) => (r.content ?? []).flatMap((c) => (c.type === 'text' && c.text ? [c.text] : [])).join('\n');

/** How the answer to `call` falls short of an error the model reads; undefined when it does not. */
function shortfall(call: ErrorCall, r: Answer): string | undefined {
  const text = textOf(r);
  if (r.isError !== true) return `not an error result: ${text.slice(0, 200)}`;
  // The refusal of missing or invalid arguments names each field; a "not found" names the id it was given.
  const named =
    call.kind === 'missing' || call.kind === 'invalid values' ? call.fields.every((f) => text.includes(f)) : call.fields.some((f) => text.includes(f));
  if (!named) return `the text names none of ${call.fields.join(', ')}: ${text.slice(0, 300)}`;
  const detail = r._meta?.[ERROR_META_KEY] as { code?: unknown } | undefined;
  if (typeof detail?.code !== 'string') return `no error code in _meta: ${JSON.stringify(r._meta)}`;
  return undefined;
}

/** Every tool listed, called wrong: what threw instead of answering, and answers that are not errors the model reads. */
async function callEveryToolWrong(client: Caller): Promise<{ calls: number; tools: number; thrown: string[]; unread: string[] }> {
  try {
    const { tools } = await client.listTools();
    const calls = [
      ...tools.flatMap((t) => errorCalls(t)),
      ...scriptErrorCalls(
        tools.map((t) => t.name),
        ENGAGEMENT_AP,
      ),
    ];
    const thrown: string[] = [];
    const unread: string[] = [];
    for (const call of calls) {
      const what = `${call.tool} (${call.kind})`;
      let r: Answer;
      try {
        r = (await client.callTool({ name: call.tool, arguments: call.args })) as Answer;
      } catch (err) {
        thrown.push(`${what}: ${err instanceof Error ? err.message.slice(0, 200) : String(err)}`);
        continue;
      }
      const short = shortfall(call, r);
      if (short) unread.push(`${what}: ${short}`);
    }
    return { calls: calls.length, tools: tools.length, thrown, unread };
  } finally {
    await client.close();
  }
}

describe('error answers reach the model as text in every client', () => {
  it.each(['all', 'default'] as const)(
    'the v1 client (SDK 1.32) over stdio: every tool of %s called wrong answers an error result, none thrown',
    async (surface) => {
      const r = await callEveryToolWrong(await v1(surface, 'stdio'));
      expect(r.calls).toBeGreaterThan(2 * r.tools);
      expect(r.thrown).toEqual([]);
      expect(r.unread).toEqual([]);
    },
  );

  it.each(['all', 'default'] as const)('the v2 client over HTTP, 2026-07-28: every tool of %s called wrong answers an error result', async (surface) => {
    const r = await callEveryToolWrong(await v2(surface, 'http', 'modern'));
    expect(r.calls).toBeGreaterThan(2 * r.tools);
    expect(r.thrown).toEqual([]);
    expect(r.unread).toEqual([]);
  });

  it('the v1 client over HTTP (2025-11-25): every tool of the default surface called wrong answers an error result', async () => {
    const r = await callEveryToolWrong(await v1('default', 'http'));
    expect(r.thrown).toEqual([]);
    expect(r.unread).toEqual([]);
  });

  it('the v2 client over stdio, 2025-11-25: every tool of the default surface called wrong answers an error result', async () => {
    const r = await callEveryToolWrong(await v2('default', 'stdio', 'legacy'));
    expect(r.thrown).toEqual([]);
    expect(r.unread).toEqual([]);
  });
});
