// `serve --http`: MCP over Streamable HTTP on one loopback endpoint, /mcp. Each client session gets
// its own MCP server (the SDK binds a server to one transport) built by `createSession`; all of them
// share the one API client, rate limiter and credentials of this process, so no token ever comes
// from, or goes to, the MCP client.
//
// A loopback server is still reachable from a browser tab through DNS rebinding (evil.example
// resolving to 127.0.0.1), so both Host and Origin are checked against the loopback names of the
// bound port before anything else happens. The SDK's own helper checks Host only.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { trackInFlight, type InFlight } from './in-flight.js';
import type { Logger } from './log.js';
import { loopbackHostNames } from './loopback.js';

export const MCP_PATH = '/mcp';
/** Largest JSON-RPC body accepted: tool arguments are small; files travel by path, not inline. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Sessions held at once: a local endpoint serves a few clients; more means something loops. */
const MAX_SESSIONS = 100;

export interface HttpServeOptions {
  host: string;
  port: number;
  /** A new MCP server for one session. `session` keys what belongs to it (its log tap). */
  createSession(session: object): Server;
  /** The session ended (DELETE, or shutdown). */
  onSessionClosed?(session: object): void;
  logger: Logger;
}

export interface HttpServeHandle {
  /** The endpoint, e.g. http://127.0.0.1:8765/mcp. */
  url: string;
  port: number;
  /**
   * Stops taking requests, lets requests in flight finish for up to `graceMs`, then closes every
   * session (which cancels what is left: their abort signals stop the API calls).
   */
  close(graceMs?: number): Promise<void>;
}

/** Host header values a loopback listener on `port` answers to. */
export function allowedHosts(port: number): string[] {
  const names = loopbackHostNames();
  return port === 80 ? [...names, ...names.map((n) => `${n}:80`)] : names.map((n) => `${n}:${port}`);
}

/** Origin header values accepted (a request without Origin comes from a non-browser client). */
export function allowedOrigins(port: number): string[] {
  return allowedHosts(port).map((h) => `http://${h}`);
}

/** Why a request must be refused before it reaches MCP, or undefined when its Host and Origin are ours. */
export function refusal(headers: IncomingMessage['headers'], port: number): string | undefined {
  const host = headers.host?.toLowerCase();
  if (!host || !allowedHosts(port).includes(host)) return `Host ${JSON.stringify(headers.host ?? '')} is not this loopback server`;
  const origin = headers.origin?.toLowerCase();
  if (origin !== undefined && !allowedOrigins(port).includes(origin)) return `Origin ${JSON.stringify(headers.origin)} is not allowed`;
  return undefined;
}

function sendError(res: ServerResponse, status: number, code: number, message: string): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

class BodyTooLarge extends Error {}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

interface Session {
  key: object;
  transport: StreamableHTTPServerTransport;
  server: Server;
  inFlight: InFlight;
}

export async function startHttpServer(opts: HttpServeOptions): Promise<HttpServeHandle> {
  const { logger } = opts;
  const sessions = new Map<string, Session>();
  let closing = false;
  let port = opts.port;

  async function closeSession(id: string, s: Session): Promise<void> {
    if (sessions.get(id) !== s) return;
    sessions.delete(id);
    opts.onSessionClosed?.(s.key);
    await s.server.close().catch(() => {});
    logger.debug({ session: id }, 'MCP session closed');
  }

  async function openSession(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    if (sessions.size >= MAX_SESSIONS) return sendError(res, 503, -32000, `Too many open sessions (${MAX_SESSIONS}); close some (HTTP DELETE) and retry.`);
    const key = {};
    let session: Session | undefined;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        if (session) sessions.set(id, session);
        logger.debug({ session: id }, 'MCP session opened');
      },
    });
    const server = opts.createSession(key);
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id && session) void closeSession(id, session);
      else opts.onSessionClosed?.(key);
    };
    await server.connect(transport);
    session = { key, transport, server, inFlight: trackInFlight(transport) };
    await transport.handleRequest(req, res, body);
    // An initialize the transport refused (wrong Accept header, bad version) opened no session.
    if (transport.sessionId === undefined) await server.close().catch(() => {});
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const why = refusal(req.headers, port);
    if (why) {
      logger.warn({ host: req.headers.host, origin: req.headers.origin }, 'refused an HTTP request from outside this machine\'s loopback names');
      return sendError(res, 403, -32000, `Forbidden: ${why}.`);
    }
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path !== MCP_PATH) return sendError(res, 404, -32000, `Not found: the MCP endpoint is ${MCP_PATH}.`);
    if (closing) return sendError(res, 503, -32000, 'The server is shutting down.');

    const header = req.headers['mcp-session-id'];
    const id = Array.isArray(header) ? header[0] : header;
    if (id !== undefined) {
      const session = sessions.get(id);
      if (!session) return sendError(res, 404, -32001, 'Session not found: initialize a new session.');
      let body: unknown;
      if (req.method === 'POST') body = await readJson(req);
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST') return sendError(res, 400, -32000, 'Bad Request: no Mcp-Session-Id header; start with an initialize request.');
    const body = await readJson(req);
    if (!isInitializeRequest(body)) return sendError(res, 400, -32000, 'Bad Request: no Mcp-Session-Id header; start with an initialize request.');
    return openSession(req, res, body);
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (err instanceof BodyTooLarge) return sendError(res, 413, -32000, `Request body larger than ${MAX_BODY_BYTES} bytes.`);
      if (err instanceof SyntaxError) return sendError(res, 400, -32700, 'Parse error: the body is not JSON.');
      logger.error({ err: String(err) }, 'HTTP request failed');
      sendError(res, 500, -32603, 'Internal error.');
    });
  });

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(opts.port, opts.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  port = (http.address() as AddressInfo).port;
  const hostPart = opts.host.includes(':') ? `[${opts.host}]` : opts.host;

  return {
    url: `http://${hostPart}:${port}${MCP_PATH}`,
    port,
    async close(graceMs = 5000) {
      if (closing) return;
      closing = true;
      const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
      const all = [...sessions.entries()];
      const drained = await Promise.all(all.map(([, s]) => s.inFlight.drained(graceMs)));
      const cancelled = all.reduce((n, [, s], i) => n + (drained[i] ? 0 : s.inFlight.size), 0);
      if (cancelled) logger.warn({ cancelled }, 'shutdown: cancelling requests still in flight');
      await Promise.all(all.map(([id, s]) => closeSession(id, s)));
      // Open GET streams and idle keep-alive sockets would hold close() forever.
      http.closeAllConnections();
      await stopped;
    },
  };
}
