// MCP over Streamable HTTP, both protocol eras, from one server factory (src/mcp/server.ts):
// - a 2026-07-28 request is served by the SDK's createMcpHandler, stateless: a fresh server per
//   request, nothing kept between requests, so any replica answers any request;
// - a 2025 client gets a session at initialize (the SDK's Streamable HTTP transport), which carries
//   what that era needs a connection for: server-to-client requests (sign-in, roots), cancellation,
//   logging/setLevel, list_changed on the GET stream. Sessions expire when idle and are evicted oldest
//   first when there are too many or memory runs short, so clients that leave without DELETE never
//   lock others out. A request naming a session this process does not hold (expired, evicted, or
//   started on another replica) is served statelessly, like a 2026 one: its answer does not depend on
//   where the session began.
// Callers check Host/Origin and authentication first, read the body and hand it over parsed.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import {
  type AuthInfo,
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  legacyStatelessFallback,
  type McpRequestContext,
  type Server,
} from '@modelcontextprotocol/server';
import { getHeapStatistics } from 'node:v8';
import { LRUCache } from 'lru-cache';
import type { Logger } from '../log.js';
import { InFlight } from '../in-flight.js';
import { announceToolsChanged } from './server.js';

export interface McpHttpOptions {
  factory: (ctx: McpRequestContext) => Promise<Server>;
  logger: Logger;
  /** 2025 sessions held at once before the oldest is evicted. */
  maxSessions?: number;
  /** A 2025 session unused this long is closed. */
  sessionIdleMs?: number;
  /** Share of the heap limit in use above which idle sessions are evicted, oldest first. */
  heapPressure?: number;
  /**
   * Signs the session ids this server issues, so a request naming one it no longer holds (expired,
   * evicted, or issued by another replica sharing the key) is told from one never issued (404).
   * Unset: a key of this process.
   */
  sessionKey?: Uint8Array;
}

/** Session ids: a random UUID and its MAC under the deployment's key. */
export function sessionIds(key: Uint8Array) {
  const mac = (id: string) => createHmac('sha256', key).update(`mcp-session:${id}`).digest('base64url').slice(0, 22);
  return {
    issue: () => {
      const id = randomUUID();
      return `${id}.${mac(id)}`;
    },
    issued: (sessionId: string) => {
      const [id, tag] = sessionId.split('.');
      if (!id || !tag || tag.length !== 22) return false;
      const want = Buffer.from(mac(id));
      const got = Buffer.from(tag);
      return got.length === want.length && timingSafeEqual(got, want);
    },
  };
}

interface LegacySession {
  id: string;
  transport: NodeStreamableHTTPServerTransport;
  server: Server;
  lastUsed: number;
  /** Requests of this session being answered (its GET event stream aside): a busy session is never evicted. */
  busy: number;
}

export interface McpHttp {
  /** Serves one request to the MCP endpoint; `body` is the parsed JSON of a POST. */
  handle(req: IncomingMessage, res: ServerResponse, body: unknown, authInfo?: AuthInfo): Promise<void>;
  /** The tool list changed: 2026 clients hear it on their listen streams, 2025 sessions by notification. */
  toolsChanged(): void;
  readonly sessions: number;
  readonly inFlight: InFlight;
  /** Stops taking requests, lets those in flight finish for up to `graceMs`, then closes everything. */
  close(graceMs: number): Promise<void>;
}

