// A firm deployment for the trust-boundary tests: replicas of the real CLI's `serve --remote` on one
// real Redis, behind the round-robin balancer, in front of a sandbox; members who sign in through the
// workspace's own pages (e-mail, password, two-step code, consent); and raw requests sent straight to
// one replica (with the public Host, as the proxy forwards it), for what a client library would not send.
import { type ClientRequest, type IncomingHttpHeaders, type IncomingMessage, request } from 'node:http';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { type RedisHandle, startRedis } from '../helpers/redis.js';
import { type Era, negotiation } from '../helpers/stack.js';
import { browse, type ServeRemote, spawnServeRemote, startBalancer, TestOAuthProvider } from './helpers.js';

export const CLAIRE = 'claire.dubois@atelier-conseil.fr';
export const MARC = 'marc.lefevre@atelier-conseil.fr';

export interface Deployment {
  sandbox: SandboxHandle;
  lb: Awaited<ReturnType<typeof startBalancer>>;
  replicas: ServeRemote[];
  mcpUrl: URL;
  close(): Promise<void>;
}

/**
 * `replicas` replicas of `serve --remote` on `redis`, behind a balancer; the sandbox shows its sign-in
 * pages unless `sandboxOpts` say otherwise (such as consenting by itself).
 */
export async function deployment(
  redis: Pick<RedisHandle, 'url'>,
  replicas = 2,
  env: Record<string, string> = {},
  sandboxOpts: Parameters<typeof startSandbox>[0] = {},
): Promise<Deployment> {
  const closers: (() => Promise<void>)[] = [];
  const sandbox = await startSandbox({ port: 0, rateLimit: false, logger: () => {}, ...sandboxOpts });
  closers.push(() => sandbox.close());
  const lb = await startBalancer();
  closers.push(() => lb.close());
  // The replicas start together, as a compose file starts them: each one's start is mostly a
  // process loading its modules. One that fails to start leaves the others stopped.
  const starts = Array.from({ length: replicas }, () => spawnServeRemote({ workspaceUrl: sandbox.url, publicUrl: lb.url, redisUrl: redis.url, extra: env }));
  const settled = await Promise.allSettled(starts);
  const started = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  for (const r of started) {
    closers.push(r.stop);
    lb.targets.push(r.origin);
  }
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) {
    for (const c of closers.reverse()) await c().catch(() => {});
    throw failed.reason;
  }
  return {
    sandbox,
    lb,
    replicas: started,
    mcpUrl: new URL('/mcp', lb.url),
    async close() {
      for (const c of closers.reverse()) await c().catch(() => {});
    },
  };
}

export interface Member {
  client: Client;
  transport: StreamableHTTPClientTransport;
  provider: TestOAuthProvider;
  /** The member's access token (ours). */
  token: string;
}

/** A member signs in through the workspace's pages with `consent`, and connects in `era`. */
export async function signInAs(d: Deployment, email: string, consent: 'read' | 'write', era: Era): Promise<Member> {
  const provider = new TestOAuthProvider();
  await new Client({ name: 'member', version: '1' }).connect(new StreamableHTTPClientTransport(d.mcpUrl, { authProvider: provider })).catch(() => {});
  const back = await browse((provider.authorizationUrl as URL).href, provider.redirectUrl, 'allow', { email, consent });
  await new StreamableHTTPClientTransport(d.mcpUrl, { authProvider: provider }).finishAuth(back.searchParams);
  const transport = new StreamableHTTPClientTransport(d.mcpUrl, { authProvider: provider });
  const client = new Client({ name: 'member', version: '1' }, { versionNegotiation: negotiation(era) });
  await client.connect(transport);
  return { client, transport, provider, token: provider.stored?.access_token ?? '' };
}

/**
 * A client of `era` (named `name`) signed in at `mcpUrl` through a workspace that consents by itself,
 * as an MCP client does it: no token yet, so the 401 (checked) leads the SDK's OAuth to the metadata,
 * registration and the authorization URL, which the test "browser" follows to the client's redirect;
 * then the code is exchanged and a new client connects with the tokens.
 */
export async function signInAutoConsent(mcpUrl: URL, era: Era, name: string): Promise<{ client: Client; provider: TestOAuthProvider }> {
  const provider = new TestOAuthProvider();
  const first = new Client({ name, version: '1.0.0' }, { versionNegotiation: negotiation(era) });
  await expect(first.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }))).rejects.toBeInstanceOf(UnauthorizedError);
  const back = await browse((provider.authorizationUrl as URL).href, provider.redirectUrl);
  await new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }).finishAuth(back.searchParams);
  const client = new Client({ name, version: '1.0.0' }, { versionNegotiation: negotiation(era) });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
  return { client, provider };
}

