// Shared by the remote-mode tests: the sandbox with its OAuth server, a remote front on a real HTTP
// port serving a small real MCP server (SDK v2 createMcpHandler + toNodeHandler) whose `whoami` tool
// calls the workspace with the member's token, a store that records every value written to it, a
// logger whose lines are kept, an OAuth client provider for the SDK client, and a "browser" made of
// plain HTTP requests that follows redirects, keeps cookies and presses the approval button; and
// replicas of the real CLI's `serve --remote`, spawned as a deployment runs them.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthClientProvider, OAuthDiscoveryState, OAuthTokens } from '@modelcontextprotocol/client';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { type CallToolResult, createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { sandboxOperations, toolListFor } from '../../bench/tokens.js';
import { createLogger } from '../../src/log.js';
import { createRemoteFront, type RemoteFront, type RemoteFrontOptions } from '../../src/remote/front.js';
import { authInfoFor, principalOf } from '../../src/remote/principal.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { SANDBOX_PASSWORD, SANDBOX_TWO_FACTOR_CODE } from '../../src/sandbox/oauth.js';
import { MemoryStore } from '../../src/store/memory.js';
import type { SetOptions, StateStore } from '../../src/store/state-store.js';
import { ROOT } from '../helpers/spawn.js';

export const STATE_KEY = Buffer.alloc(32, 7).toString('base64');

/** How many tools a member with write consent is listed on the default surface (computed, not a literal). */
export const DEFAULT_SURFACE_TOOLS = toolListFor({ toolsets: 'default', readOnly: false }, sandboxOperations()).tools.length;

/** A StateStore that keeps every value ever written, to scan for unsealed secrets. */
export class RecordingStore implements StateStore {
  readonly written: { key: string; value: string }[] = [];
  constructor(readonly inner: StateStore = new MemoryStore()) {}
  get(key: string) {
    return this.inner.get(key);
  }
  async set(key: string, value: string, opts?: SetOptions) {
    this.written.push({ key, value });
    return this.inner.set(key, value, opts);
  }
  async setIfAbsent(key: string, value: string, opts?: SetOptions) {
    this.written.push({ key, value });
    return this.inner.setIfAbsent(key, value, opts);
  }
  take(key: string) {
    return this.inner.take(key);
  }
  async compareAndSet(key: string, expected: string | undefined, value: string | undefined, opts?: SetOptions) {
    if (value !== undefined) this.written.push({ key, value });
    return this.inner.compareAndSet(key, expected, value, opts);
  }
  delete(key: string) {
    return this.inner.delete(key);
  }
  close() {
    return this.inner.close();
  }
  /** Everything written, keys and values, as one text to search. */
  text(): string {
    return this.written.map((w) => `${w.key} ${w.value}`).join('\n');
  }
}

/** What the whoami tool reports. */
export interface WhoAmI {
  member: string;
  scope: string;
  kind: string;
  name: string;
  workspaceTokenKind: string;
  workspaceTokenScope: string;
  budgetKey: string;
}

/**
 * The test's MCP layer: `whoami` asks the workspace GET /me with the member's workspace token; a 401
 * goes through onWorkspaceUnauthorized (sent again once when refreshed, as the request never ran).
 */
export function whoamiMcp(workspaceApi: string) {
  const handler = createMcpHandler(({ authInfo }) => {
    const server = new McpServer({ name: 'remote-test', version: '1.0.0' });
    server.registerTool('whoami', { description: 'Who the session acts for, as the workspace sees it' }, async (ctx): Promise<CallToolResult> => {
      const p = principalOf(ctx.http?.authInfo ?? authInfo);
      if (!p) return { isError: true, content: [{ type: 'text', text: 'no principal' }] };
      const me = async () => fetch(`${workspaceApi}/me`, { headers: { authorization: `Bearer ${await p.workspaceToken()}` } });
      let res = await me();
      if (res.status === 401) {
        await res.body?.cancel();
        if ((await p.onWorkspaceUnauthorized()) === 'ended') {
          return { isError: true, content: [{ type: 'text', text: 'Your authorization ended: sign in again.' }] };
        }
        res = await me();
      }
      const body = (await res.json()) as { data: { name: string; token?: { kind: string; scope: string } } };
      const out: WhoAmI = {
        member: p.memberKey,
        scope: p.scope,
        kind: p.kind,
        name: body.data.name,
        workspaceTokenKind: body.data.token?.kind ?? '',
        workspaceTokenScope: body.data.token?.scope ?? '',
        budgetKey: p.budgetKey,
      };
      return { content: [{ type: 'text', text: JSON.stringify(out) }] };
    });
    return server;
  });
  const node = toNodeHandler(handler);
  return {
    handler,
    mcp: async (req: IncomingMessage, res: ServerResponse, principal: Parameters<RemoteFrontOptions['mcp']>[2]) => {
      (req as IncomingMessage & { auth?: unknown }).auth = authInfoFor(principal);
      await node(req as never, res as never);
    },
  };
}

