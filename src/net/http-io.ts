// Reading bodies and writing answers, for every HTTP server of the process (the loopback endpoint, the
// remote front and its OAuth endpoints, the sign-in listener of `login`) and for bodies read from the
// workspace (a resource's file). One bounded reader, one way to answer JSON, a JSON-RPC error, a page
// or a redirect. The sandbox keeps its own (it is an independent emulator of the workspace).
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A body over its limit: refused as it streams in past `limit` bytes, or from its declared length. */
export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`The body is over ${limit} bytes.`);
  }
}

/**
 * A body of at most `limit` bytes, refused with BodyTooLarge as it streams in past that: nothing past
 * the limit is kept (leaving the loop destroys the stream). With `declared`, a request whose
 * Content-Length is over the limit is refused before a byte is read.
 */
export async function readBody(body: AsyncIterable<Buffer> & { headers?: IncomingMessage['headers'] }, limit: number, declared = false): Promise<Buffer> {
  if (declared) {
    const length = Number(body.headers?.['content-length']);
    if (Number.isFinite(length) && length > limit) throw new BodyTooLarge(limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) throw new BodyTooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The request's media type, lower case, without its parameters (`charset=...`). */
export function mediaType(req: IncomingMessage): string {
  return (
    String(req.headers['content-type'] ?? '')
      .split(';')[0]
      ?.trim()
      .toLowerCase() ?? ''
  );
}

/** The value of one cookie of the request. */
export function cookie(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/** A JSON answer, never cached: token answers must not be (RFC 6749 5.1), and nothing else here gains from a cache. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
    ...NO_STORE,
    ...headers,
  });
  res.end(text);
}

/** A JSON-RPC error answered over HTTP; once an answer has begun, the response is only ended. */
export function sendJsonRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  id: string | number | null = null,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return void res.end();
  sendJson(res, status, { jsonrpc: '2.0', id, error: { code, message } }, headers);
}

/** A page of ours: never cached, never framed by another site (clickjacking), posting nowhere else. */
export function sendHtml(res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(html)),
    ...NO_STORE,
    'X-Frame-Options': 'DENY',
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    'Referrer-Policy': 'no-referrer',
    ...headers,
  });
  res.end(html);
}

/**
 * A redirect of the member's browser. Referrer-Policy keeps codes in the query out of the next site's
 * Referer; 303 turns a POST into a GET.
 */
export function redirect(res: ServerResponse, status: 302 | 303, location: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { Location: location, 'Content-Length': '0', 'Referrer-Policy': 'no-referrer', ...NO_STORE, ...headers });
  res.end();
}

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** How long a connection closed with the client's body unread stays open after the answer, for the client to read it. */
const LINGER_MS = 2000;

/**
 * For an answer sent with `Connection: close` while the client may still be sending a body we will
 * not read. Node ends such an answer with `socket.destroySoon()`: a FIN, then the socket closed at
 * once. Closing a socket with the client's bytes unread makes the kernel send a reset, and a reset
 * discards what the client has received and not read yet: under load the answer itself, so the
 * client saw a dropped connection instead of its 413 or 401 (nodejs/node#9085). A lingering close
 * instead, as nginx's: the FIN, reading stopped (the client's sending stalls on a full window;
 * nothing more is read), and the socket closed when the client closes or after LINGER_MS.
 */
export function lingerThenClose(res: ServerResponse): void {
  const socket = res.socket;
  if (!socket) return;
  socket.destroySoon = () => {
    socket.end();
    // After the answer Node resumes the request to discard its body, and that resume lands on a
    // later tick: paused at once, the socket would be read to the end of the body (100 MB, measured).
    // Paused on the next turn of the loop, it reads what one turn brings (95 KB, measured), then stops.
    setImmediate(() => socket.pause());
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  };
}
