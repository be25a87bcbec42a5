// The remote front: one node request listener that serves, on the public origin, the protected
// resource and authorization server metadata, the OAuth endpoints MCP clients and browsers use,
// health and readiness, and /mcp once the request is authenticated. Host and Origin are checked
// against the public origin first (DNS rebinding, cross-site requests). The MCP layer is injected:
// `mcp(req, res, principal)` serves an authenticated request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { budgetKey, RateLimiter } from '../api/limiter.js';
import type { EventSink } from '../audit/events.js';
import { requireSecureUrl } from '../auth/secure.js';
import { MAX_BODY_BYTES } from '../mcp/transport/http-bounds.js';
import { BodyTooLarge, lingerThenClose, sendJson, sendJsonRpcError } from '../net/http-io.js';
import { MemoryStore } from '../store/memory.js';
import { isStoreUnavailable, type StateStore } from '../store/state-store.js';
import type { SlidingWindowStore } from '../store/windows.js';
import { addressKey, clientAddress, trustedProxyList } from './address.js';
import { decideAuthorization, showAuthorization } from './authorization-endpoint.js';
import { handleCallback } from './callback.js';
import { createMetadataFetcher } from './cimd.js';
import { Clients, REGISTRATION_LIMITS, type RegistrationLimits } from './clients.js';
import type { RemoteContext } from './context.js';
import { authenticate } from './gate.js';
import { GrantEndedError, Grants } from './grants.js';
import { OAuthHttpError, sendError } from './io.js';
import { authorizationServerMetadata, bearerChallenge, type Endpoints, endpointsFor, protectedResourceMetadata, RemoteConfigError } from './metadata.js';
import { PersonalTokens } from './personal.js';
import type { RemotePrincipal } from './principal.js';
import { type RecordKind, SealedRecords } from './records.js';
import { handleRevoke } from './revoke.js';
import { parseStateKey, Sealer } from './sealing.js';
import { handleToken } from './token-endpoint.js';
import { Upstream } from './upstream.js';

export interface RemoteFrontOptions {
  /** WORKSPACE_PUBLIC_URL: the origin clients and browsers reach (https except loopback), behind any proxy. */
  publicUrl: string;
  /** WORKSPACE_URL: the workspace origin (https except loopback). */
  workspaceUrl: string;
  /** The state store shared by every replica (Redis), or in memory for one process. */
  store: StateStore;
  /** WORKSPACE_STATE_KEY: 32 bytes, or their base64. */
  stateKey: string | Buffer;
  /** Keys of a rotation in progress: still opened, never used to seal. */
  previousStateKeys?: readonly (string | Buffer)[];
  logger: Logger;
  /** Serve an authenticated /mcp request. Rejecting with GrantEndedError before answering yields a 401. */
  mcp: (req: IncomingMessage, res: ServerResponse, principal: RemotePrincipal) => void | Promise<void>;
  /**
   * Serve GET <public>/files/<id> for the authenticated member: a link to one of their files. Unset:
   * no such route. Any request that does not authenticate is answered 404, as an unknown link is.
   */
  files?: (req: IncomingMessage, res: ServerResponse, principal: RemotePrincipal, id: string) => void | Promise<void>;
  /** Accept a member's personal token in X-Workspace-Token (unattended agents). Default false. */
  allowPersonalTokens?: boolean;
  /** Client ID Metadata Documents over plain http on loopback, and from loopback addresses: tests and local trials only. */
  allowLoopbackClientMetadata?: boolean;
  /** What members see under the workspace's Connected apps. */
  clientName?: string;
  /** Lifetimes of what this server issues (defaults: access 1 h, refresh 30 days, code 5 min, sign-in 15 min). */
  accessTokenTtlMs?: number;
  refreshTokenTtlMs?: number;
  codeTtlMs?: number;
  signInTtlMs?: number;
  /** The clock used for token expiry (tests). */
  now?: () => number;
  /** The operator's audit trail and metrics: told of sign-ins, grant changes and revocations. */
  events?: EventSink;
  /** Bounds on anonymous registration (defaults: REGISTRATION_LIMITS). */
  registrationLimits?: Partial<RegistrationLimits>;
  /**
   * Proxies whose X-Forwarded-For names the caller (addresses or networks). Unset: the socket's peer is
   * the caller, so behind a proxy every caller counts under the proxy's address.
   */
  trustedProxies?: readonly string[];
  /** Largest /mcp body, refused 413 from its Content-Length (default: the HTTP server's, MAX_BODY_BYTES). */
  maxBodyBytes?: number;
  /**
   * The rate budget of a name (RemotePrincipal.budgetKey), as member sessions draw on it: what a
   * personal token's check draws on. Default: that budget at the default rate, in the store's windows.
   */
  budget?: (name: string) => RateLimiter;
}

