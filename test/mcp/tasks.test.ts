// MCP tasks. Served half-way (as SDK v1's experimental tasks were), a write run as a task and
// cancelled with `tasks/cancel` is reported "cancelled" while the write lands, `tasks/result` then
// answers -32603, and a task call is accepted on a tool that declared no task support. SDK v2 has no
// server side for tasks yet (the extension's is pending upstream), so this server serves none: a
// tools/call asking for a task (2025's `params.task`, or a 2026 client's tasks capability) runs once
// as a plain call and answers its real result; tasks/get, tasks/cancel, tasks/result, tasks/list and
// tasks/update are unknown methods (-32601), so no task can be reported "cancelled" after its write
// landed; and no tool declares `execution.taskSupport`, nor do the server's capabilities offer tasks.
// Over stdio and over HTTP (`serve --http`), in both eras, raw, as a client would send it.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { gate } from '../helpers/reached.js';
import { type HttpChild, spawnHttpServer } from '../helpers/spawn-http.js';
import { httpConnection, type RawConnection, stdioConnection, type Transport } from '../reliability/raw-connection.js';
import { type Era, eraParams, MODERN_META, type Rpc } from '../reliability/stdio-peer.js';

const ERAS: Era[] = ['legacy', 'modern'];
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const TASK_METHODS = ['tasks/get', 'tasks/cancel', 'tasks/result', 'tasks/list', 'tasks/update'];

let sandbox: SandboxHandle;
let http: HttpChild;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  const dir = await mkdtemp(join(tmpdir(), 'wcm-tasks-'));
  env = { WORKSPACE_URL: sandbox.url, WORKSPACE_TOKEN: sandbox.tokens.write, HOME: dir, WORKSPACE_CONFIG_DIR: join(dir, 'config'), LOG_LEVEL: 'warn' };
  http = await spawnHttpServer(env);
}, 60_000);
afterAll(async () => {
  await http?.stop();
  await sandbox?.close();
});

/**
 * A create_finding asking to run as a task, as a client of the era asks: 2025's `params.task`; a
 * 2026 client declares the tasks extension in its per-request capabilities (and an older habit's
 * `params.task` comes along).
 */
function taskCall(era: Era, id: string, statement: string): Record<string, unknown> {
  const params = { name: 'create_finding', arguments: { engagement: ENGAGEMENT_AP, type: 'risk', statement }, task: { ttl: 60_000 } };
  if (era === 'legacy') return { id, method: 'tools/call', params };
  return {
    id,
    method: 'tools/call',
    params: { ...params, _meta: { ...MODERN_META, 'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION]: {} } } } },
  };
}

/** Findings with this statement on the sandbox, and the POSTs that created them. */
function landed(statement: string) {
  const posts = sandbox
    .requests()
    .filter(
      (r) => r.method === 'POST' && r.template === '/engagements/{engagement}/findings' && (r.body as { statement?: string } | null)?.statement === statement,
    );
  return { posts: posts.length, created: posts.filter((r) => r.status === 201).length };
}

/** What the call answered must be the finding it created: a plain tool result, no task handle. */
function expectPlainResult(m: Rpc | undefined, statement: string): void {
  const result = m?.result as { isError?: boolean; structuredContent?: { id?: string; statement?: string }; task?: unknown; resultType?: string } | undefined;
  expect(m?.error, JSON.stringify(m)).toBeUndefined();
  expect(result?.isError).toBeFalsy();
  expect(result?.task).toBeUndefined();
  expect(result?.resultType ?? 'complete').toBe('complete');
  expect(result?.structuredContent).toMatchObject({ statement });
  expect(result?.structuredContent?.id).toMatch(/^[0-9A-Z]{26}$/);
}

const TRANSPORTS: Transport[] = ['stdio', 'HTTP'];

describe.each(ERAS)('%s era', (era) => {
  describe.each(TRANSPORTS)('over %s', (transport) => {
    let connection: RawConnection;
    const exchange = (msg: Record<string, unknown>) => connection.exchange(msg);
    beforeAll(async () => {
      connection = transport === 'stdio' ? await stdioConnection(env, era) : await httpConnection(http.port, era);
    });
    afterAll(async () => {
      if (connection?.peer) expect(await connection.peer.close()).toEqual({ code: 0, signal: null });
    });

    it('a write asked to run as a task runs once as a plain call and answers the finding it created', async () => {
      const statement = `task-flagged write, ${era} over ${transport}`;
      expectPlainResult(await exchange(taskCall(era, 'task-write', statement)), statement);
      expect(landed(statement)).toEqual({ posts: 1, created: 1 });
    });

    it('tasks/cancel during that write is an unknown method; the write answers what it did, never "cancelled"', async () => {
      const statement = `slow task-flagged write, ${era} over ${transport}`;
      const atWorkspace = gate();
      sandbox.admin.fault({ count: 1, before: atWorkspace.before, match: { method: 'POST', path: `/engagements/${ENGAGEMENT_AP}/findings` } });
      const write = exchange(taskCall(era, 'slow-write', statement));
      // The POST is at the workspace (the sandbox holds it until the cancel is answered) when the client cancels.
      await atWorkspace.held(1);
      const cancel = await exchange({ id: 'cancel', method: 'tasks/cancel', params: eraParams(era, { taskId: 'slow-write' }) });
      expect(cancel?.error?.code, JSON.stringify(cancel)).toBe(-32601);
      atWorkspace.open();
      const answer = await write;
      expectPlainResult(answer, statement);
      expect(JSON.stringify(answer)).not.toMatch(/cancel/i);
      expect(landed(statement)).toEqual({ posts: 1, created: 1 });
    });

    it.each(TASK_METHODS)('%s answers -32601', async (method) => {
      const answer = await exchange({ id: `m-${method}`, method, params: eraParams(era, { taskId: 'any-task' }) });
      expect(answer?.error?.code, JSON.stringify(answer)).toBe(-32601);
    });

    it('no tool declares task support, and the capabilities offer no tasks', async () => {
      const list = await exchange({ id: 'list', method: 'tools/list', params: eraParams(era) });
      expect(list, 'no answer to tools/list').toBeDefined();
      const tools = (list!.result as { tools: Array<{ name: string; execution?: { taskSupport?: string } }> }).tools;
      expect(tools.length).toBeGreaterThan(0);
      expect(tools.filter((t) => t.execution?.taskSupport !== undefined).map((t) => t.name)).toEqual([]);
      // 2025: the capabilities came with initialize; 2026: server/discover says them.
      const said = era === 'legacy' ? connection.initialized : await exchange({ id: 'discover', method: 'server/discover', params: eraParams(era) });
      const caps = (said?.result as { capabilities?: Record<string, unknown> } | undefined)?.capabilities;
      expect(caps, JSON.stringify(said)).toMatchObject({ tools: expect.any(Object) });
      expect(caps?.tasks).toBeUndefined();
      expect((caps?.extensions as Record<string, unknown> | undefined)?.[TASKS_EXTENSION]).toBeUndefined();
    });
  });
});
