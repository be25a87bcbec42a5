// When a failed attempt may be tried again, and how long to wait first: decideRetry, a pure
// function of the attempt's outcome and what the call has done so far (docs/architecture.md, Writes
// and retries), and the helpers that classify a failure.
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
function isIdempotent(method: HttpMethod): boolean {
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

/** What one attempt came to. */
export type Outcome =
  /**
   * No answer. `notSent`: no connection was made; `stale`: a kept-alive connection, reused, failed
   * before any byte of the answer (the server closing it as it was reused); `timedOut`: no answer in time.
   */
  | { kind: 'no-answer'; notSent: boolean; stale: boolean; timedOut: boolean }
  /** An answer; a success whose body came cut or garbled is `unreadable`. */
  | { kind: 'answer'; status: number; retryAfterSeconds?: number; unreadable?: boolean };

/** One attempt's outcome, and what the call has done so far. */
export interface Attempt {
  method: HttpMethod;
  outcome: Outcome;
  /** Retries made so far: after network failures and gateway errors, after 429s, on stale connections. */
  retries: { network: number; rateLimit: number; stale: number };
  /** The token was refreshed once already. */
  refreshed: boolean;
  /** An earlier attempt may have been applied: its answer was lost, or a gateway answered 502-504. */
  mayHaveApplied: boolean;
  /** How long the call may still wait for the rate budget, Retry-After included. */
  budgetLeftMs: number;
  /** 0 to 1: where in its range a backoff falls (Math.random() at the call site). */
  jitter: number;
}

export interface RetryLimits {
  maxNetworkRetries: number;
  max429Retries: number;
  maxRetryAfterSeconds: number;
  backoffBaseMs: number;
  /** A 401 may be answered by refreshing the token. */
  canRefresh: boolean;
}

export type Decision =
  /** A success: return it. */
  | { action: 'return' }
  /** Send again after `waitMs`, counting it as a retry of `kind`. */
  | { action: 'retry'; kind: 'network' | 'rateLimit' | 'stale'; waitMs: number; mayHaveApplied: boolean }
  /** Refresh the token; send again if it was refreshed, else fail with the 401. */
  | { action: 'refresh' }
  /** A DELETE sent again found nothing to delete: the earlier attempt most likely did it. */
  | { action: 'already-gone' }
  /** A write that may have reached the server and whose answer was lost: never sent again. */
  | { action: 'outcome-unknown' }
  /** A Retry-After past what the call may wait (`capSeconds`): said at once. */
  | { action: 'wait-too-long'; retryAfterSeconds: number; capSeconds: number }
  /** Fail with the attempt's own error (the answer's, or the network's). */
  | { action: 'fail' };

/**
 * What to do after an attempt. Reads are sent again after network failures and 502-504; a write
 * only when it cannot have reached the server (no connection was made) or was refused 429; a 429
 * is waited out within the call's bounds; a 401 asks for a refreshed token once.
 */
export function decideRetry(a: Attempt, limits: RetryLimits): Decision {
  const idempotent = isIdempotent(a.method);
  const again = (kind: 'network' | 'rateLimit' | 'stale', waitMs: number, mayHaveApplied = a.mayHaveApplied): Decision => ({
    action: 'retry',
    kind,
    waitMs,
    mayHaveApplied,
  });
  // Exponential, with full jitter: clients that failed together do not retry together.
  const backoff = () => Math.round(limits.backoffBaseMs * 2 ** a.retries.network * (0.5 + a.jitter / 2));
  const networkRetryLeft = a.retries.network < limits.maxNetworkRetries;
  const o = a.outcome;
  if (o.kind === 'no-answer') {
    // Most likely the server closed a kept-alive connection as it was reused, and never read the
    // request; it may also have failed after applying it. A read is sent again at once, once.
    if (o.stale && idempotent && a.retries.stale === 0) return again('stale', 0, true);
    if (!o.notSent && !idempotent) return { action: 'outcome-unknown' };
    return networkRetryLeft ? again('network', backoff(), a.mayHaveApplied || !o.notSent) : { action: 'fail' };
  }
  const { status } = o;
  if (status >= 200 && status < 300) {
    if (!o.unreadable) return { action: 'return' };
    // A write was applied but its answer is lost: it must not read as a failure (it would be sent again).
    if (!idempotent) return { action: 'outcome-unknown' };
    return networkRetryLeft ? again('network', backoff(), true) : { action: 'fail' };
  }
  // "Not found, check the id" would send the assistant after a deletion that happened.
  if (a.method === 'DELETE' && a.mayHaveApplied && (status === 404 || status === 410)) return { action: 'already-gone' };
  if (status === 429) {
    const seconds = o.retryAfterSeconds ?? 1;
    if (seconds > limits.maxRetryAfterSeconds) return { action: 'wait-too-long', retryAfterSeconds: seconds, capSeconds: limits.maxRetryAfterSeconds };
    // The bound of a call's waits for the budget holds for Retry-After too: said at once, not after it.
    // (In whole seconds, Retry-After's own grain: a few milliseconds spent taking a slot do not count.)
    const allowed = Math.max(0, Math.ceil(a.budgetLeftMs / 1000));
    if (seconds > allowed) return { action: 'wait-too-long', retryAfterSeconds: seconds, capSeconds: allowed };
    return a.retries.rateLimit < limits.max429Retries ? again('rateLimit', seconds * 1000) : { action: 'fail' };
  }
  if (status === 401 && limits.canRefresh && !a.refreshed) return { action: 'refresh' };
  if (isTransientStatus(status)) {
    // A gateway's 502-504 may come after the workspace applied the request.
    if (!idempotent) return { action: 'outcome-unknown' };
    if (!networkRetryLeft) return { action: 'fail' };
    const after = o.retryAfterSeconds;
    return again('network', after !== undefined && after <= limits.maxRetryAfterSeconds ? after * 1000 : backoff(), true);
  }
  return { action: 'fail' };
}
