// `serve --remote`: one server for the whole firm. The remote front (src/remote/front.ts) serves the
// OAuth and metadata routes and authenticates each /mcp request as a member; the MCP layer serves it
// with that member's session: their consent as the ceiling of what is listed and run, their
// workspace token, their rate budget. Both protocol eras over Streamable HTTP (src/mcp/transport/streamable-http.ts);
// every replica sharing the store (Redis) answers any request alike.
import { createServer, type Server as HttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpRequestContext } from '@modelcontextprotocol/server';
import { LRUCache } from 'lru-cache';
import { catalog } from '../../catalog/index.js';
import { ApiClient } from '../api/client.js';
import { BRIEFLY_UNAVAILABLE, WorkspaceApiError } from '../api/errors.js';
import { budgetKey, RateLimiter } from '../api/limiter.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { FileLinks } from '../mcp/files/file-links.js';
import { OperationSet } from '../mcp/operations/operation-set.js';
import { SealedConfirmations } from '../mcp/pipeline/confirmation.js';
import { messageBytesForUpload } from '../mcp/pipeline/uploads.js';
import { ScriptSlots } from '../mcp/scripts/script-slots.js';
import { createServerFactory } from '../mcp/server/server.js';
import { Session, toolListFor } from '../mcp/server/session.js';
import { boundConnections, guardedBody, MAX_BODY_BYTES } from '../mcp/transport/http-bounds.js';
import type { RequestLogRouter } from '../mcp/transport/request-log.js';
import { createMcpHttp } from '../mcp/transport/streamable-http.js';
import { sendJsonRpcError } from '../net/http-io.js';
import { isLoopbackHost } from '../net/loopback.js';
import type { Operator } from '../operator.js';
import type { Store } from '../store/open.js';
import { isStoreUnavailable } from '../store/state-store.js';
import { SERVER_NAME, SERVER_VERSION } from '../version.js';
import { serveFileLink } from './file-link-serving.js';
import { FILE_LINK_PREFIX } from './front.js';
import { createRemoteFront, GrantEndedError, principalOf, type RemotePrincipal } from './index.js';
import { authInfoFor } from './principal.js';
import { WorkspaceUnavailableError } from './upstream.js';

/** Members whose sessions are kept at once (each holds its API client); the oldest unused go first. */
const MAX_MEMBER_SESSIONS = 500;
const MEMBER_SESSION_IDLE_MS = 60 * 60_000;
/**
 * 2025 sessions one member (with one consent, through one client) holds on a replica: a member opening
 * more evicts their own oldest idle ones, never another member's.
 */
const MAX_SESSIONS_PER_MEMBER = 20;
/** 2026 listen streams one member (consent and client) holds open on a replica: a client needs one per connection. */
export const MAX_LISTENS_PER_MEMBER = 20;
/**
 * Bodies over the usual limit (an upload sent as content: up to about 35 MB of JSON, held whole while
 * it is read and parsed) one member sends a replica at once, and all members together. Without a cap,
 * one member sending uploads in parallel could hold the replica's memory until it failed everyone.
 */
export const MAX_LARGE_BODIES_PER_MEMBER = 2;
const MAX_LARGE_BODIES = 8;

/**
 * Why the member's workspace token could not be had, as the API error their assistant reads (before
 * anything was sent): a grant that ended reads as the workspace refusing the token (the member signs
 * in again); the workspace's token endpoint or this server's store briefly unavailable reads as a
 * retryable 503 in those words, never as an internal error with a library's message.
 */
function tokenFailure(err: unknown): unknown {
  if (err instanceof GrantEndedError) return new WorkspaceApiError(401, 'auth.grant_ended', "The member's sign-in has ended: the client must sign in again.");
  if (err instanceof WorkspaceUnavailableError || isStoreUnavailable(err)) {
    const what =
      err instanceof WorkspaceUnavailableError
        ? "the workspace's sign-in service did not renew the member's access"
        : "this server's state store is unreachable";
    return new WorkspaceApiError(
      503,
      BRIEFLY_UNAVAILABLE,
      `The workspace is briefly unavailable (${what}). Nothing was sent: retry this call in a few seconds.`,
      {},
      5,
    );
  }
  return err;
}

