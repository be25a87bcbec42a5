// Reading answers: the `{data, meta}` envelope, the `{code, message, details}` error, file metadata.
import { createRequire } from 'node:module';
import { WorkspaceApiError } from './errors.js';
import { parseRetryAfter } from './retry.js';

// `import ... from 'node:http'` builds node:http's ESM facade, which loads Node's own bundled undici
// (and its resident memory) only to read this table; require() on the error path costs nothing up front.
let statusCodes: Record<number, string | undefined> | undefined;
function statusText(status: number): string | undefined {
  statusCodes ??= (createRequire(import.meta.url)('node:http') as typeof import('node:http')).STATUS_CODES;
  return statusCodes[status];
}

type Headers = Record<string, string | string[] | undefined>;

interface Envelope {
  data?: unknown;
  meta?: Record<string, unknown>;
}

function header(headers: Headers, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function isJson(headers: Headers): boolean {
  const type = header(headers, 'content-type');
  return type !== undefined && /[/+]json\b/i.test(type);
}

/**
 * A success body. Envelopes give `data` and `meta`; a JSON document that is not an envelope (the
 * OpenAPI description) is the data itself; a non-JSON body is handed over as text.
 */
export function decodeSuccess(status: number, headers: Headers, text: string): Envelope {
  if (text === '') return {};
  if (!isJson(headers)) return { data: text };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new WorkspaceApiError(status, 'http.malformed_json', `The workspace answered HTTP ${status} with malformed JSON: "${textExcerpt(text)}"`);
  }
  if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) && 'data' in parsed) {
    const env = parsed as { data: unknown; meta?: unknown };
    const out: Envelope = { data: env.data };
    if (env.meta !== null && typeof env.meta === 'object') out.meta = env.meta as Record<string, unknown>;
    return out;
  }
  return { data: parsed };
}

/** An error answer as a typed error, also when a proxy answered with an HTML page instead of the API. */
export function decodeError(status: number, headers: Headers, text: string): WorkspaceApiError {
  const retryAfter = parseRetryAfter(headers['retry-after']);
  const body = parseObject(text);
  if (body !== undefined && typeof body.code === 'string' && typeof body.message === 'string') {
    const details = body.details !== null && typeof body.details === 'object' && !Array.isArray(body.details) ? (body.details as Record<string, unknown>) : {};
    return new WorkspaceApiError(status, body.code, body.message, details, retryAfter);
  }
  const reason = statusText(status) ?? 'Error';
  const type = header(headers, 'content-type')?.split(';')[0] ?? 'no content type';
  const excerpt = textExcerpt(text);
  const message =
    `The workspace answered HTTP ${status} ${reason} without an API error body (${type})` +
    (excerpt ? `: "${excerpt}"` : '.') +
    (status >= 500 ? ' The workspace or a proxy in front of it is failing; try again later.' : '');
  return new WorkspaceApiError(status, `http.${status}`, message, {}, retryAfter);
}

function parseObject(text: string): Record<string, unknown> | undefined {
  if (!text.trimStart().startsWith('{')) return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The readable words of an error page (its title, usually), short enough for a tool message. */
function textExcerpt(text: string): string {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1];
  const plain = (title ?? text.replace(/<script[\s\S]*?<\/script>|<style[\s\S]*?<\/style>|<[^>]+>/gi, ' ')).replace(/\s+/g, ' ').trim();
  return plain.length > 160 ? `${plain.slice(0, 157)}...` : plain;
}

/** The rate-limit headers of any answer, for the limiter. */
export function rateLimitHeaders(headers: Headers): { limit?: number; remaining?: number } | undefined {
  const limit = header(headers, 'x-ratelimit-limit');
  const remaining = header(headers, 'x-ratelimit-remaining');
  if (limit === undefined && remaining === undefined) return undefined;
  const out: { limit?: number; remaining?: number } = {};
  const l = Number(limit);
  const r = Number(remaining);
  if (limit !== undefined && Number.isFinite(l)) out.limit = l;
  if (remaining !== undefined && Number.isFinite(r)) out.remaining = r;
  return out;
}

/** The file name of a download, from Content-Disposition (RFC 6266; `filename*` wins). */
export function dispositionFilename(headers: Headers): string | undefined {
  const value = header(headers, 'content-disposition');
  if (value === undefined) return undefined;
  const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(value);
  if (extended?.[2] !== undefined) {
    try {
      return decodeURIComponent(extended[2].trim());
    } catch {
      // fall through to the plain parameter
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/i.exec(value);
  const name = plain?.[1]?.replace(/\\(.)/g, '$1') ?? plain?.[2]?.trim();
  return name === undefined || name === '' ? undefined : name;
}
