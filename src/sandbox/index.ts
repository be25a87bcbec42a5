// The embedded sandbox: a local emulator of one Workspace Consulting deployment with two demo
// workspaces, told apart by the Host header (atelier on 127.0.0.1/localhost, globex on
// globex.localhost). Started by the `sandbox` command, by `npm start` and by every integration test.
// It stands apart from the server it serves: of the rest of the repository it imports only the
// catalog (catalog/) and the operation shape (src/operation.ts), never src/api or src/mcp, so a bug in
// the server cannot hide in the emulator it is tested against. It keeps its own small helpers on
// purpose (body reading and host names in server.ts, cursors in pagination.ts, seeded ids in
// state.ts) rather than share the server's.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdmin, handleAdmin, type SandboxAdmin } from './admin.js';
import { WS_ATELIER, WS_GLOBEX } from './data/ids.js';
import { demoToken, seedGlobex } from './data/workspace.js';
import { demoValues, handlers, seedAreas } from './handlers/index.js';
import { isOAuthPath, type OAuthScope, SandboxOAuth, type SandboxOAuthControl } from './oauth.js';
import { API_ROOT, envelope, hostName, type RequestLogEntry, SandboxPipeline } from './server.js';
import { MemoryWorkspace, WorkspaceRegistry } from './state.js';
import { ApiError } from './types.js';

export type { FaultSpec } from './faults.js';
export type { RequestLogEntry } from './server.js';

export interface SandboxOptions {
  port?: number;
  host?: string;
  /** Multiplies every sandbox duration (jobs, the rate-limit window): 0.01 runs a minute in 0.6 s. */
  timeScale?: number;
  /**
   * The sandbox's clock, epoch ms (default Date.now): jobs, the stamps handlers write and the rate
   * windows read it. A test passes a clock it moves by hand to read a job or a window at a chosen
   * moment instead of sleeping until it comes.
   */
  clock?: () => number;
  rateLimit?: boolean;
  /** Enables /__sandbox/* over HTTP with this bearer token; off when undefined. */
  adminToken?: string;
  /** Where the sandbox reports internal errors (never stdout). */
  logger?: (line: string) => void;
  /** OAuth authorization server: consent given automatically with this scope (tests), no page shown. */
  oauth?: { autoConsent?: OAuthScope };
}

interface SandboxTokens {
  read: string;
  write: string;
}

interface SandboxWorkspaceInfo {
  slug: string;
  url: string;
  tokens: SandboxTokens;
}

export interface SandboxHandle {
  /** Origin of the first workspace (atelier): `http://127.0.0.1:PORT`. */
  url: string;
  /** `url` + `/api/v1`. */
  api: string;
  tokens: SandboxTokens;
  workspaces: SandboxWorkspaceInfo[];
  adminToken?: string;
  admin: SandboxAdmin;
  /** The workspaces' OAuth authorization server (/.well-known/*, /oauth/*). */
  oauth: SandboxOAuthControl;
  requests(): RequestLogEntry[];
  clearRequests(): void;
  /** The first logged request `match` accepts, already logged or the next one (rejects after `timeoutMs`). */
  waitForRequest(match: (e: RequestLogEntry) => boolean, timeoutMs?: number, what?: string): Promise<RequestLogEntry>;
  close(): Promise<void>;
}

/**
 * What each `$demo.<kind>` names in the main demo workspace, as every sandbox serves it on start (the
 * catalog's example facet): the same on every start, so it is known without starting one.
 */