export interface RemoteFront {
  /** The node request listener: `http.createServer(front.listener)`. */
  listener: (req: IncomingMessage, res: ServerResponse) => void;
  endpoints: Endpoints;
  /** Grants (tests and the MCP layer's own checks). */
  grants: Grants;
  close(): Promise<void>;
}

/** Where members' file links are served: `<public>/files/<id>`. */
export const FILE_LINK_PREFIX = '/files/';

/** Routes any site may call from a browser: nothing there depends on a cookie or ambient credential. */
const CORS_ROUTES = new Set([
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/mcp',
  '/.well-known/oauth-authorization-server',
  '/oauth/register',
  '/oauth/token',
  '/oauth/revoke',
]);
const CORS = { 'Access-Control-Allow-Origin': '*' };
/** Methods of the fixed routes (/mcp takes whatever the MCP transport does). */
const METHODS: Record<string, string[]> = {
  '/.well-known/oauth-protected-resource': ['GET'],
  '/.well-known/oauth-protected-resource/mcp': ['GET'],
  '/.well-known/oauth-authorization-server': ['GET'],
  '/oauth/register': ['POST'],
  '/oauth/authorize': ['GET', 'POST'],
  '/oauth/callback': ['GET'],
  '/oauth/token': ['POST'],
  '/oauth/revoke': ['POST'],
};

function isWindowStore(store: StateStore): store is StateStore & SlidingWindowStore {
  return typeof (store as Partial<SlidingWindowStore>).takeSlot === 'function';
}

/** Seconds a client is told to wait when the state store is unreachable: the Redis client retries within 2 s. */
const STORE_RETRY_AFTER_S = 5;

/**
 * The state store (Redis) is unreachable: nothing can be checked or kept, and nothing was decided.
 * Answered at once, retryable: 503 with Retry-After; for /mcp as a JSON-RPC error an MCP client
 * reads, elsewhere as the OAuth error temporarily_unavailable (RFC 6749 4.1.2.1) with its words.
 */
function storeUnavailable(req: IncomingMessage, res: ServerResponse): void {
  const headers = { 'Retry-After': String(STORE_RETRY_AFTER_S), Connection: 'close' };
  const words = `This server's state store is briefly unavailable: nothing was done. Try again in ${STORE_RETRY_AFTER_S} seconds.`;
  // The body is not read: the connection closes after the answer instead.
  if (new URL(req.url ?? '/', 'http://target.invalid').pathname === '/mcp') {
    sendJsonRpcError(res, 503, -32000, words, null, headers);
    return;
  }
  sendJson(res, 503, { error: 'temporarily_unavailable', error_description: words }, headers);
}

/**
 * The most of an unauthenticated request's body ever read (drained, to keep the connection): an
 * anonymous caller cannot make a replica read megabytes before its 401.
 */
const MAX_UNAUTHENTICATED_BODY = 16 * 1024;

