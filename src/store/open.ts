// Which store a process uses: Redis when REDIS_URL is given (replicas, or local processes that should
// share with them), else the SQLite store in a folder (the local processes of one member on one
// machine), else memory (one process). The Redis client loads only when chosen: a stdio server
// without REDIS_URL never loads it; the other two are small and load with this module (node:sqlite
// itself only when a folder is opened).
import { join } from 'node:path';
import { MemoryStore } from './memory.js';
import { SqliteStore } from './sqlite.js';
import type { StateStore } from './state-store.js';
import type { SlidingWindowStore } from './windows.js';

/** Every backend is both: key/value state and sliding windows (the rate budgets). */
export type Store = StateStore & SlidingWindowStore;

export interface OpenStoreOptions {
  /**
   * REDIS_URL: redis://[user:password@]host:port[/db] (rediss:// for TLS), or the Sentinels and the
   * name of the master they watch, redis-sentinel://[user:password@]host:port,.../name[/db]. Wins over `dir`.
   */
  redisUrl?: string | undefined;
  /** A folder for the SQLite store, created owner-only (0700) if missing; e.g. `<config dir>/state`. */
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
  if (opts.dir) return SqliteStore.open(opts.dir);
  return new MemoryStore();
}

/**
 * The store of a local server (stdio, or --http on loopback): Redis when `redisUrl` (REDIS_URL) is
 * set, else the SQLite store in `<configDir>/state`, which every local process of the member shares
 * (several assistant windows on one token: one exact budget). A folder that cannot be used costs the
 * sharing, not the server: `warn` is told and the store is this process's memory. An unreachable
 * Redis rejects (RedisUnavailableError: it was asked for); a RateLimiter handed this promise reports
 * that through its onStoreError and counts alone.
 */
export async function openLocalStore(opts: { redisUrl?: string | undefined; configDir: string; warn?: (message: string) => void }): Promise<Store> {
  if (opts.redisUrl) return openStore({ redisUrl: opts.redisUrl });
  const dir = join(opts.configDir, 'state');
  try {
    return await openStore({ dir });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
    opts.warn?.(`Cannot use ${dir} for the shared rate budget (${code}): this process counts its own requests only.`);
    return openStore({});
  }
}