export function createMcpHttp(opts: McpHttpOptions): McpHttp {
  const { factory, logger } = opts;
  const maxSessions = opts.maxSessions ?? 200;
  const idleMs = opts.sessionIdleMs ?? 15 * 60_000;
  const heapPressure = opts.heapPressure ?? 0.75;
  const onerror = (err: Error) => logger.debug({ err: err.message }, 'MCP HTTP exchange failed');
  const ids = sessionIds(opts.sessionKey ?? globalThis.crypto.getRandomValues(new Uint8Array(32)));

  const modern = createMcpHandler(factory, { legacy: 'reject', onerror });
  const modernNode = toNodeHandler(modern, { onerror });
  const stateless = toNodeHandler({ fetch: legacyStatelessFallback(factory, onerror) }, { onerror });
  /** Insertion order is use order: the first entry is the one used longest ago. */
  const sessions = new Map<string, LegacySession>();
  /**
   * Sessions their client ended with DELETE: a request naming one is 404 (the spec's MUST, which the
   * conformance suite checks), not served on its own like a session this process let expire. Kept as
   * long as an idle session would have lived, at most 10,000 (one process's view: a replica that did
   * not see the DELETE serves such a request statelessly).
   */
  const terminated = new LRUCache<string, true>({ max: 10_000, ttl: idleMs });
  const inFlight = new InFlight();
  let closing = false;

  async function closeSession(s: LegacySession, why: string): Promise<void> {
    if (sessions.get(s.id) !== s) return;
    sessions.delete(s.id);
    await s.server.close().catch(() => {});
    logger.debug({ why, sessions: sessions.size }, 'MCP session closed');
  }

  function touch(s: LegacySession): void {
    sessions.delete(s.id);
    s.lastUsed = Date.now();
    sessions.set(s.id, s);
  }

  /** Makes room for one more session: expired ones go, then the oldest idle ones while over a limit. */
  function reap(): void {
    const now = Date.now();
    for (const s of [...sessions.values()]) if (s.busy === 0 && now - s.lastUsed > idleMs) void closeSession(s, 'idle');
    const heap = getHeapStatistics();
    const pressed = () => heap.used_heap_size > heap.heap_size_limit * heapPressure;
    for (const s of [...sessions.values()]) {
      if (sessions.size < maxSessions && !pressed()) break;
      if (s.busy === 0) void closeSession(s, sessions.size >= maxSessions ? 'evicted: too many sessions' : 'evicted: memory pressure');
    }
  }
  const sweeper = setInterval(reap, Math.min(idleMs, 60_000));
  sweeper.unref();

  async function openSession(req: IncomingMessage, res: ServerResponse, body: unknown, authInfo: AuthInfo | undefined): Promise<void> {
    reap();
    const request = await toWebRequest(req, body);
    const server = await factory({ era: 'legacy', ...(authInfo ? { authInfo } : {}), requestInfo: request });
    let session: LegacySession | undefined;
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: ids.issue,
      onsessioninitialized: (id) => {
        session = { id, transport, server, lastUsed: Date.now(), busy: 0 };
        sessions.set(id, session);
        logger.debug({ sessions: sessions.size }, 'MCP session opened');
      },
    });
    transport.onclose = () => {
      if (session) void closeSession(session, 'closed');
    };
    await server.connect(transport);
    await transport.handleRequest(Object.assign(req, authInfo ? { auth: authInfo } : {}), res, body);
    // An initialize the transport refused (wrong Accept header, bad version) opened no session.
    if (transport.sessionId === undefined) await server.close().catch(() => {});
  }

  async function handleLegacy(req: IncomingMessage, res: ServerResponse, body: unknown, authInfo: AuthInfo | undefined): Promise<void> {
    const header = req.headers['mcp-session-id'];
    const id = Array.isArray(header) ? header[0] : header;
    const session = id !== undefined ? sessions.get(id) : undefined;
    if (session) {
      // A GET is the session's event stream, open for as long as the client listens (the SDK's client
      // opens one after initialize and keeps it): it is no work in progress, so it neither keeps the
      // session busy nor counts as use while it stays open. Counted, every connected client's session
      // was busy for good, never expired nor evicted.
      const working = req.method !== 'GET';
      if (working) session.busy++;
      touch(session);
      try {
        await session.transport.handleRequest(Object.assign(req, authInfo ? { auth: authInfo } : {}), res, body);
      } finally {
        if (working) {
          session.busy--;
          session.lastUsed = Date.now();
        }
      }
      if (req.method === 'DELETE') {
        terminated.set(session.id, true);
        await closeSession(session, 'deleted by the client');
      }
      return;
    }
    if (req.method === 'POST' && isInitializeRequest(body)) return openSession(req, res, body, authInfo);
    if (req.method !== 'POST' || (id !== undefined && (!ids.issued(id) || terminated.has(id)))) {
      // A session never issued here or ended by its client, or the GET stream and DELETE of one this
      // process does not hold.
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found.' } }));
      return;
    }
    // A session expired, evicted or begun elsewhere: the request is answered on its own.
    if (id !== undefined) delete req.headers['mcp-session-id'];
    await stateless(Object.assign(req, authInfo ? { auth: authInfo } : {}), res, body);
  }

  return {
    async handle(req, res, body, authInfo) {
      if (closing) {
        res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'The server is shutting down.' } }));
        return;
      }
      // A request (not a notification, nor a stream held open for events) counts until answered.
      const call = req.method === 'POST' && isRequest(body) && body.method !== 'subscriptions/listen';
      if (call) res.once('close', inFlight.begin());
      // The SDK's own classification, so this branch never disagrees with createMcpHandler's.
      const legacy = req.method === 'POST' ? await isLegacyRequest(await toWebRequest(req, body), body) : !hasModernHeaders(req);
      if (!legacy) return modernNode(Object.assign(req, authInfo ? { auth: authInfo } : {}), res, body);
      return handleLegacy(req, res, body, authInfo);
    },
    toolsChanged() {
      modern.notify.toolsChanged();
      for (const s of sessions.values()) announceToolsChanged(s.server);
    },
    get sessions() {
      return sessions.size;
    },
    inFlight,
    async close(graceMs) {
      if (closing) return;
      closing = true;
      clearInterval(sweeper);
      if (!(await inFlight.drained(graceMs))) logger.warn({ cancelled: inFlight.size }, 'shutdown: cancelling requests still in flight');
      await Promise.all([...sessions.values()].map((s) => closeSession(s, 'shutdown')));
      await modern.close().catch(() => {});
    },
  };
}

function isRequest(body: unknown): body is { method: string; id: unknown } {
  return body !== null && typeof body === 'object' && 'method' in body && 'id' in body;
}

/** A GET or DELETE of the 2026 era (a listen stream is a POST; these carry the era's header). */
function hasModernHeaders(req: IncomingMessage): boolean {
  const v = req.headers['mcp-protocol-version'];
  return typeof v === 'string' && v >= '2026-07-28';
}
