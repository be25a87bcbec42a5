// Fault injection: the next N matching /api/v1 requests fail in a chosen way, so client retries,
// timeouts and "a write reached the server but its answer was lost" can be tested for real.
import { ApiError } from './types.js';

interface FaultMatch {
  method?: string;
  /** A path template (`/engagements/{engagement}/findings`) or a raw path prefix (`/engagements/01...`), relative to /api/v1. */
  path?: string;
  workspace?: string;
}

export interface FaultSpec {
  count: number;
  status?: number;
  delay_ms?: number;
  /** Destroy the connection without answering. */
  reset?: boolean;
  /** Answer with a JSON body cut in half. */
  broken_body?: boolean;
  /** Retry-After seconds sent with the fault (always sent on 429, default 1). */
  retry_after?: number;
  /** Run the handler first (the write happens), then fail the answer. */
  after_handler?: boolean;
  /**
   * In process only (a function cannot cross the admin API): awaited when the request is taken,
   * before its handler, so a test can land another writer's change between a client's read and its
   * write at exactly that point, with no timing involved. `hungUp` settles when the client closes
   * the request unanswered: awaited, it holds the answer past any timeout of the client's.
   */
  before?: (request: { hungUp: Promise<void> }) => void | Promise<void>;
  match?: FaultMatch;
}

export interface PendingFault extends FaultSpec {
  remaining: number;
}

/** What a fault did, as recorded in the request log. */
export interface FaultRecord {
  status?: number;
  delay_ms?: number;
  reset?: boolean;
  broken_body?: boolean;
  after_handler: boolean;
}

export function checkFaultSpec(x: unknown): FaultSpec {
  const o = (x ?? {}) as Record<string, unknown>;
  const int = (v: unknown, min: number, max: number) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
  if (!int(o.count, 1, 100_000)) throw new TypeError('count must be an integer >= 1');
  if (o.status !== undefined && !int(o.status, 400, 599)) throw new TypeError('status must be an HTTP error status (400-599)');
  if (o.delay_ms !== undefined && !int(o.delay_ms, 0, 600_000)) throw new TypeError('delay_ms must be 0..600000');
  if (o.retry_after !== undefined && !(typeof o.retry_after === 'number' && o.retry_after >= 0)) throw new TypeError('retry_after must be >= 0');
  if (o.before !== undefined && typeof o.before !== 'function') throw new TypeError('before must be a function (in process only)');
  if (o.status === undefined && !o.reset && !o.broken_body && o.delay_ms === undefined && o.before === undefined) {
    throw new TypeError('give at least one of status, reset, broken_body, delay_ms or before');
  }
  const m = (o.match ?? {}) as Record<string, unknown>;
  for (const k of ['method', 'path', 'workspace']) {
    if (m[k] !== undefined && typeof m[k] !== 'string') throw new TypeError(`match.${k} must be a string`);
  }
  return o as unknown as FaultSpec;
}

export class FaultQueue {
  private queue: PendingFault[] = [];

  add(spec: FaultSpec): void {
    this.queue.push({ ...spec, remaining: spec.count });
  }

  clear(): void {
    this.queue = [];
  }

  get pending(): readonly PendingFault[] {
    return this.queue;
  }

  /** Take one use of the first fault matching this request, if any. */
  take(req: { method: string; template: string; rawPath: string; workspace: string }): PendingFault | undefined {
    if (this.queue.length === 0) return undefined;
    const i = this.queue.findIndex((f) => matches(f.match, req));
    if (i < 0) return undefined;
    const f = this.queue[i] as PendingFault;
    if (--f.remaining <= 0) this.queue.splice(i, 1);
    return f;
  }
}

function matches(m: FaultMatch | undefined, req: { method: string; template: string; rawPath: string; workspace: string }): boolean {
  if (!m) return true;
  if (m.method && m.method.toUpperCase() !== req.method) return false;
  if (m.workspace && m.workspace !== req.workspace) return false;
  if (m.path && m.path !== req.template && !req.rawPath.startsWith(m.path)) return false;
  return true;
}

export const injectedFault = (status: number, retryAfter?: number) =>
  new ApiError(
    status,
    status === 429 ? 'rate.limited' : 'sandbox.injected_fault',
    {
      en: `Injected failure (HTTP ${status}) from the sandbox fault queue.`,
      fr: `Échec injecté (HTTP ${status}) par la file de pannes du bac à sable.`,
    },
    {},
    status === 429 || retryAfter !== undefined ? { 'Retry-After': String(retryAfter ?? 1) } : {},
  );