export interface Replica {
  front: RemoteFront;
  server: Server;
  url: string;
  close(): Promise<void>;
}

/** A remote front listening on 127.0.0.1 (an ephemeral port unless `port` is given), its public URL that origin. */
export async function startReplica(
  opts: Omit<RemoteFrontOptions, 'publicUrl' | 'mcp'> & { port?: number; publicUrl?: string; mcp?: RemoteFrontOptions['mcp']; workspaceApi: string },
): Promise<Replica> {
  let listener: (req: IncomingMessage, res: ServerResponse) => void = (_q, s) => s.end();
  const server = createServer((req, res) => listener(req, res));
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const url = opts.publicUrl ?? `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { workspaceApi, port: _port, ...rest } = opts;
  const front = createRemoteFront({ ...rest, publicUrl: url, mcp: opts.mcp ?? whoamiMcp(workspaceApi).mcp });
  listener = front.listener;
  let closed: Promise<void> | undefined;
  return {
    front,
    server,
    url,
    close() {
      closed ??= (async () => {
        await front.close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      })();
      return closed;
    },
  };
}

export function captureLogs(level: 'debug' | 'info' = 'debug') {
  const lines: string[] = [];
  const { logger } = createLogger(level, (l) => lines.push(l));
  return { logger, lines, text: () => lines.join('') };
}

export interface Stack {
  sandbox: SandboxHandle;
  store: RecordingStore;
  logs: ReturnType<typeof captureLogs>;
  replica: Replica;
  close(): Promise<void>;
}

/** `autoConsent: 'none'`: the workspace shows its sign-in pages (browse() then needs a member). */
export async function startStack(
  opts: Partial<Omit<RemoteFrontOptions, 'mcp'>> & { autoConsent?: 'read' | 'write' | 'none'; store?: RecordingStore } = {},
): Promise<Stack> {
  const { autoConsent, store: givenStore, ...frontOpts } = opts;
  const consent = autoConsent ?? 'write';
  const sandbox = await startSandbox({ port: 0, ...(consent !== 'none' ? { oauth: { autoConsent: consent } } : {}), logger: () => {} });
  const store = givenStore ?? new RecordingStore();
  const logs = captureLogs();
  const replica = await startReplica({
    workspaceUrl: sandbox.url,
    workspaceApi: sandbox.api,
    store,
    stateKey: STATE_KEY,
    logger: logs.logger,
    ...frontOpts,
  });
  return {
    sandbox,
    store,
    logs,
    replica,
    async close() {
      await replica.close();
      await sandbox.close();
    },
  };
}

/** An OAuthClientProvider kept in memory, as the SDK documents it; the "browser" is driven by the test. */
export class TestOAuthProvider implements OAuthClientProvider {
  readonly creds = new Map<string, OAuthClientInformationMixed>();
  stored?: OAuthTokens;
  verifier?: string;
  discovery?: OAuthDiscoveryState;
  authorizationUrl?: URL;
  lastState?: string;
  clientMetadataUrl?: string;

  constructor(
    readonly redirectUrl = 'http://127.0.0.1:45999/callback',
    readonly extra: Partial<OAuthClientMetadata> = {},
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'Remote test client', redirect_uris: [this.redirectUrl], ...this.extra };
  }
  clientInformation(ctx?: { issuer: string }) {
    return ctx ? this.creds.get(ctx.issuer) : [...this.creds.values()][0];
  }
  saveClientInformation(info: OAuthClientInformationMixed, ctx?: { issuer: string }) {
    if (ctx) this.creds.set(ctx.issuer, info);
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: OAuthTokens) {
    this.stored = tokens;
  }
  state() {
    this.lastState = crypto.randomUUID();
    return this.lastState;
  }
  saveDiscoveryState(s: OAuthDiscoveryState) {
    this.discovery = s;
  }
  discoveryState() {
    return this.discovery;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error('no code verifier');
    return this.verifier;
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'tokens') this.stored = undefined;
    if (scope === 'all' || scope === 'client') this.creds.clear();
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
  }
}

/**
 * A browser, as far as signing in needs one: follows redirects, keeps cookies per origin, presses
 * `decision` on our approval page, and, when the workspace shows its own pages (no auto-consent),
 * signs in as `member` (the sandbox's password and two-step code) and gives `member.consent`. Stops at
 * the first redirect to `stopAt` and returns that URL (the client's redirect URI with code or error).
 */
export async function browse(
  start: string,
  stopAt: string,
  decision: 'allow' | 'deny' = 'allow',
  member?: { email: string; consent: 'read' | 'write' },
): Promise<URL> {
  const jar = new Map<string, string>();
  let next: { url: string; init?: RequestInit } = { url: start };
  for (let hop = 0; hop < 20; hop++) {
    const u = new URL(next.url);
    if (next.url.startsWith(stopAt)) return u;
    const cookie = jar.get(u.origin);
    const res = await fetch(u, {
      ...next.init,
      redirect: 'manual',
      headers: { ...(next.init?.headers as Record<string, string>), ...(cookie ? { cookie } : {}) },
    });
    const set = res.headers.get('set-cookie');
    if (set) jar.set(u.origin, set.split(';')[0] as string);
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel();
      next = { url: new URL(res.headers.get('location') ?? '', u).href };
      continue;
    }
    const html = await res.text();
    const txn = /name="txn" value="([^"]+)"/.exec(html)?.[1];
    if (res.status !== 200 || !txn) throw new Error(`the browser stopped at ${u.origin}${u.pathname} (${res.status}): ${html.slice(0, 300)}`);
    const step = /name="step" value="([^"]+)"/.exec(html)?.[1];
    let fields: Record<string, string>;
    if (step === undefined) fields = { txn, decision };
    else if (!member) throw new Error(`the workspace asks to sign in (${step}) and no member was given`);
    else if (step === 'signin') fields = { txn, step, email: member.email, password: SANDBOX_PASSWORD };
    else if (step === 'two_factor') fields = { txn, step, code: SANDBOX_TWO_FACTOR_CODE };
    else fields = { txn, step, decision: member.consent };
    next = {
      url: new URL('/oauth/authorize', u).href,
      init: {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: u.origin },
        body: new URLSearchParams(fields).toString(),
      },
    };
  }
  throw new Error('too many redirects');
}

/**
 * A small round-robin load balancer: each request goes to the next live replica, Host and headers
 * untouched (as the deployment's proxy does); a replica that refuses the connection is skipped, and
 * the request (its body buffered) goes to the next one. `served` records which replica answered.
 */
export async function startBalancer(targets: string[] = []) {
  const served: { path: string; target: string }[] = [];
  const down = new Set<string>();
  let turn = 0;
  const { request } = await import('node:http');
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    for (let tries = 0; tries < targets.length; tries++) {
      const target = targets[turn++ % targets.length] as string;
      if (down.has(target)) continue;
      const u = new URL(target);
      const ok = await new Promise<boolean>((resolve) => {
        const out = request({ host: u.hostname, port: u.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
          served.push({ path: req.url ?? '', target });
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
          up.on('end', () => resolve(true));
          up.on('error', () => resolve(true));
        });
        out.on('error', (e: NodeJS.ErrnoException) => {
          if (e.code === 'ECONNREFUSED') down.add(target);
          resolve(res.headersSent);
        });
        out.end(body);
      });
      if (ok) return;
    }
    res.writeHead(502).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Replica origins, in turn order; set once the replicas listen. */
    targets,
    served,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A replica of the real CLI's `serve --remote`, started by spawnServeRemote. */
export interface ServeRemote {
  child: ChildProcessWithoutNullStreams;
  /** Where it listens: `http://127.0.0.1:PORT` (its public URL is the balancer's). */
  origin: string;
  stderr(): string;
  /** SIGTERM, and the exit awaited; nothing when it has already exited. */
  stop(): Promise<void>;
}

