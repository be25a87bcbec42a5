// Reading requests and writing answers for the remote front: bounded bodies, OAuth error bodies,
// pages that cannot be framed, redirects, cookies. Nothing here knows about grants or tokens.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** An OAuth error answered as JSON (RFC 6749 5.2): `{error, error_description}`. */
export class OAuthHttpError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

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

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
    // Token answers must never be cached (RFC 6749 5.1); nothing else here gains from a cache.
    ...NO_STORE,
    ...headers,
  });
  res.end(text);
}

export function sendError(res: ServerResponse, e: OAuthHttpError): void {
  sendJson(res, e.status, { error: e.error, error_description: e.description }, e.headers);
}

export function sendHtml(res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(html)),
    ...NO_STORE,
    // The approval page must not be framed by another site (clickjacking), nor post anywhere else.
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

export async function readBody(req: IncomingMessage, limit = 64 * 1024): Promise<string> {
  const declared = Number(req.headers['content-length']);
  // Refused from its declared length, unread: the connection closes after the answer.
  if (Number.isFinite(declared) && declared > limit) {
    throw new OAuthHttpError(413, 'invalid_request', `The request body is over ${limit} bytes.`, { Connection: 'close' });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > limit) throw new OAuthHttpError(413, 'invalid_request', `The request body is over ${limit} bytes.`, { Connection: 'close' });
    chunks.push(c);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const mediaType = (req: IncomingMessage) =>
  String(req.headers['content-type'] ?? '')
    .split(';')[0]
    ?.trim()
    .toLowerCase();

export async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  if (mediaType(req) !== 'application/x-www-form-urlencoded') {
    throw new OAuthHttpError(400, 'invalid_request', 'Send the parameters as application/x-www-form-urlencoded.');
  }
  return new URLSearchParams(await readBody(req));
}

export async function readJsonObject(req: IncomingMessage, error: string): Promise<Record<string, unknown>> {
  const type = mediaType(req);
  if (type !== 'application/json' && !type?.endsWith('+json')) throw new OAuthHttpError(400, error, 'Send the metadata as application/json.');
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readBody(req));
  } catch (e) {
    if (e instanceof OAuthHttpError) throw e;
    throw new OAuthHttpError(400, error, 'The body is not valid JSON.');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new OAuthHttpError(400, error, 'The body must be a JSON object.');
  return parsed as Record<string, unknown>;
}

/**
 * One parameter of a form or query, refused when repeated: OAuth parameters "MUST NOT be included more
 * than once" (RFC 6749 3.1), and a second value is a classic way to smuggle a different one past a check.
 */
export function single(params: URLSearchParams, name: string): string | undefined {
  const all = params.getAll(name);
  if (all.length > 1) throw new OAuthHttpError(400, 'invalid_request', `The parameter ${name} was sent more than once.`);
  return all[0];
}

export function cookie(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
