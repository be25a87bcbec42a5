// When a failed attempt may be tried again, and how long to wait first.
import type { HttpMethod } from '../operation.js';

/**
 * Wait `ms`, or reject with the signal's reason as soon as it aborts: a cancelled tool call must not
 * sit out a backoff or a rate-limit pause.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Exponential backoff with full jitter: clients that failed together do not retry together. */
export function backoffMs(retry: number, baseMs: number): number {
  return Math.round(baseMs * 2 ** retry * (0.5 + Math.random() / 2));
}

/** Retry-After as seconds: either delta-seconds or an HTTP date (RFC 9110 10.2.3). */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return undefined;
  // Seconds; decimals too (a time-scaled sandbox sends them), never read as a date.
  if (/^\s*\d+(\.\d+)?\s*$/.test(text)) return Number(text);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

/**
 * Methods whose repetition is harmless (RFC 9110 9.2.2): GET reads, PUT replaces with the same state,
 * DELETE of a deleted resource leaves it deleted. POST and PATCH may create or apply twice.
 */
export function isIdempotent(method: HttpMethod): boolean {
  return method === 'GET' || method === 'PUT' || method === 'DELETE';
}

/** Gateway answers that say the workspace is briefly unavailable rather than that the call is wrong. */
export function isTransientStatus(status: number): boolean {
  return status === 502 || status === 503 || status === 504;
}

/**
 * Failures where the request cannot have reached the server: no connection was made. Safe to retry
 * for any method, writes included.
 */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

function errorCode(err: unknown): string | undefined {
  // undici wraps socket errors; the system code may sit on the error or on its cause.
  let e: unknown = err;
  for (let depth = 0; depth < 3 && e !== null && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR_SOCKET') return code;
    e = (e as { cause?: unknown }).cause;
  }
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export function wasNotSent(err: unknown): boolean {
  const code = errorCode(err);
  return code !== undefined && NOT_SENT_CODES.has(code);
}

export function isTimeout(err: unknown): boolean {
  const code = errorCode(err);
  // The API client's own idle timeouts (client.ts), and undici's for the modules that still use it.
  return code === 'HEADERS_TIMEOUT' || code === 'BODY_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT';
}

/** Codes of undici's own misuse errors: bugs to surface, not network conditions to retry. */
const USAGE_CODES = new Set(['UND_ERR_INVALID_ARG', 'UND_ERR_INVALID_RETURN_VALUE', 'UND_ERR_NOT_SUPPORTED']);

/** A failure of the connection or the exchange (system or undici code), as opposed to a bug. */
export function isNetworkFailure(err: unknown): boolean {
  const code = errorCode(err);
  return code !== undefined && !USAGE_CODES.has(code);
}
