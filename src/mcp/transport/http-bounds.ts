// Bounds every MCP endpoint of this process over HTTP keeps, the local one (`serve --http`) and the
// remote mode's: a body's size and its check (as stdio checks a line), and slow and idle clients.
import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import { readBody, sendJsonRpcError } from '../../net/http-io.js';
import { guardText } from './message-guard.js';

/** Largest JSON-RPC body accepted: tool arguments are small; files travel by path, not inline. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Connections held at once: a local endpoint serves a few clients and their streams. */
const MAX_CONNECTIONS = 256;
/** A client has this long to send its headers, and this long for its whole request. */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * Reads and checks a POST body as stdio checks a line; answers a malformed one itself (HTTP 400 with
 * the JSON-RPC error) and returns undefined, else the message to serve. `onRead` is told its size once read.
 */
export async function guardedBody(req: IncomingMessage, res: ServerResponse, max = MAX_BODY_BYTES, onRead?: (bytes: number) => void): Promise<unknown> {
  const text = (await readBody(req, max)).toString('utf8');
  onRead?.(Buffer.byteLength(text));
  const g = guardText(text);
  if (g.kind === 'pass') return g.message;
  if (g.kind === 'answer') sendJsonRpcError(res, 400, g.answer.error.code, g.answer.error.message, g.answer.id);
  else sendJsonRpcError(res, 400, -32600, `Invalid Request: ${g.why}.`);
  return undefined;
}

/** Bounds on slow and idle clients, shared by the local and the remote HTTP servers. */
export function boundConnections(http: HttpServer, maxConnections = MAX_CONNECTIONS): void {
  http.headersTimeout = HEADERS_TIMEOUT_MS;
  http.requestTimeout = REQUEST_TIMEOUT_MS;
  http.keepAliveTimeout = 5_000;
  http.maxConnections = maxConnections;
}
