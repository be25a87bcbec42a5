// HTTP sessions must be reaped: a 2025 session kept until the client sends DELETE, which the SDK's
// client never does on close(), would let 100 clients that connected, called a tool and closed lock
// the server out (client 101 and every later one answered 503 "Too many open sessions (100)", idle or
// not, until a restart). So (src/mcp/transport/streamable-http.ts)
// a session left idle expires, past the cap the oldest idle one is evicted (a busy one never), memory
// pressure evicts idle ones too, and a request naming a session the server issued but no longer holds
// is served on its own, so a client whose session went keeps working; a 2026-07-28 client opens none.
// The limits are small here, through createMcpHttp's options in process; the 1,000 clients run
// against the real `serve --http` child with its default limits.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { gate } from '../../helpers/reached.js';
import { rawPost, spawnHttpServer } from '../../helpers/spawn-http.js';
import { type Era, negotiation, type Stack, startStack } from '../../helpers/stack.js';

let sandbox: SandboxHandle;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
});
afterAll(async () => {
  await sandbox?.close();
});

/** One HTTP exchange as the client saw it: which JSON-RPC method, the status, the session it ran in. */
interface Exchange {
  http: string;
  rpc: string | undefined;
  status: number;
  session: string | null;
}

/** A v2 SDK client whose every HTTP exchange is recorded (the server's Mcp-Session-Id on each answer). */
async function recordingClient(url: string, era: Era) {
  const seen: Exchange[] = [];
  const fetchRecording: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    let rpc: string | undefined;
    try {
      rpc = (JSON.parse(String(init?.body)) as { method?: string }).method;
    } catch {
      rpc = undefined;
    }
    seen.push({ http: init?.method ?? 'GET', rpc, status: res.status, session: res.headers.get('mcp-session-id') });
    return res;
  };
  const client = new Client({ name: 'sessions-test', version: '1' }, { versionNegotiation: negotiation(era) });
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: fetchRecording });
  await client.connect(transport);
  const sessionId = transport.sessionId;
  return {
    client,
    transport,
    seen,
    sessionId,
    /** Calls get_workspace; whether the answer came from inside this client's session. */
    async call(): Promise<{ result: CallToolResult; inSession: boolean }> {
      const from = seen.length;
      const result = (await client.callTool({ name: 'get_workspace', arguments: {} })) as CallToolResult;
      const answer = seen.slice(from).find((e) => e.rpc === 'tools/call');
      return { result, inSession: answer?.session != null && answer.session === sessionId };
    },
  };
}

const served = (r: CallToolResult) => expect(r.structuredContent).toMatchObject({ slug: 'atelier' });