interface RemoteServing {
  url: string;
  publicUrl: string;
  close(graceMs: number): Promise<void>;
}

interface MemberEntry {
  session: Session;
  client: ApiClient;
  /** The member's latest request: its principal gives the current workspace token. */
  principal: RemotePrincipal;
}

interface RemoteServeOptions {
  config: Config & { remote: NonNullable<Config['remote']> };
  logger: Logger;
  logs: RequestLogRouter;
  /** The state store every replica shares (sign-ins, grants, rate budgets). */
  store: Store;
  /** The workspace origin (the configured one, or the embedded sandbox's). */
  workspaceUrl: string;
  /** Client ID Metadata Documents from loopback (tests and local trials). */
  allowLoopbackClientMetadata?: boolean;
  /** The audit trail and metrics the operator asked for. */
  operator?: Operator;
}

export async function startRemoteServer(opts: RemoteServeOptions): Promise<RemoteServing> {
  const { config, logger, logs, store, workspaceUrl, operator } = opts;
  const events = operator?.events;
  const { remote } = config;
  // The live description is the workspace's, the same for every member: fetched once, with the first
  // member's client (the remote mode holds no token of its own).
  const operations = new OperationSet({
    catalog,
    logger,
    live: false,
    origin: workspaceUrl,
    ...(isLoopbackHost(new URL(workspaceUrl).hostname) ? {} : { cacheDir: config.configDir }),
  });

  const members = new LRUCache<string, MemberEntry>({
    max: MAX_MEMBER_SESSIONS,
    ttl: MEMBER_SESSION_IDLE_MS,
    updateAgeOnGet: true,
    dispose: (entry) => {
      entry.session.close();
      void entry.client.close().catch(() => {});
    },
  });

  // Links to members' files too large to embed: set once the public URL is known (before any request).
  let links: FileLinks | undefined;

  /**
   * The rate budget `name` (RemotePrincipal.budgetKey): the workspace counts per application and
   * member (or per personal token), so does the budget, one window in the store that every replica
   * takes from. A limiter is made for each member session and kept with it, no longer.
   */
  const budget = (name: string) =>
    new RateLimiter({
      ...config.rateLimit,
      key: budgetKey(name, config.rateLimit),
      store,
      // Counting alone, each replica could send the whole budget again: calls wait for the store.
      refuseWithoutStore: true,
      onStoreError: (err: unknown) => {
        operator?.redisError();
        logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'the shared rate budget is unavailable: calls are refused until it is back');
      },
    });

  /** The member's session, with their consent as its ceiling; built on their first request. */
  const sessionFor = (ctx: McpRequestContext): Session => {
    const principal = principalOf(ctx.authInfo);
    // The front authenticates every /mcp request: a request without a principal never gets here.
    if (!principal) throw new Error('an unauthenticated request reached the MCP layer');
    return memberSession(principal);
  };

  function memberSession(principal: RemotePrincipal): Session {
    // One per credential (a sign-in, a personal token): its API client sends that credential's
    // workspace token only. Keyed by member alone, a member's sign-ins shared one client whose token was
    // the latest request's, so one sign-in's call could go out as another's.
    const key = `${principal.memberKey}|${principal.scope}|${principal.kind}|${principal.credential}`;
    let entry = members.get(key);
    if (entry) {
      entry.principal = principal;
      return entry.session;
    }
    const holder = { principal };
    const client = new ApiClient({
      baseUrl: `${workspaceUrl}/api/v1`,
      token: async () => {
        try {
          return await holder.principal.workspaceToken();
        } catch (err) {
          throw tokenFailure(err);
        }
      },
      onUnauthorized: async () => {
        try {
          return (await holder.principal.onWorkspaceUnauthorized()) === 'refreshed';
        } catch (err) {
          throw tokenFailure(err);
        }
      },
      locale: config.locale,
      timeoutMs: config.timeoutMs,
      limiter: budget(principal.budgetKey),
      logger,
      userAgent: `${SERVER_NAME}/${SERVER_VERSION} remote (node ${process.version})`,
      retry: {
        maxRetryAfterSeconds: config.maxRetryAfterSeconds,
        maxBudgetWaitMs: config.maxBudgetWaitMs,
        maxBudgetWaitWithProgressMs: config.maxBudgetWaitWithProgressMs,
      },
    });
    operations.startLive(client);
    if (!links) throw new Error('a member session was asked for before the server listened');
    const session = new Session({
      config,
      client,
      logger,
      operations,
      grantedScope: principal.scope,
      files: links.forMember(principal.memberKey),
      // Scripts count per member, whatever the consent or client: one member cannot hold the replica's workers.
      scriptOwner: principal.memberKey,
    });
    entry = {
      session,
      client,
      get principal() {
        return holder.principal;
      },
      set principal(p: RemotePrincipal) {
        holder.principal = p;
      },
    };
    members.set(key, entry);
    return session;
  }

  // Large bodies held at once, per member and in all: counted like scripts (src/mcp/scripts/script-slots.ts).
  const largeBodies = new ScriptSlots({ perProcess: MAX_LARGE_BODIES, perOwner: MAX_LARGE_BODIES_PER_MEMBER });
  // Members send files as content (the replica's disk is not theirs): a request holds the largest upload.
  const bodyMax = Math.max(MAX_BODY_BYTES, ...catalog.map((op) => (op.upload ? messageBytesForUpload(op.upload.maxKib) : 0)));
  // Confirmations of 2026 clients travel in a state every replica opens (the configured key; without
  // one, a single process with its store in memory, a key of this process), and each accepted state
  // is claimed once in the shared store, so a replayed one sends nothing.
  const sealedConfirmations = new SealedConfirmations({
    key: config.stateKey ?? globalThis.crypto.getRandomValues(new Uint8Array(32)),
    claim: (nonce, ttlMs) => store.setIfAbsent(`remote:confirmed:${nonce}`, '1', { ttlMs }),
    memberOf: (ctx) => {
      const p = principalOf(ctx.http?.authInfo);
      return p ? JSON.stringify([p.kind, p.memberKey, p.scope, p.clientId]) : '';
    },
  });
  const factory = createServerFactory({
    config,
    logger,
    logs,
    sessionFor,
    sealedConfirmations,
    ...(events ? { events } : {}),
    // The audit trail names the member and the OAuth client the request's token was issued to.
    identify: (authInfo) => {
      const p = principalOf(authInfo);
      return p ? { member: p.memberKey, client: p.clientId } : undefined;
    },
  });
  const mcp = createMcpHttp({
    factory,
    logger,
    store,
    ...(config.stateKey ? { sessionKey: config.stateKey } : {}),
    // A 2025 session is the member's, under the consent and through the client that opened it.
    ownerOf: (authInfo) => {
      const p = principalOf(authInfo);
      return p ? JSON.stringify([p.kind, p.memberKey, p.scope, p.clientId]) : '';
    },
    maxSessionsPerOwner: MAX_SESSIONS_PER_MEMBER,
    maxListensPerOwner: MAX_LISTENS_PER_MEMBER,
  });
  operator?.countSessions(() => mcp.sessions);
  // Calls are labelled by tool only for the server's own tools and operations: any signed-in member may
  // send made-up names, which would otherwise take the bounded labels and leave real tools unlabelled.
  let ownTools: Set<string> | undefined;
  operator?.knownTools((name) => {
    ownTools ??= new Set(toolListFor({ toolsets: config.toolsets, readOnly: false }, catalog).map((t) => t.name));
    return ownTools.has(name) || operations.get(name) !== undefined;
  });
  operations.onChanged(() => mcp.toolsChanged());

  // Listen first: with --port 0 and no public URL (a loopback trial), the public URL is where it listens.
  let listener: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => sendJsonRpcError(res, 503, -32000, 'Starting.');
  const http: HttpServer = createServer({ connectionsCheckingInterval: 1_000 }, (req, res) => listener(req, res));
  // A remote server serves many members: more connections than a local one, the same bounds on slow ones.
  boundConnections(http, 4096);
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(remote.port, remote.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const port = (http.address() as AddressInfo).port;
  const hostPart = remote.host.includes(':') ? `[${remote.host}]` : remote.host;
  const publicUrl = remote.publicUrl ?? `http://${hostPart}:${port}`;
  // Without a configured key (one process, state in memory), a key of this process: nothing sealed
  // with it outlives the process anyway.
  links = new FileLinks({ store, base: `${publicUrl}${FILE_LINK_PREFIX}`, ttlSeconds: remote.downloadLinkSeconds });
  const stateKey = Buffer.from(config.stateKey ?? globalThis.crypto.getRandomValues(new Uint8Array(32)));

  const front = createRemoteFront({
    publicUrl,
    workspaceUrl,
    store,
    stateKey,
    ...(config.previousStateKeys ? { previousStateKeys: config.previousStateKeys.map((k) => Buffer.from(k)) } : {}),
    logger,
    allowPersonalTokens: remote.allowPersonalTokens,
    budget,
    ...(remote.trustedProxies ? { trustedProxies: remote.trustedProxies } : {}),
    // The same bound the body is read with: a request declaring more is refused 413 before it is read.
    maxBodyBytes: bodyMax,
    ...(opts.allowLoopbackClientMetadata ? { allowLoopbackClientMetadata: true } : {}),
    files: (_req, res, principal, id) => serveFileLink(links as FileLinks, memberSession, res, principal, id),
    ...(events ? { events } : {}),
    mcp: async (req, res, principal) => {
      let body: unknown;
      if (req.method === 'POST') {
        // A large body (or one of unknown length, which may be) takes a slot before a byte is read, and
        // keeps it while its call holds it; one of unknown length that turned out small gives it back once read.
        const declared = Number(req.headers['content-length'] ?? Number.NaN);
        let release: (() => void) | undefined;
        if (!(declared <= MAX_BODY_BYTES)) {
          const slot = largeBodies.take(principal.memberKey);
          if (!slot.ok) return tooManyLargeBodies(res, slot.cap);
          release = slot.release;
          res.once('close', release);
        }
        body = await guardedBody(req, res, bodyMax, (bytes) => {
          if (bytes <= MAX_BODY_BYTES) release?.();
        });
        if (body === undefined) return;
      }
      await mcp.handle(req, res, body, authInfoFor(principal));
    },
  });
  listener = front.listener;

  return {
    url: `http://${hostPart}:${port}/mcp`,
    publicUrl,
    async close(graceMs) {
      const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
      await mcp.close(graceMs);
      http.closeAllConnections();
      await stopped;
      await front.close();
      members.clear();
    },
  };
}

/** A large body refused before it is read: retryable, the connection closed (its body is not read). */
function tooManyLargeBodies(res: ServerResponse, cap: 'member' | 'process'): void {
  const message =
    cap === 'member'
      ? `You are already sending ${MAX_LARGE_BODIES_PER_MEMBER} large requests (uploads) to this server at once: send this one when one of them has been answered. Nothing was read or sent.`
      : 'This server is receiving as many large requests (uploads) as it takes at once: send this one again in a few seconds. Nothing was read or sent.';
  sendJsonRpcError(res, cap === 'member' ? 429 : 503, -32000, message, null, { 'Retry-After': '5', Connection: 'close' });
}
