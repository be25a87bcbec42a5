// MCP over Streamable HTTP, both protocol eras, from one server factory (src/mcp/server/server.ts):
// - a 2026-07-28 request is served by the SDK's createMcpHandler, stateless: a fresh server per
//   request, nothing kept between requests, so any replica answers any request;
// - a 2025 client gets a session at initialize (the SDK's Streamable HTTP transport), which carries
//   what that era needs a connection for: server-to-client requests (sign-in, roots), cancellation,
//   logging/setLevel, list_changed on the GET stream. Sessions expire when idle and are evicted oldest
//   first when there are too many or memory runs short, so clients that leave without DELETE never
//   lock others out. A request naming a session this process does not hold (expired, evicted, or
//   started on another replica) is served statelessly, like a 2026 one: its answer does not depend on
//   where the session began. A session its client ended (DELETE) is the exception: its id is answered
//   404 from then on, as the 2025 transport requires, by every replica sharing the state store.
// - A session belongs to whoever opened it (in the remote mode: the member, their consent and their
//   client): its id is signed together with that owner, so a request from anyone else naming it is
//   answered 404, as for an id never issued, by every replica, whether or not it holds the session.
//   Limits are per owner too: one owner's sessions are capped and evicted among themselves, so one
//   member opening many sessions never pushes out another's; so are 2026 listen streams, each of which
//   holds a connection and a server for as long as its client listens.
// Callers check Host/Origin and authentication first, read the body and hand it over parsed.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getHeapStatistics } from 'node:v8';
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
import type { Logger } from '../../log.js';
import { sendJsonRpcError } from '../../net/http-io.js';
import { MemoryStore } from '../../store/memory.js';
import type { StateStore } from '../../store/state-store.js';
import { InFlight } from './in-flight.js';
import { announceToolsChanged } from './list-changes.js';

export interface McpHttpOptions {
  factory: (ctx: McpRequestContext) => Promise<Server>;
  logger: Logger;
  /** 2025 sessions held at once before one is evicted (the oldest idle one of the owner holding most). */
  maxSessions?: number;
  /** 2025 sessions one owner holds at once before their own oldest idle one is evicted. Default maxSessions. */
  maxSessionsPerOwner?: number;
  /**
   * Who a request acts for, as a string (the remote mode: member, consent and client). A session is
   * served only to requests of the owner that opened it. Unset: one owner (a local server's member).
   */
  ownerOf?: (authInfo: AuthInfo | undefined) => string;
  /**
   * 2026 listen streams (subscriptions/listen) one owner holds open at once; past it a new one is
   * refused 429 (a client needs one per connection). Unset: no cap (a local server's one member).
   */
  maxListensPerOwner?: number;
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
  /**
   * Where the ids of sessions their clients ended (DELETE) are remembered, so that any replica sharing
   * the store answers a later request naming one 404. Unset: in this process's memory.
   */
  store?: StateStore;
}

/**
 * How long an ended session's id stays refused. Ids carry no expiry of their own, so the record has to
 * end some time: after it, a client still sending the id is served statelessly, like any session not
 * held. A client that ended its session has no reason to send its id again within the day either.
 */
const ENDED_SESSION_TTL_MS = 24 * 60 * 60_000;

/**
 * Session ids: a random UUID and its MAC, under the deployment's key, over the UUID and the session's
 * owner. Any replica tells from the id alone whether it was issued to this owner: no lookup, so a
 * replica that does not hold the session refuses another owner exactly as the one that does.
 */
function sessionIds(key: Uint8Array) {
  const mac = (id: string, owner: string) => createHmac('sha256', key).update(`mcp-session:${id}\n${owner}`).digest('base64url').slice(0, 22);
  return {
    issue: (owner = '') => {
      const id = randomUUID();
      return `${id}.${mac(id, owner)}`;
    },
    /** Was `sessionId` issued here, to `owner`? */
    issued: (sessionId: string, owner = '') => {
      const [id, tag] = sessionId.split('.');
      if (!id || !tag || tag.length !== 22) return false;
      const want = Buffer.from(mac(id, owner));
      const got = Buffer.from(tag);
      return got.length === want.length && timingSafeEqual(got, want);
    },
  };
}

