// The OAuth side of the remote front's requests and answers: OAuth error bodies, forms and JSON
// documents read within the front's bound, parameters refused when repeated. Reading bodies and
// writing answers themselves is src/net/http-io.ts. Nothing here knows about grants or tokens.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyTooLarge, mediaType, readBody, sendJson } from '../net/http-io.js';

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

/** The largest form or document the OAuth endpoints read. */
const OAUTH_BODY_MAX_BYTES = 64 * 1024;

export function sendError(res: ServerResponse, e: OAuthHttpError): void {
  sendJson(res, e.status, { error: e.error, error_description: e.description }, e.headers);
}

/** The body as text, refused from its declared length unread (the connection closes after the answer). */
async function readText(req: IncomingMessage): Promise<string> {
  try {
    return (await readBody(req, OAUTH_BODY_MAX_BYTES, true)).toString('utf8');
  } catch (e) {
    if (!(e instanceof BodyTooLarge)) throw e;
    throw new OAuthHttpError(413, 'invalid_request', `The request body is over ${e.limit} bytes.`, { Connection: 'close' });
  }
}

export async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  if (mediaType(req) !== 'application/x-www-form-urlencoded') {
    throw new OAuthHttpError(400, 'invalid_request', 'Send the parameters as application/x-www-form-urlencoded.');
  }
  return new URLSearchParams(await readText(req));
}

export async function readJsonObject(req: IncomingMessage, error: string): Promise<Record<string, unknown>> {
  const type = mediaType(req);
  if (type !== 'application/json' && !type.endsWith('+json')) throw new OAuthHttpError(400, error, 'Send the metadata as application/json.');
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readText(req));
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
