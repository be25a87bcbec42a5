// Which store a process uses: Redis when REDIS_URL is given (replicas, or local processes that should
// share with them), else the file store in a folder (the local processes of one member on one
// machine), else memory (one process). The backends load only when chosen: a stdio server without
// REDIS_URL never loads the Redis client.
import type { StateStore } from './store.js';
import type { SlidingWindowStore } from './windows.js';

/** Every backend is both: key/value state and sliding windows (the rate budgets). */
export type Store = StateStore & SlidingWindowStore;

export interface OpenStoreOptions {
  /** REDIS_URL: redis://[user:password@]host:port[/db] (rediss:// for TLS). Wins over `dir`. */
  redisUrl?: string | undefined;
  /** A folder for the file store, created owner-only (0700) if missing; e.g. `<config dir>/state`. */
  dir?: string | undefined;
  /** Redis key prefix. Default `wcm:`. */
  prefix?: string;
  /** Redis connection problems after the first connect (the client reconnects meanwhile). */
  onError?: (err: Error) => void;
}

/**
 * Open the store the options name. Rejects with a clear error (RedisUnavailableError, or the file
 * system's error for `dir`) rather than fall back: a replica that silently kept its own budget would
 * break the exactness the others count on.
 */
export async function openStore(opts: OpenStoreOptions = {}): Promise<Store> {
  if (opts.redisUrl) {
    const { RedisStore } = await import('./redis.js');
    return RedisStore.connect(opts.redisUrl, {
      ...(opts.prefix !== undefined ? { prefix: opts.prefix } : {}),
      ...(opts.onError ? { onError: opts.onError } : {}),
    });
  }
  if (opts.dir) {
    const { FileStore } = await import('./file.js');
    return FileStore.open(opts.dir);
  }
  const { MemoryStore } = await import('./memory.js');
  return new MemoryStore();
}
