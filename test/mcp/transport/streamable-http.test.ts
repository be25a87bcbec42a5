// 2025 sessions over Streamable HTTP (src/mcp/transport/streamable-http.ts) on two replicas that share a session
// key and a state store, each behind the real local HTTP front: a session its client ended (DELETE) is
// answered 404 from then on, wherever the request lands, while a session a replica merely does not
// hold is still served there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../../catalog/index.js';
import { ApiClient } from '../../../src/api/client.js';
import { RateLimiter } from '../../../src/api/limiter.js';
import { loadConfig } from '../../../src/config.js';
import { createLogger } from '../../../src/log.js';
import { OperationSet } from '../../../src/mcp/operations/operation-set.js';
import { createServerFactory } from '../../../src/mcp/server/server.js';
import { Session } from '../../../src/mcp/server/session.js';
import { RequestLogRouter } from '../../../src/mcp/transport/request-log.js';
import { createMcpHttp, type McpHttp } from '../../../src/mcp/transport/streamable-http.js';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { type HttpServeHandle, startHttpServer } from '../../../src/serve/local-http.js';
import { MemoryStore } from '../../../src/store/memory.js';

const LEGACY = '2025-11-25';

let sandbox: SandboxHandle;
let api: ApiClient;
let session: Session;
const replicas: { mcp: McpHttp; http: HttpServeHandle }[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  const config = loadConfig({ WORKSPACE_URL: sandbox.url, WORKSPACE_TOKEN: sandbox.tokens.read, LOG_LEVEL: 'warn' });
  const { logger, setTap } = createLogger(config.logLevel, () => {});
  api = new ApiClient({
    baseUrl: `${sandbox.url}/api/v1`,
    token: () => sandbox.tokens.read,
    locale: config.locale,
    timeoutMs: config.timeoutMs,
    limiter: new RateLimiter(config.rateLimit),
    logger,
  });
  const operations = new OperationSet({ catalog, logger, client: api, live: false, origin: sandbox.url });
  session = new Session({ config, client: api, logger, operations });
  const factory = createServerFactory({ config, logger, logs: new RequestLogRouter(setTap), sessionFor: () => session });
  // One deployment: the same key signs session ids, one store holds what outlives a replica.
  const sessionKey = globalThis.crypto.getRandomValues(new Uint8Array(32));
  const store = new MemoryStore();
  for (let i = 0; i < 2; i++) {
    const mcp = createMcpHttp({ factory, logger, sessionKey, store });
    replicas.push({ mcp, http: await startHttpServer({ host: '127.0.0.1', port: 0, mcp, logger }) });
  }
});

afterAll(async () => {
  for (const r of replicas) await r.http.close(1000);
  session?.close();
  await api?.close();
  await sandbox?.close();
});

const headers = (sessionId?: string): Record<string, string> => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  ...(sessionId ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': LEGACY } : {}),
});

/** Initializes a 2025 session on replica `at`; its id. */
async function initialize(at: number): Promise<string> {
  const res = await fetch(replicas[at]!.http.url, {
    method: 'POST',
    headers: headers(),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'test', version: '1.0.0' } },
    }),
  });
  await res.text();
  const id = res.headers.get('mcp-session-id');
  expect(res.status).toBe(200);
  expect(id).toBeTruthy();
  const done = await fetch(replicas[at]!.http.url, {
    method: 'POST',
    headers: headers(id as string),
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await done.text();
  expect(done.status).toBe(202);
  return id as string;
}

/** A ping in session `id` on replica `at`: the status, and the body. */
async function ping(at: number, id: string): Promise<{ status: number; body: string }> {
  const res = await fetch(replicas[at]!.http.url, { method: 'POST', headers: headers(id), body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' }) });
  return { status: res.status, body: await res.text() };
}

async function end(at: number, id: string): Promise<number> {
  const res = await fetch(replicas[at]!.http.url, { method: 'DELETE', headers: headers(id) });
  await res.text();
  return res.status;
}

describe('2025 sessions ended by their client', () => {
  it('answer 404 from then on, on every replica, while a session merely not held is still served', async () => {
    const ended = await initialize(0);
    const live = await initialize(0);
    expect((await ping(0, ended)).status).toBe(200);

    expect(await end(0, ended)).toBe(200);
    for (const at of [0, 1]) {
      const after = await ping(at, ended);
      expect(after.status, `replica ${at}`).toBe(404);
      expect(JSON.parse(after.body).error.code).toBe(-32001);
    }

    // The other session is held by replica 0 only: replica 1 answers it on its own, as before.
    for (const at of [0, 1]) {
      const other = await ping(at, live);
      expect(other.status, `replica ${at}`).toBe(200);
      expect(other.body).toContain('"result":{}');
    }
  });

  it('end where they are held when the DELETE lands on another replica', async () => {
    const id = await initialize(0);
    const held = replicas[0]!.mcp.sessions;
    expect(await end(1, id)).toBe(200);
    expect((await ping(0, id)).status).toBe(404);
    // The replica that held it let it go on that request.
    expect(replicas[0]!.mcp.sessions).toBe(held - 1);
  });

  it('a session held by one replica gets no event stream from another (405, the client goes on without), and its calls are answered there', async () => {
    const id = await initialize(0);
    const stream = async (at: number) => {
      const controller = new AbortController();
      const res = await fetch(replicas[at]!.http.url, { method: 'GET', headers: { ...headers(id), accept: 'text/event-stream' }, signal: controller.signal });
      const status = res.status;
      const allow = res.headers.get('allow');
      controller.abort();
      return { status, allow };
    };
    // The replica holding the session opens its stream.
    expect((await stream(0)).status).toBe(200);
    // The other answers as a server without one: not 404, which would tell the client its session ended.
    expect(await stream(1)).toEqual({ status: 405, allow: 'POST, DELETE' });
    expect((await ping(1, id)).status).toBe(200);
  });

  it('still answer 404 to an id never issued, DELETE included', async () => {
    const forged = '00000000-0000-4000-8000-000000000000.AAAAAAAAAAAAAAAAAAAAAA';
    expect((await ping(0, forged)).status).toBe(404);
    expect(await end(1, forged)).toBe(404);
  });
});