interface LegacySession {
  id: string;
  /** Who opened it (McpHttpOptions.ownerOf): the only one it serves. */
  owner: string;
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
  const maxPerOwner = Math.min(opts.maxSessionsPerOwner ?? maxSessions, maxSessions);
  const ownerOf = opts.ownerOf ?? (() => '');
  const maxListens = opts.maxListensPerOwner;
  /** Listen streams open, by owner. */
  const listens = new Map<string, number>();
  const idleMs = opts.sessionIdleMs ?? 15 * 60_000;
  const heapPressure = opts.heapPressure ?? 0.75;
  const onerror = (err: Error) => logger.debug({ err: err.message }, 'MCP HTTP exchange failed');
  const ids = sessionIds(opts.sessionKey ?? globalThis.crypto.getRandomValues(new Uint8Array(32)));
  const store = opts.store ?? new MemoryStore();
  const endedKey = (id: string) => `mcp-session-ended:${id}`;
  /** Recorded before the DELETE is answered: the client's next request cannot overtake it. */
  const recordEnded = (id: string) => store.set(endedKey(id), '1', { ttlMs: ENDED_SESSION_TTL_MS });
  async function ended(id: string): Promise<boolean> {
    try {
      return (await store.get(endedKey(id))) !== undefined;
    } catch (err) {
      // The store unreachable: serve the request rather than refuse every 2025 client meanwhile.
      logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'could not check whether an MCP session was ended');
      return false;
    }
  }

  const modern = createMcpHandler(factory, { legacy: 'reject', onerror });
  const modernNode = toNodeHandler(modern, { onerror });
  const stateless = toNodeHandler({ fetch: legacyStatelessFallback(factory, onerror) }, { onerror });
  /** Insertion order is use order: the first entry is the one used longest ago. */
  const sessions = new Map<string, LegacySession>();
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

  /** The sessions of each owner, oldest used first. */
  function byOwner(): Map<string, LegacySession[]> {
    const out = new Map<string, LegacySession[]>();
    for (const s of sessions.values()) {
      const list = out.get(s.owner);
      if (list) list.push(s);
      else out.set(s.owner, [s]);
    }
    return out;
  }

  /**
   * Makes room for one more session of `owner`: expired ones go; then, while `owner` holds their cap,
   * their own oldest idle one; then, while the process is full, the oldest idle one of whoever holds
   * the most (never someone with fewer than `owner`, who would pay for another's many sessions);
   * under memory pressure the oldest idle ones, whoever's.
   */
  function reap(owner?: string): void {
    const now = Date.now();
    for (const s of [...sessions.values()]) if (s.busy === 0 && now - s.lastUsed > idleMs) void closeSession(s, 'idle');
    if (owner !== undefined) {
      const own = (byOwner().get(owner) ?? []).filter((s) => s.busy === 0);
      let held = [...sessions.values()].filter((s) => s.owner === owner).length;
      for (const s of own) {
        if (held < maxPerOwner) break;
        void closeSession(s, "evicted: too many sessions (the owner's own, at their cap)");
        held--;
      }
      while (sessions.size >= maxSessions) {
        const largest = [...byOwner().values()].sort((a, b) => b.length - a.length)[0] ?? [];
        const victim = largest.find((s) => s.busy === 0);
        if (!victim) break;
        void closeSession(victim, 'evicted: too many sessions');
      }
    }
    const heap = getHeapStatistics();
    if (heap.used_heap_size <= heap.heap_size_limit * heapPressure) return;
    for (const s of [...sessions.values()]) if (s.busy === 0) void closeSession(s, 'evicted: memory pressure');
  }
  const sweeper = setInterval(() => reap(), Math.min(idleMs, 60_000));
  sweeper.unref();

  async function openSession(req: IncomingMessage, res: ServerResponse, body: unknown, authInfo: AuthInfo | undefined): Promise<void> {
    const owner = ownerOf(authInfo);
    reap(owner);
    const request = await toWebRequest(req, body);
    const server = await factory({ era: 'legacy', ...(authInfo ? { authInfo } : {}), requestInfo: request });
    let session: LegacySession | undefined;
    const transport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => ids.issue(owner),
      onsessionclosed: recordEnded,
      onsessioninitialized: (id) => {
        session = { id, owner, transport, server, lastUsed: Date.now(), busy: 0 };
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
    // Issued to this request's owner: an id of someone else's session is as unknown as a forged one.
    const issued = id !== undefined && ids.issued(id, ownerOf(authInfo));
    // Checked even for a session held here: its client may have ended it through another replica.
    if (issued && (await ended(id))) {
      const held = sessions.get(id);
      if (held) await closeSession(held, 'ended by the client through another replica');
      notFound(res);
      return;
    }
    const session = issued ? sessions.get(id) : undefined;
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
        await closeSession(session, 'deleted by the client');
      }
      return;
    }
    if (req.method === 'POST' && isInitializeRequest(body)) return openSession(req, res, body, authInfo);
    if (req.method === 'DELETE' && issued) {
      // Ending a session held by another replica, or one already expired here: recorded all the same, so
      // the replica holding it stops serving it and none serves its id statelessly.
      await recordEnded(id);
      res.writeHead(200).end();
      return;
    }
    if (req.method === 'GET' && issued) {
      // The event stream of a session this process does not hold (held by another replica, or expired
      // here): there is no stream for it here, as for a server that offers none (405), and its client
      // goes on without one while its requests are answered on their own. A 404 would tell the client
      // its session is gone: the SDK's client reports an error, others start a new session.
      sendJsonRpcError(res, 405, -32000, 'No event stream for this session here: its requests are answered without one.', null, { Allow: 'POST, DELETE' });
      return;
    }
    if (req.method !== 'POST' || (id !== undefined && !issued)) {
      // A session never issued here.
      notFound(res);
      return;
    }
    // A session expired, evicted or begun elsewhere: the request is answered on its own.
    if (id !== undefined) delete req.headers['mcp-session-id'];
    await stateless(Object.assign(req, authInfo ? { auth: authInfo } : {}), res, body);
  }

  return {
    async handle(req, res, body, authInfo) {
      if (closing) {
        sendJsonRpcError(res, 503, -32000, 'The server is shutting down.');
        return;
      }
      // A request (not a notification, nor a stream held open for events) counts until answered.
      const call = req.method === 'POST' && isRequest(body) && body.method !== 'subscriptions/listen';
      if (call) res.once('close', inFlight.begin());
      // The SDK's own classification, so this branch never disagrees with createMcpHandler's.
      const legacy = req.method === 'POST' ? await isLegacyRequest(await toWebRequest(req, body), body) : !hasModernHeaders(req);
      if (!legacy) {
        if (maxListens !== undefined && req.method === 'POST' && isRequest(body) && body.method === 'subscriptions/listen') {
          // Without a cap, one member could hold every connection the replica takes, locking out everyone else.
          const owner = ownerOf(authInfo);
          const open = listens.get(owner) ?? 0;
          if (open >= maxListens) return tooManyListens(res, body.id, maxListens);
          listens.set(owner, open + 1);
          res.once('close', () => {
            const left = (listens.get(owner) ?? 1) - 1;
            if (left > 0) listens.set(owner, left);
            else listens.delete(owner);
          });
        }
        return modernNode(Object.assign(req, authInfo ? { auth: authInfo } : {}), res, body);
      }
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

function notFound(res: ServerResponse): void {
  sendJsonRpcError(res, 404, -32001, 'Session not found.');
}

function tooManyListens(res: ServerResponse, id: unknown, max: number): void {
  sendJsonRpcError(
    res,
    429,
    -32000,
    `Too many listen streams open: at most ${max} at once here. Close one (or end an unused connection), then listen again.`,
    typeof id === 'string' || typeof id === 'number' ? id : null,
    { 'Retry-After': '30' },
  );
}

function isRequest(body: unknown): body is { method: string; id: unknown } {
  return body !== null && typeof body === 'object' && 'method' in body && 'id' in body;
}

/** A GET or DELETE of the 2026 era (a listen stream is a POST; these carry the era's header). */
function hasModernHeaders(req: IncomingMessage): boolean {
  const v = req.headers['mcp-protocol-version'];
  return typeof v === 'string' && v >= '2026-07-28';
}
