// The state store: what outlives one request and may be shared between processes and replicas (rate
// budgets, job handles, OAuth transactions and grants, sealed workspace tokens, the cached live
// description), in memory, SQLite or Redis (src/store/open.ts picks one), each also keeping the
// sliding windows of src/store/windows.ts. It knows nothing of MCP or HTTP. What is stored where, and
// how: SECURITY.md, "State shared between processes". Values are strings: callers serialise (and seal
// what is secret) before storing. Keys are namespaced by the caller (`grant:...`, `budget:...`).

/**
 * The store could not be reached (Redis down or restarting): nothing was decided, the same request
 * later may well succeed. Servers answer it as retryable (503 with Retry-After), never as a failure
 * of the request itself; a backend's own refusals (a script error) are not this.
 */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
}

/** The store was closed (the process is shutting down): nothing failed, there is nothing more to write. */
export class StoreClosedError extends Error {
  override name = 'StoreClosedError';
}

/** Is `err`, or an error it was caused by, the store being unreachable? */
export function isStoreUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) if (e instanceof StoreUnavailableError) return true;
  return false;
}

export interface SetOptions {
  /** Time to live in milliseconds; the value is gone after it. Unset: kept until deleted. */
  ttlMs?: number;
}

export interface StateStore {
  /** The value at `key`, or undefined (absent or expired). */
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, opts?: SetOptions): Promise<void>;
  /** Set only when absent (atomic); true when this call set it. */
  setIfAbsent(key: string, value: string, opts?: SetOptions): Promise<boolean>;
  /** Read and delete in one step (atomic): a one-time value (authorization code) is taken once. */
  take(key: string): Promise<string | undefined>;
  /**
   * Replace the value only when it still equals `expected` (undefined: absent); `value` undefined
   * deletes. Atomic: of two processes racing on one refresh token, exactly one wins.
   */
  compareAndSet(key: string, expected: string | undefined, value: string | undefined, opts?: SetOptions): Promise<boolean>;
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}
