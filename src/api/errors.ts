// Typed failures of a call to the workspace API. The MCP layer turns each into a tool error with a
// hint the assistant can act on, so every class says what happened and whether a retry is safe.

/**
 * Code of a WorkspaceApiError made before any request was sent (the member's token could not be had
 * right now): retrying the same call shortly is safe, a write included.
 */
export const BRIEFLY_UNAVAILABLE = 'workspace.briefly_unavailable';

/** The API answered with an error envelope `{code, message, details}` (or a non-JSON error page). */
export class WorkspaceApiError extends Error {
  override name = 'WorkspaceApiError';
  readonly status: number;
  readonly code: string;
  readonly details: Record<string, unknown>;
  readonly retryAfterSeconds?: number;
  /** How many 429 answers were waited out before this one ended the call. */
  rateLimitRetries = 0;

  constructor(status: number, code: string, message: string, details: Record<string, unknown> = {}, retryAfterSeconds?: number) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
    if (retryAfterSeconds !== undefined) this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** The workspace could not be reached (refused, reset, DNS) and every allowed retry failed. */
export class NetworkError extends Error {
  override name = 'NetworkError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * A POST or PATCH may have reached the server, and its answer was lost (reset, timeout, 502-504).
 * It is never re-sent: a duplicated write (two findings, two exports) is worse than asking.
 */
export class OutcomeUnknownError extends Error {
  override name = 'OutcomeUnknownError';
  readonly method: string;
  readonly path: string;
  override readonly cause: unknown;

  constructor(method: string, path: string, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(
      `${method} ${path} may or may not have been applied: the request may have reached the workspace but no ` +
        `answer came back (${why}). It was not sent again. List or read the resource to see whether the change ` +
        `happened before trying again.`,
    );
    this.method = method;
    this.path = path;
    this.cause = cause;
  }
}

/** One attempt got no (complete) answer within the client's timeout. */
export class RequestTimeoutError extends Error {
  override name = 'RequestTimeoutError';
  readonly timeoutMs: number;
  constructor(method: string, path: string, timeoutMs: number) {
    super(`${method} ${path} got no answer within ${timeoutMs} ms.`);
    this.timeoutMs = timeoutMs;
  }
}

/** The workspace asked to wait longer than the client is willing to block a tool call. */
export class RateLimitWaitTooLongError extends Error {
  override name = 'RateLimitWaitTooLongError';
  readonly retryAfterSeconds: number;
  readonly capSeconds: number;
  constructor(retryAfterSeconds: number, capSeconds: number) {
    super(
      `The workspace rate limit is reached and asks to wait ${retryAfterSeconds} s before the next request, ` +
        `more than the ${capSeconds} s this client waits. Try again in ${retryAfterSeconds} s.`,
    );
    this.retryAfterSeconds = retryAfterSeconds;
    this.capSeconds = capSeconds;
  }
}

/**
 * The rate budget has no slot for this call within the bound a call waits (WORKSPACE_MAX_BUDGET_WAIT):
 * it is answered at once, or when the bound runs out in the queue, and nothing was sent. Safe to call
 * again after `retryAfterSeconds`, writes included.
 */
export class BudgetWaitTooLongError extends Error {
  override name = 'BudgetWaitTooLongError';
  /** When the next slot is expected to open, in seconds from the refusal (at least 1). */
  readonly retryAfterSeconds: number;
  /** The bound a call waits for a slot, in seconds. */
  readonly boundSeconds: number;
  /** How long the call waited in the queue before the refusal (0: refused at once). */
  readonly waitedMs: number;
  constructor(retryAfterMs: number, boundMs: number, waitedMs: number) {
    const retry = Math.max(1, Math.ceil(retryAfterMs / 1000));
    const bound = Math.round(boundMs / 100) / 10;
    super(
      `The rate budget of this workspace token is spent for now: the next request slot opens in about ${retry} s, ` +
        `${waitedMs > 0 ? `and this call already waited the ${bound} s a call may wait for one` : `later than the ${bound} s a call may wait for one`}. ` +
        `Nothing was sent to the workspace. Call again in ${retry} s.`,
    );
    this.retryAfterSeconds = retry;
    this.boundSeconds = bound;
    this.waitedMs = waitedMs;
  }
}

/** An argument that would change which endpoint is hit, or is missing; thrown before anything is sent. */
export class InvalidArgumentError extends Error {
  override name = 'InvalidArgumentError';
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.field = field;
  }
}

/** The caller's cancellation as an Error named AbortError, whatever reason the signal carries. */
export function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return new DOMException(typeof reason === 'string' ? reason : 'The request was cancelled.', 'AbortError');
}