/** The Content-Length a request declares, if it declares one (chunked bodies do not). */
function declaredLength(req: IncomingMessage): number | undefined {
  const v = req.headers['content-length'];
  if (v === undefined) return undefined;
  const n = Number(v);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/** 413, and the connection closed after it (lingering: see lingerThenClose): what is left of the body is never read. */
function bodyTooLarge(res: ServerResponse, limit: number): void {
  lingerThenClose(res);
  sendJsonRpcError(res, 413, -32000, `Request body larger than ${limit} bytes.`, null, { Connection: 'close' });
}

/** Host as sent for the public origin, with or without the scheme's default port. */
function hostMatches(ep: Endpoints, host: string | undefined): boolean {
  if (!host) return false;
  const h = host.toLowerCase();
  const want = ep.host.toLowerCase();
  const defaultPort = ep.issuer.startsWith('https:') ? ':443' : ':80';
  return h === want || h === want + defaultPort;
}

export function createRemoteFront(opts: RemoteFrontOptions): RemoteFront {
  const ep = endpointsFor(opts.publicUrl);
  let workspaceUrl: string;
  try {
    workspaceUrl = requireSecureUrl(opts.workspaceUrl, 'workspace URL').origin;
  } catch (e) {
    throw new RemoteConfigError(e instanceof Error ? e.message : String(e));
  }
  const sealer = new Sealer(
    parseStateKey(opts.stateKey),
    (opts.previousStateKeys ?? []).map((k, i) => parseStateKey(k, `previous state key #${i + 1}`)),
  );
  const logger = opts.logger;
  const warned = new Set<RecordKind>();
  const records = new SealedRecords(opts.store, sealer, (kind) => {
    if (warned.has(kind)) return;
    warned.add(kind);
    logger.warn(
      { event: 'remote.unreadable_record', kind },
      'a stored record does not open with the state key (rotated without keeping the old key?): treated as absent',
    );
  });
  const now = opts.now ?? Date.now;
  const maxBodyBytes = opts.maxBodyBytes ?? MAX_BODY_BYTES;
  const lifetimes = {
    accessMs: opts.accessTokenTtlMs ?? 60 * 60 * 1000,
    refreshMs: opts.refreshTokenTtlMs ?? 30 * 24 * 3600 * 1000,
    codeMs: opts.codeTtlMs ?? 5 * 60 * 1000,
    signInMs: opts.signInTtlMs ?? 15 * 60 * 1000,
  };
  const documents = createMetadataFetcher({ allowLoopback: opts.allowLoopbackClientMetadata ?? false, now });
  const upstream = new Upstream({
    workspaceUrl,
    callbackUrl: ep.callback,
    clientName: opts.clientName ?? `Workspace Consulting MCP (${ep.host})`,
    records,
    logger,
  });
  const events = opts.events;
  const grants = new Grants({ records, upstream, logger, now, ttlMs: lifetimes.refreshMs, ...(events ? { events } : {}) });
  // Registrations are counted in the shared store's windows when it has them (Redis: across replicas).
  const windows = isWindowStore(opts.store) ? opts.store : new MemoryStore();
  const clients = new Clients(records, documents, logger, windows, { ...REGISTRATION_LIMITS, ...opts.registrationLimits });
  const ctx: RemoteContext = { ep, records, clients, upstream, grants, logger, now, lifetimes, ...(events ? { events } : {}) };
  const trusted = opts.trustedProxies?.length ? trustedProxyList(opts.trustedProxies) : undefined;
  const budget = opts.budget ?? ((name: string) => new RateLimiter({ key: budgetKey(name), store: windows }));
  const personal = opts.allowPersonalTokens ? new PersonalTokens(workspaceUrl, budget) : undefined;

  async function ready(): Promise<boolean> {
    try {
      await Promise.race([
        opts.store.get('remote:readiness-probe'),
        new Promise((_, reject) => setTimeout(() => reject(new Error('store timeout')), 2000).unref()),
      ]);
      return true;
    } catch {
      return false;
    }
  }

  async function serveMcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const who = await authenticate(ctx, personal, req);
    const declared = declaredLength(req);
    if (!('memberKey' in who)) {
      // A small body is drained so the connection can carry the client's next (signed-in) request;
      // anything larger, or of unknown length, is never read: the connection closes after the answer.
      if (declared !== undefined && declared <= MAX_UNAUTHENTICATED_BODY) {
        req.resume();
        return sendJson(res, who.status, who.body, who.headers);
      }
      lingerThenClose(res);
      return sendJson(res, who.status, who.body, { ...who.headers, Connection: 'close' });
    }
    // Refused from its declared length, before a byte of it is read.
    if (declared !== undefined && declared > maxBodyBytes) return bodyTooLarge(res, maxBodyBytes);
    try {
      await opts.mcp(req, res, who);
    } catch (e) {
      if (e instanceof GrantEndedError && !res.headersSent) {
        return sendJson(
          res,
          401,
          { error: 'invalid_token', error_description: e.message },
          { 'WWW-Authenticate': bearerChallenge(ep, { code: 'invalid_token', description: e.message }) },
        );
      }
      throw e;
    }
  }

  /** A member's file link: only its member opens it; without a valid token it does not exist either. */
  async function serveFileLink(req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
    req.resume();
    const who = opts.files ? await authenticate(ctx, personal, req) : undefined;
    if (!opts.files || !who || !('memberKey' in who)) return sendJson(res, 404, { error: 'not_found', error_description: 'No such file link.' });
    await opts.files(req, res, who, id);
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = new URL(req.url ?? '/', 'http://target.invalid');
    const path = target.pathname;
    const method = req.method ?? 'GET';
    // Health answers whatever the Host: orchestrators probe containers by address.
    if (path === '/healthz') return sendJson(res, 200, { status: 'ok' });
    if (path === '/readyz') return (await ready()) ? sendJson(res, 200, { status: 'ready' }) : sendJson(res, 503, { status: 'store unreachable' });
    if (!hostMatches(ep, req.headers.host)) {
      return sendJson(res, 421, {
        error: 'invalid_request',
        error_description: `This server answers for ${ep.host} only (check that the proxy forwards the Host header).`,
      });
    }
    const cors = CORS_ROUTES.has(path);
    if (cors && method === 'OPTIONS') {
      res.writeHead(204, {
        ...CORS,
        'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
        'Access-Control-Allow-Headers': 'Content-Type, Authorization, MCP-Protocol-Version',
        'Access-Control-Max-Age': '600',
      });
      res.end();
      return;
    }
    // Cross-site requests that could ride on a browser's ambient state are refused.
    const origin = req.headers.origin;
    if (!cors && origin !== undefined && origin !== ep.issuer) {
      return sendJson(res, 403, { error: 'invalid_request', error_description: `Requests from origin ${origin.slice(0, 100)} are not accepted.` });
    }
    // Set before any answer, so success and error answers alike carry it (writeHead merges it in).
    if (cors) res.setHeader('Access-Control-Allow-Origin', '*');
    const allowed = METHODS[path];
    if (allowed && !allowed.includes(method)) {
      return sendJson(res, 405, { error: 'invalid_request', error_description: `${path} answers ${allowed.join(', ')}.` }, { Allow: allowed.join(', ') });
    }
    try {
      switch (`${method} ${path}`) {
        case 'GET /.well-known/oauth-protected-resource/mcp':
          return sendJson(res, 200, protectedResourceMetadata(ep, ep.resource));
        case 'GET /.well-known/oauth-protected-resource':
          return sendJson(res, 200, protectedResourceMetadata(ep, ep.issuer));
        case 'GET /.well-known/oauth-authorization-server':
          return sendJson(res, 200, authorizationServerMetadata(ep));
        case 'POST /oauth/register':
          return await ctx.clients.register(req, res, addressKey(clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], trusted)));
        case 'GET /oauth/authorize':
          return await showAuthorization(ctx, req, res, target.searchParams);
        case 'POST /oauth/authorize':
          return await decideAuthorization(ctx, req, res);
        case 'GET /oauth/callback':
          return await handleCallback(ctx, req, res, target.searchParams);
        case 'POST /oauth/token':
          return await handleToken(ctx, req, res);
        case 'POST /oauth/revoke':
          return await handleRevoke(ctx, req, res);
      }
      if (path === '/mcp') return await serveMcp(req, res);
      if (method === 'GET' && path.startsWith(FILE_LINK_PREFIX)) return await serveFileLink(req, res, path.slice(FILE_LINK_PREFIX.length));
      return sendJson(res, 404, { error: 'not_found', error_description: `Nothing at ${method} ${path.slice(0, 200)}.` });
    } catch (e) {
      if (e instanceof OAuthHttpError) return sendError(res, e);
      throw e;
    }
  }

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    route(req, res).catch((e: unknown) => {
      // A body sent without a length, found over the limit as it streamed in: the rest is not read.
      if (e instanceof BodyTooLarge) return res.headersSent ? void res.destroy() : bodyTooLarge(res, maxBodyBytes);
      if (isStoreUnavailable(e)) {
        if (res.headersSent) return void res.destroy();
        logger.warn({ event: 'remote.store_unavailable', cause: e instanceof Error ? e.message : String(e) }, 'the state store is unreachable');
        return storeUnavailable(req, res);
      }
      logger.error({ event: 'remote.internal_error', cause: e instanceof Error ? e.message : String(e) }, 'the remote front failed a request');
      if (!res.headersSent) sendJson(res, 500, { error: 'server_error', error_description: 'Internal error.' });
      else res.destroy();
    });
  };

  let closed: Promise<void> | undefined;
  return { listener, endpoints: ep, grants, close: () => (closed ??= documents.close()) };
}