export interface RemoteFixture {
  /** The file's real redis-server (started before its first test). */
  readonly redis: RedisHandle;
  /** What a test started, closed after it newest first (a failure to close is ignored). */
  readonly closers: (() => Promise<unknown>)[];
  /** A deployment of `replicas` replicas with `env` on the file's Redis, closed after the test. */
  deploy(env?: Record<string, string>, replicas?: number, sandboxOpts?: Parameters<typeof startSandbox>[0]): Promise<Deployment>;
  /** `signInAs` (2026 era unless `era`), the member's client closed after the test. */
  signIn(d: Deployment, email: string, consent: 'read' | 'write', era?: Era): Promise<Member>;
}

/**
 * The set-up the deployment test files share, called once at a file's top level: one real redis-server
 * for the whole file, and after each test everything it started closed, so the next begins clean.
 */
export function remoteFixture(): RemoteFixture {
  let redis: RedisHandle | undefined;
  const closers: (() => Promise<unknown>)[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });
  afterEach(async () => {
    for (const c of closers.splice(0).reverse()) await c().catch(() => {});
  });
  const fixture: RemoteFixture = {
    get redis() {
      if (!redis) throw new Error('redis is started in beforeAll: use it inside a hook or a test');
      return redis;
    },
    closers,
    async deploy(env = {}, replicas = 2, sandboxOpts = {}) {
      const d = await deployment(fixture.redis, replicas, env, sandboxOpts);
      closers.push(d.close);
      return d;
    },
    async signIn(d, email, consent, era = 'modern') {
      const m = await signInAs(d, email, consent, era);
      closers.push(() => m.client.close());
      return m;
    },
  };
  return fixture;
}

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A request straight to a replica's `origin` (on /mcp unless `path`), with the public Host of
 * `publicUrl` as the proxy forwards it; the caller writes its body and ends it.
 */
export function toReplica(
  origin: string,
  publicUrl: string,
  opts: { method: string; path?: string; headers?: Record<string, string> },
  onResponse: (res: IncomingMessage) => void,
): ClientRequest {
  const u = new URL(origin);
  return request(
    { host: u.hostname, port: u.port, method: opts.method, path: opts.path ?? '/mcp', headers: { host: new URL(publicUrl).host, ...opts.headers } },
    onResponse,
  );
}

/**
 * One request straight to a replica's `origin`, with the public Host of `publicUrl`. A GET answered
 * with an event stream is not read to its end: its status and headers are returned at once. A POST's
 * answer is read whole (as JSON, or as the event stream that carries it).
 */
export function raw(
  origin: string,
  publicUrl: string,
  opts: { method: string; path?: string; headers?: Record<string, string>; body?: string },
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = toReplica(origin, publicUrl, opts, (res) => {
      // A POST's event stream ends with its answer; a GET's stays open for events.
      if (opts.method === 'GET' && String(res.headers['content-type']).startsWith('text/event-stream')) {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '' });
        res.destroy();
        return;
      }
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** The headers of a JSON-RPC POST as `token` in protocol `version`, as an MCP client sends them. */
export function postHeaders(token: string, version: '2025-11-25' | '2026-07-28'): Record<string, string> {
  return {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': version,
  };
}

/** A JSON-RPC request of the 2025 era, in session `sessionId`, as `token`. */
export function legacyCall(token: string, sessionId: string | undefined, method: string, params: unknown = {}) {
  return {
    method: 'POST',
    headers: {
      ...postHeaders(token, '2025-11-25'),
      ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
  };
}

/**
 * A 2025 session's GET event stream opened straight on a replica as `token`, kept open until `close()`
 * (a replica serves one stream per session: whoever holds it keeps it).
 */
export function openStream(origin: string, publicUrl: string, token: string, sessionId: string): Promise<{ status: number; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = toReplica(
      origin,
      publicUrl,
      {
        method: 'GET',
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'text/event-stream',
          'mcp-protocol-version': '2025-11-25',
          'mcp-session-id': sessionId,
        },
      },
      (res) => {
        res.on('error', () => {});
        if (!String(res.headers['content-type']).startsWith('text/event-stream')) res.resume();
        resolve({ status: res.statusCode ?? 0, close: () => res.destroy() });
      },
    );
    req.on('error', reject);
    req.end();
  });
}