/**
 * One replica of `serve --remote` (node --import tsx src/cli.ts) on 127.0.0.1 and a port of its own,
 * on the workspace `workspaceUrl`, the store `redisUrl`, answering for `publicUrl`; `extra` adds to
 * its environment. Resolves once it says where it serves.
 */
export async function spawnServeRemote(opts: {
  workspaceUrl: string;
  publicUrl: string;
  redisUrl: string;
  extra?: Record<string, string>;
}): Promise<ServeRemote> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli.ts'), 'serve', '--remote', '--host', '127.0.0.1', '--port', '0'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      WORKSPACE_URL: opts.workspaceUrl,
      WORKSPACE_PUBLIC_URL: opts.publicUrl,
      REDIS_URL: opts.redisUrl,
      WORKSPACE_STATE_KEY: STATE_KEY,
      LOG_LEVEL: 'info',
      ...opts.extra,
    },
  });
  let stderr = '';
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  const origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`a replica did not start: ${stderr}`));
      void stop();
    }, 30_000);
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      const m = /serving MCP \(remote mode\) at (http:\/\/[^/\s]+)\/mcp/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`a replica exited with ${code}: ${stderr}`));
    });
  });
  return { child, origin, stderr: () => stderr, stop };
}

/** `serve --remote` run alone (no Redis, its public URL its own), started by spawnLoneServeRemote. */
export interface LoneServeRemote {
  child: ChildProcessWithoutNullStreams;
  /** The first group of each pattern it was awaited for, in their order. */
  found: string[];
  /** Everything it has written to stderr so far. */
  stderr(): string;
  /** SIGTERM, and the exit awaited; nothing when it has already exited. */
  stop(): Promise<void>;
}