describe('2025 sessions in process, with small limits', () => {
  let stack: Stack | undefined;
  const open = async (http: NonNullable<Parameters<typeof startStack>[0]>['http']) => {
    // The stack's own client speaks 2026-07-28 and holds no session: each test counts only its own.
    stack = await startStack({ sandboxHandle: sandbox, liveOpenApi: false, era: 'modern', http });
    expect(stack.mcp.sessions).toBe(0);
    return stack;
  };
  afterAll(async () => {
    await stack?.close();
  });
  const closeStack = async () => {
    await stack?.close();
    stack = undefined;
  };

  it('a session left idle expires, and its client is still served without it', async () => {
    const s = await open({ sessionIdleMs: 300 });
    try {
      const c = await recordingClient(s.url, 'legacy');
      expect(c.sessionId).toBeTruthy();
      expect(s.mcp.sessions).toBe(1);
      const first = await c.call();
      served(first.result);
      expect(first.inSession).toBe(true);
      // The client stays connected and sends nothing more: its session is closed once idle.
      await s.waitForLog(/"why":"idle".*"msg":"MCP session closed"/);
      expect(s.mcp.sessions).toBe(0);
      // It still names the session (the server issued it): answered on its own, not 404.
      const later = await c.call();
      served(later.result);
      expect(later.inSession).toBe(false);
      expect(c.seen.filter((e) => e.status === 404 || e.status === 503)).toEqual([]);
      await c.client.close();
    } finally {
      await closeStack();
    }
  });

  it('past the cap the session used longest ago is evicted; its client is still served, the others in their sessions', async () => {
    const s = await open({ maxSessions: 3 });
    try {
      const a = await recordingClient(s.url, 'legacy');
      const b = await recordingClient(s.url, 'legacy');
      const c = await recordingClient(s.url, 'legacy');
      expect(s.mcp.sessions).toBe(3);
      // A is used again: B is now the one used longest ago.
      expect((await a.call()).inSession).toBe(true);
      const d = await recordingClient(s.url, 'legacy');
      expect(s.mcp.sessions).toBe(3);
      const inSession = Object.fromEntries(await Promise.all(Object.entries({ a, b, c, d }).map(async ([k, x]) => [k, await x.call()] as const)));
      for (const r of Object.values(inSession)) served(r.result);
      expect(Object.fromEntries(Object.entries(inSession).map(([k, r]) => [k, r.inSession]))).toEqual({ a: true, b: false, c: true, d: true });
      for (const x of [a, b, c, d]) await x.client.close();
    } finally {
      await closeStack();
    }
  });

  it('a session with a call in flight is never evicted, though it is the oldest', async () => {
    const s = await open({ maxSessions: 2 });
    try {
      const a = await recordingClient(s.url, 'legacy');
      const b = await recordingClient(s.url, 'legacy');
      const underWay = gate();
      sandbox.admin.fault({ count: 1, before: underWay.before, match: { method: 'GET', path: '/workspace' } });
      const slow = a.call();
      // A's call is under way once its request is at the sandbox (held there until B and C are done).
      await underWay.held(1);
      expect(s.mcp.inFlight.size).toBeGreaterThan(0);
      // B is used after A's call began: A is the oldest, and busy.
      expect((await b.call()).inSession).toBe(true);
      const c = await recordingClient(s.url, 'legacy');
      expect(s.mcp.sessions).toBe(2);
      underWay.open();
      const done = await slow;
      served(done.result);
      expect(done.inSession).toBe(true);
      // B went instead; A and C keep theirs.
      expect((await a.call()).inSession).toBe(true);
      expect((await c.call()).inSession).toBe(true);
      expect((await b.call()).inSession).toBe(false);
      for (const x of [a, b, c]) await x.client.close();
    } finally {
      await closeStack();
    }
  });

  it('under memory pressure idle sessions are evicted when a new one opens', async () => {
    // A threshold of 0: the heap is always "too full", so each new session finds the others evicted.
    const s = await open({ heapPressure: 0 });
    try {
      const clients = [];
      for (let i = 0; i < 3; i++) {
        clients.push(await recordingClient(s.url, 'legacy'));
        expect(s.mcp.sessions).toBe(1);
      }
      for (const x of clients) served((await x.call()).result);
      for (const x of clients) await x.client.close();
    } finally {
      await closeStack();
    }
  });

  it('a session its client ended with DELETE is 404 afterwards, not served on its own like an expired one', async () => {
    const s = await open({});
    try {
      const c = await recordingClient(s.url, 'legacy');
      expect(s.mcp.sessions).toBe(1);
      await c.transport.terminateSession();
      expect(s.mcp.sessions).toBe(0);
      const after = await rawPost(
        Number(new URL(s.url).port),
        { 'mcp-session-id': c.sessionId as string, 'mcp-protocol-version': '2025-11-25' },
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      );
      expect(after.status).toBe(404);
      await c.client.close();
    } finally {
      await closeStack();
    }
  });

  it('a 2026-07-28 client needs no session: none is opened or named, and it is served', async () => {
    const s = await open({ maxSessions: 1 });
    try {
      const clients = await Promise.all([0, 1, 2].map(() => recordingClient(s.url, 'modern')));
      for (const x of clients) {
        const r = await x.call();
        served(r.result);
        expect(x.sessionId).toBeUndefined();
      }
      expect(s.mcp.sessions).toBe(0);
      const exchanges = clients.flatMap((x) => x.seen);
      expect(exchanges.length).toBeGreaterThanOrEqual(6);
      expect(exchanges.filter((e) => e.session !== null || e.status >= 400)).toEqual([]);
      for (const x of clients) await x.client.close();
    } finally {
      await closeStack();
    }
  });
});

describe('serve --http with its default limits', () => {
  it('1,000 clients that connect, call a tool and close without DELETE, one after another, are all served', { timeout: 180_000 }, async () => {
    const server = await spawnHttpServer({
      WORKSPACE_URL: sandbox.url,
      WORKSPACE_TOKEN: sandbox.tokens.read,
      WORKSPACE_RATE_LIMIT: '120/0.05',
      LOG_LEVEL: 'debug',
    });
    try {
      const started = Date.now();
      const exchanges: Exchange[] = [];
      let failed = 0;
      for (let i = 0; i < 1_000; i++) {
        const c = await recordingClient(server.url, 'legacy');
        const { result, inSession } = await c.call();
        if (result.isError || !inSession) failed++;
        await c.client.close();
        exchanges.push(...c.seen);
      }
      const ms = Date.now() - started;
      process.stderr.write(`sessions: 1,000 clients connected, called and closed in ${ms} ms (${(ms / 1000).toFixed(1)} ms each)\n`);
      expect(failed).toBe(0);
      // They left as the SDK's client leaves: no DELETE; and no answer was a refusal.
      expect(exchanges.filter((e) => e.http === 'DELETE')).toEqual([]);
      expect(exchanges.filter((e) => e.status >= 400)).toEqual([]);
      expect(exchanges.filter((e) => e.rpc === 'initialize' && e.session !== null)).toHaveLength(1_000);
      // Past the default cap (200), the server made room by evicting the oldest idle sessions.
      const evicted = server.stderr().match(/evicted: too many sessions/g)?.length ?? 0;
      expect(evicted).toBeGreaterThanOrEqual(800);
    } finally {
      await server.stop();
    }
  });
});
