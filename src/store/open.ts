// Which store a process uses: Redis when REDIS_URL is given (replicas, or local processes that should
// share with them), else the SQLite store in a folder (the local processes of one member on one
// machine), else memory (one process). The Redis client loads only when chosen: a stdio server
// without REDIS_URL never loads it.
import { join } from 'node:path';
import { MemoryStore } from './memory.js';
import { SqliteStore } from './sqlite.js';
import type { StateStore } from './state-store.js';
import type { SlidingWindowStore } from './windows.js';

/** Every backend is both: key/value state and sliding windows (the rate budgets). */
export type Store = StateStore & SlidingWindowStore;

interface OpenStoreOptions {
  /** REDIS_URL: redis://, rediss:// or redis-sentinel:// (docs/deploying.md, "Redis with Sentinel"). Wins over `dir`. */
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
  if (opts.redisUrl) return (await import('./redis.js')).RedisStore.connect(opts.redisUrl, opts);
  if (opts.dir) return SqliteStore.open(opts.dir);
  return new MemoryStore();
}

/**
 * The store of a local server (stdio, or --http on loopback): Redis on `redisUrl`, else the SQLite
 * store in `<configDir>/state`, shared by the member's local processes. A folder that cannot be used
 * costs the sharing, not the server: `warn` is told and the store is this process's memory. An
 * unreachable Redis rejects (it was asked for): a RateLimiter given this promise reports it and counts alone.
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