/**
 * The real CLI's `serve --remote` on 127.0.0.1 and a port of its own, with exactly `env` as its
 * environment; resolves once its stderr has matched every one of `waitFor` (or fails after `timeoutMs`).
 */
export async function spawnLoneServeRemote(env: Record<string, string>, waitFor: RegExp[], timeoutMs: number): Promise<LoneServeRemote> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli.ts'), 'serve', '--remote', '--host', '127.0.0.1', '--port', '0'], {
    cwd: ROOT,
    env,
  });
  let stderr = '';
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  const found = await new Promise<string[]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve --remote did not start: ${stderr}`)), timeoutMs);
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      const groups = waitFor.map((p) => p.exec(stderr)?.[1]);
      if (groups.every((g) => g !== undefined)) {
        clearTimeout(timer);
        resolve(groups as string[]);
      }
    });
    child.once('exit', (code) => reject(new Error(`serve --remote exited with ${code}: ${stderr}`)));
  }).catch(async (err: unknown) => {
    // Not left running when it never said where it serves: the file's afterAll has nothing to stop.
    await stop();
    throw err;
  });
  return { child, found, stderr: () => stderr, stop };
}

// ---------------------------------------------------------------------------------------------------
// An OAuth client by hand, for the tests that need to send what a library would not.

export const REDIRECT = 'http://127.0.0.1:45999/callback';

export async function register(url: string, redirectUris: string[] = [REDIRECT]): Promise<string> {
  const res = await fetch(`${url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'security test', redirect_uris: redirectUris }),
  });
  if (res.status !== 201) throw new Error(`registration answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { client_id: string }).client_id;
}

/** A client's revocation of `token` (RFC 7009), as it sends one when its sign-in ends; the answer as is. */
export function revoke(url: string, clientId: string, token: string): Promise<Response> {
  return fetch(`${url}/oauth/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: clientId, token }),
  });
}

export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function authorizeUrl(url: string, params: Record<string, string | undefined>): string {
  const u = new URL(`${url}/oauth/authorize`);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  return u.href;
}

export async function token(url: string, form: Record<string, string>) {
  const res = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

/**
 * The authorization by hand for `clientId` with a fresh PKCE pair (and `extra` parameters), approved in
 * the "browser" (as `member` when the workspace shows its own pages): the verifier and the redirect.
 */
async function authorizeWithPkce(url: string, clientId: string, extra: Record<string, string>, member?: { email: string; consent: 'read' | 'write' }) {
  const { verifier, challenge } = pkce();
  const back = await browse(
    authorizeUrl(url, {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      ...extra,
    }),
    REDIRECT,
    'allow',
    member,
  );
  return { verifier, back };
}

/** A full sign-in by hand: register, authorize (approve in the "browser"), and the code with its verifier. */
export async function codeFor(url: string, extra: Record<string, string> = {}) {
  const clientId = await register(url);
  const { verifier, back } = await authorizeWithPkce(url, clientId, { state: 's1', ...extra });
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`no code: ${back.href}`);
  return { clientId, verifier, code };
}

/**
 * The code flow by hand for the registered `clientId`, signing in on the workspace's pages as `member`:
 * authorize (with `extra` parameters), then the code exchanged with its verifier; the token answer as is.
 */
export async function codeSignIn(url: string, clientId: string, member: { email: string; consent: 'read' | 'write' }, extra: Record<string, string> = {}) {
  const { verifier, back } = await authorizeWithPkce(url, clientId, extra, member);
  return token(url, {
    grant_type: 'authorization_code',
    client_id: clientId,
    code: back.searchParams.get('code') ?? '',
    redirect_uri: REDIRECT,
    code_verifier: verifier,
  });
}

export async function tokensFor(url: string, extra: Record<string, string> = {}) {
  const c = await codeFor(url, extra);
  const t = await token(url, { grant_type: 'authorization_code', client_id: c.clientId, code: c.code, redirect_uri: REDIRECT, code_verifier: c.verifier });
  if (t.status !== 200) throw new Error(`the code exchange answered ${t.status}: ${JSON.stringify(t.body)}`);
  return { ...c, tokens: t.body };
}