export function demoIds(): Record<string, string> {
  const ws = new MemoryWorkspace('atelier', [], WS_ATELIER);
  seedAreas(ws);
  ws.seeding = false;
  return demoValues(ws);
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

function originHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

export async function startSandbox(opts: SandboxOptions = {}): Promise<SandboxHandle> {
  const host = opts.host ?? '127.0.0.1';
  const timeScale = opts.timeScale ?? 1;
  if (!(timeScale > 0) || !Number.isFinite(timeScale)) throw new RangeError('timeScale must be a positive number');
  const logger = opts.logger ?? ((line: string) => process.stderr.write(`${line}\n`));

  const atelierHosts = [...LOOPBACK_NAMES, 'atelier.localhost'];
  const own = hostName(originHost(host));
  if (!atelierHosts.includes(own)) atelierHosts.push(own);
  const registry = new WorkspaceRegistry([
    { slug: 'atelier', id: WS_ATELIER, hosts: atelierHosts, seed: seedAreas },
    { slug: 'globex', id: WS_GLOBEX, hosts: ['globex.localhost'], seed: seedGlobex },
  ]);
  const pipeline = new SandboxPipeline(registry, { timeScale, rateLimit: opts.rateLimit ?? true, logger, clock: opts.clock ?? Date.now }, handlers);
  const admin = createAdmin(pipeline, registry);
  const oauth = new SandboxOAuth(() => registry.all(), {
    timeScale,
    ...(opts.oauth?.autoConsent ? { autoConsent: opts.oauth.autoConsent } : {}),
  });

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    dispatch(req, res).catch((e: unknown) => {
      logger(`sandbox: unhandled ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      if (!res.headersSent) {
        res.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify({ code: 'sandbox.internal_error', message: 'Internal sandbox error.', details: {} }));
      } else res.destroy();
    });
  };

  const notFound = (res: ServerResponse, code: string, en: string) => {
    const body = JSON.stringify(envelope(new ApiError(404, code, { en, fr: en }), 'en'));
    res.writeHead(404, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(body)) });
    res.end(body);
  };

  async function dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let target = req.url ?? '/';
    // Absolute-form request targets (proxies) carry the origin; only the path matters here.
    if (!target.startsWith('/')) {
      try {
        const u = new URL(target);
        target = u.pathname + u.search;
      } catch {
        target = '/';
      }
    }
    const q = target.indexOf('?');
    const path = q >= 0 ? target.slice(0, q) : target;
    const query = q >= 0 ? target.slice(q + 1) : '';
    if (path === '/__sandbox' || path.startsWith('/__sandbox/')) {
      await handleAdmin(req, res, path, opts.adminToken, admin);
      return;
    }
    // HTTP/1.0 clients may send no Host: they reach the first workspace.
    const name = hostName(req.headers.host) || 'localhost';
    const ws = registry.byHostName(name);
    if (!ws) {
      notFound(res, 'workspace.not_found', `No workspace answers on host ${name.slice(0, 200)}.`);
      return;
    }
    if (isOAuthPath(path)) {
      await oauth.handle(req, res, ws, path, query);
      return;
    }
    if (path === API_ROOT || path.startsWith(`${API_ROOT}/`)) {
      await pipeline.handle(req, res, ws, path.slice(API_ROOT.length), query);
      return;
    }
    notFound(res, 'route.not_found', 'Not found: the API is under /api/v1.');
  }

  const server = createServer({ keepAliveTimeout: 5_000 }, onRequest);
  // Broken HTTP from a client is that client's problem: answer 400 if possible, never crash.
  server.on('clientError', (_e, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    else socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://${originHost(host)}:${port}`;
  const tokensOf = (slug: string): SandboxTokens => ({ read: demoToken(slug, 'read'), write: demoToken(slug, 'write') });

  let closed: Promise<void> | undefined;
  return {
    url: origin,
    api: origin + API_ROOT,
    tokens: tokensOf('atelier'),
    workspaces: [
      { slug: 'atelier', url: origin, tokens: tokensOf('atelier') },
      { slug: 'globex', url: `http://globex.localhost:${port}`, tokens: tokensOf('globex') },
    ],
    ...(opts.adminToken !== undefined ? { adminToken: opts.adminToken } : {}),
    admin,
    oauth,
    requests: () => pipeline.requests(),
    clearRequests: () => pipeline.clearRequests(),
    waitForRequest: (match, timeoutMs, what) => pipeline.waitForRequest(match, timeoutMs, what),
    close() {
      closed ??= new Promise<void>((resolve) => {
        for (const t of pipeline.timers) clearTimeout(t);
        pipeline.timers.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
