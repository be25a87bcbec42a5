// `serve --http`: MCP over Streamable HTTP on one loopback endpoint, /mcp, for agents that speak HTTP.
// Every client acts with the one member's credentials this process was started with, so no token
// ever comes from, or goes to, an MCP client; the endpoint is loopback only.
//
// A loopback server is still reachable from a browser tab through DNS rebinding (evil.example
// resolving to 127.0.0.1), so both Host and Origin are checked against the loopback names of the
// bound port before anything else happens. Slow and idle connections are bounded (header and request
// timeouts, a connection cap), bodies are capped and checked like stdio lines (src/mcp/transport/message-guard.ts).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../log.js';
import { boundConnections, guardedBody, MAX_BODY_BYTES } from '../mcp/transport/http-bounds.js';
import type { McpHttp } from '../mcp/transport/streamable-http.js';
import { BodyTooLarge, sendJsonRpcError } from '../net/http-io.js';
import { allowedHosts, allowedOrigins } from '../net/loopback.js';

const MCP_PATH = '/mcp';

interface HttpServeOptions {
  host: string;
  port: number;
  mcp: McpHttp;
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

/** Why a request must be refused before it reaches MCP, or undefined when its Host and Origin are ours. */
export function refusal(headers: IncomingMessage['headers'], port: number): string | undefined {
  const host = headers.host?.toLowerCase();
  if (!host || !allowedHosts(port).includes(host)) return `Host ${JSON.stringify((headers.host ?? '').slice(0, 100))} is not this loopback server`;
  const origin = headers.origin?.toLowerCase();
  if (origin !== undefined && !allowedOrigins(port).includes(origin)) return `Origin ${JSON.stringify(headers.origin?.slice(0, 100))} is not allowed`;
  return undefined;
}

export async function startHttpServer(opts: HttpServeOptions): Promise<HttpServeHandle> {
  const { logger, mcp } = opts;
  let port = opts.port;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const why = refusal(req.headers, port);
    if (why) {
      logger.warn(
        { host: req.headers.host?.slice(0, 100), origin: req.headers.origin?.slice(0, 100) },
        "refused an HTTP request from outside this machine's loopback names",
      );
      return sendJsonRpcError(res, 403, -32000, `Forbidden: ${why}.`);
    }
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path !== MCP_PATH) return sendJsonRpcError(res, 404, -32000, `Not found: the MCP endpoint is ${MCP_PATH}.`);
    let body: unknown;
    if (req.method === 'POST') {
      body = await guardedBody(req, res);
      if (body === undefined) return;
    }
    await mcp.handle(req, res, body);
  }

  const http = createServer({ connectionsCheckingInterval: 1_000 }, (req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (err instanceof BodyTooLarge) return sendJsonRpcError(res, 413, -32000, `Request body larger than ${MAX_BODY_BYTES} bytes.`);
      logger.error({ err: String(err) }, 'HTTP request failed');
      sendJsonRpcError(res, 500, -32603, 'Internal error.');
    });
  });
  boundConnections(http);

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(opts.port, opts.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  port = (http.address() as AddressInfo).port;
  const hostPart = opts.host.includes(':') ? `[${opts.host}]` : opts.host;

  let closed = false;
  return {
    url: `http://${hostPart}:${port}${MCP_PATH}`,
    port,
    async close(graceMs = 5000) {
      if (closed) return;
      closed = true;
      const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
      await mcp.close(graceMs);
      // Open GET streams and idle keep-alive sockets would hold close() forever.
      http.closeAllConnections();
      await stopped;
    },
  };
}
