// serve --http as a real child process against the sandbox: the SDK's Streamable HTTP client, raw
// requests with hostile Host and Origin headers, the shared API client, and shutdown on a signal.
import { once } from 'node:events';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { gate } from '../helpers/reached.js';
import { type HttpChild, rawPost, spawnHttpServer } from '../helpers/spawn-http.js';

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'http-test', version: '1' } },
});

/** A raw POST with chosen headers, an initialize unless told otherwise. */
const post = (port: number, headers: Record<string, string>, body = INITIALIZE, path = '/mcp') => rawPost(port, headers, body, path);

async function connect(url: string, headers: Record<string, string> = {}) {
  const client = new Client({ name: 'http-test', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  await client.connect(transport);
  return { client, transport };
}

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

let sandbox: SandboxHandle;
let server: HttpChild;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false, adminToken: 'admin-http-test' });
  server = await spawnHttpServer({ WORKSPACE_URL: sandbox.url, WORKSPACE_TOKEN: sandbox.tokens.read });
});

afterAll(async () => {
  await server?.stop();
  await sandbox?.close();
});

describe('serve --http', () => {
  it('listens on loopback at /mcp and serves the default surface to an SDK client', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const { client } = await connect(server.url);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain('list_engagements');
    expect(names).toContain('find_operations');
    const result = (await client.callTool({ name: 'list_engagements', arguments: {} })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(text(result)).toMatch(/[0-9A-HJKMNP-TV-Z]{26}/);
    await client.close();
  });

  it('gives each session its own random id, and answers 404 to an id it never issued', async () => {
    const a = await connect(server.url);
    const b = await connect(server.url);
    // A random UUID, signed: the server tells an id it issued (and may have let expire) from a forged one.
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\.[A-Za-z0-9_-]{22}$/;
    expect(a.transport.sessionId).toMatch(uuid);
    expect(b.transport.sessionId).toMatch(uuid);
    expect(a.transport.sessionId).not.toBe(b.transport.sessionId);
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' });
    const stranger = await post(server.port, { host: `127.0.0.1:${server.port}`, 'mcp-session-id': '00000000-0000-4000-8000-000000000000' }, ping);
    expect(stranger.status).toBe(404);
    await a.client.close();
    await b.client.close();
  });

  it('refuses a foreign Origin even when the Host is good, before any session exists', async () => {
    const res = await post(server.port, { host: `127.0.0.1:${server.port}`, origin: 'http://evil.example' });
    expect(res.status).toBe(403);
    expect(res.headers['mcp-session-id']).toBeUndefined();
    expect(JSON.parse(res.body).error.message).toContain('Origin');
  });

  it('refuses a foreign Host (DNS rebinding), with or without an Origin', async () => {
    const cases: Record<string, string>[] = [{ host: `evil.example:${server.port}` }, { host: 'evil.example', origin: 'http://evil.example' }];
    for (const headers of cases) {
      const res = await post(server.port, headers);
      expect(res.status).toBe(403);
      expect(res.headers['mcp-session-id']).toBeUndefined();
      expect(JSON.parse(res.body).error.message).toContain('Host');
    }
  });

  it('accepts the loopback names of its own port as Host and Origin', async () => {
    for (const name of ['127.0.0.1', 'localhost', '[::1]']) {
      const res = await post(server.port, { host: `${name}:${server.port}`, origin: `http://${name}:${server.port}` });
      expect(res.status).toBe(200);
      expect(res.headers['mcp-session-id']).toBeTruthy();
    }
    // The same names on another port are another server.
    const other = await post(server.port, { host: `127.0.0.1:${server.port}`, origin: `http://127.0.0.1:${server.port + 1}` });
    expect(other.status).toBe(403);
  });

  it('neither reads stdin nor writes stdout', async () => {
    const own = await spawnHttpServer({ WORKSPACE_URL: sandbox.url, WORKSPACE_TOKEN: sandbox.tokens.read });
    const ended = once(own.child, 'close');
    own.child.stdin.write(`${INITIALIZE}\n${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`);
    const { client } = await connect(own.url);
    await client.listTools();
    await client.close();
    // All it ever wrote to stdout: read to the end once it has exited.
    expect(await own.stop()).toBe(0);
    await ended;
    expect(own.stdout()).toBe('');
  });

  it('has one endpoint: other paths answer 404', async () => {
    const res = await post(server.port, { host: `127.0.0.1:${server.port}` }, INITIALIZE, '/');
    expect(res.status).toBe(404);
  });

  it('calls the workspace with its own token: an Authorization header from the MCP client goes nowhere', async () => {
    sandbox.clearRequests();
    // A write token offered by the client: were it passed through, the sandbox would log a write-scoped call.
    const { client } = await connect(server.url, { authorization: `Bearer ${sandbox.tokens.write}` });
    const result = (await client.callTool({ name: 'list_engagements', arguments: {} })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const calls = sandbox.requests().filter((r) => r.path === '/api/v1/engagements');
    expect(calls.length).toBeGreaterThan(0);
    for (const c of calls) expect(c.scope).toBe('read');
    await client.close();
  });
});

describe('serve --http shares one rate budget', () => {
  it('keeps every session together under the configured budget', async () => {
    const limited = await spawnHttpServer({ WORKSPACE_URL: sandbox.url, WORKSPACE_TOKEN: sandbox.tokens.read, WORKSPACE_RATE_LIMIT: '2/1' });
    try {
      const sessions = await Promise.all([connect(limited.url), connect(limited.url), connect(limited.url)]);
      sandbox.clearRequests();
      await Promise.all(sessions.map((s) => s.client.callTool({ name: 'list_engagements', arguments: {} })));
      await Promise.all(sessions.map((s) => s.client.callTool({ name: 'list_engagements', arguments: {} })));
      const times = sandbox
        .requests()
        .filter((r) => r.path.startsWith('/api/v1/'))
        .map((r) => Date.parse(r.time))
        .sort((a, b) => a - b);
      expect(times.length).toBeGreaterThanOrEqual(6);
      // Three clients at once: separate budgets would let 6 requests through in the same second.
      for (let i = 2; i < times.length; i++) expect((times[i] as number) - (times[i - 2] as number)).toBeGreaterThanOrEqual(900);
      await Promise.all(sessions.map((s) => s.client.close()));
    } finally {
      await limited.stop();
    }
  });
});

describe('shutdown on a signal', () => {
  it('lets a call in flight finish, answers it, then exits 0', async () => {
    const child = await spawnHttpServer({ WORKSPACE_URL: sandbox.url, WORKSPACE_TOKEN: sandbox.tokens.read, LOG_LEVEL: 'info' });
    const { client } = await connect(child.url);
    await client.listTools();
    const held = gate();
    sandbox.admin.fault({ count: 1, before: held.before, match: { method: 'GET', path: '/engagements' } });
    sandbox.clearRequests();
    const call = client.callTool({ name: 'list_engagements', arguments: {} }) as Promise<CallToolResult>;
    // Signalled once the API request is under way at the sandbox, and answered only once the server
    // is shutting down: the call is in flight all the while.
    await held.held(1);
    const exited = child.stop('SIGTERM');
    await child.logged(/shutting down/);
    held.open();
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(text(result)).toMatch(/[0-9A-HJKMNP-TV-Z]{26}/);
    expect(await exited).toBe(0);
    expect(sandbox.requests().some((r) => r.path === '/api/v1/engagements' && r.fault !== undefined && r.status === 200)).toBe(true);
  });

  it('exits 0 at once when idle, with sessions and their event streams open', async () => {
    const child = await spawnHttpServer({ WORKSPACE_URL: sandbox.url, WORKSPACE_TOKEN: sandbox.tokens.read });
    const { client } = await connect(child.url);
    await client.listTools();
    const ended = once(child.child, 'close');
    expect(await child.stop('SIGINT')).toBe(0);
    // Its open streams held nothing up: no grace period ran out on requests still in flight.
    await ended;
    expect(child.stderr()).not.toMatch(/cancelling requests still in flight/);
    await client.close().catch(() => {});
  });

  it('refuses to listen on an address other machines can reach', async () => {
    await expect(spawnHttpServer({ WORKSPACE_URL: sandbox.url, WORKSPACE_TOKEN: sandbox.tokens.read }, ['--host', '0.0.0.0'])).rejects.toThrow(
      /exited with 2[\s\S]*WORKSPACE_HTTP_HOST/,
    );
  });
});
