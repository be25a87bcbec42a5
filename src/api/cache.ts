// Reference reads (enums, catalogs, price grid) change rarely and cost a request of the rate budget
// each time an assistant looks them up: keep their answers for a while.
import { LRUCache } from 'lru-cache';

interface CachedAnswer {
  status: number;
  data?: unknown;
  meta?: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
}

interface ResponseCacheOptions {
  /** Freshness of an answer. Default 10 minutes. */
  ttlMs?: number;
  /** Entries kept. Default 500. */
  max?: number;
}

/**
 * Answers by key `fingerprint GET url`: the token's fingerprint keeps one member's answers from
 * another's (two tokens may see different data), the full URL keeps the query apart.
 * Cached data is shared between callers: treat it as read-only.
 */
export class ResponseCache {
  readonly #lru: LRUCache<string, CachedAnswer>;

  constructor(opts: ResponseCacheOptions = {}) {
    this.#lru = new LRUCache<string, CachedAnswer>({ max: opts.max ?? 500, ttl: opts.ttlMs ?? 600_000 });
  }

  static key(tokenFingerprint: string, method: string, url: string): string {
    return `${tokenFingerprint} ${method} ${url}`;
  }

  get(key: string): CachedAnswer | undefined {
    return this.#lru.get(key);
  }

  set(key: string, answer: CachedAnswer): void {
    this.#lru.set(key, answer);
  }

  /**
   * Forget the answers under a URL prefix, for a token. A write (PUT /ai/profiles) may change what a
   * cached read of the same area said, and a stale enum list is worse than one more request.
   */
  invalidate(tokenFingerprint: string, urlPrefix: string): void {
    const start = `${tokenFingerprint} GET ${urlPrefix}`;
    // Collected first: deleting while the LRU's iterator walks its list would skip entries.
    const stale = [...this.#lru.keys()].filter((key) => key.startsWith(start));
    for (const key of stale) this.#lru.delete(key);
  }

  clear(): void {
    this.#lru.clear();
  }

  get size(): number {
    return this.#lru.size;
  }
}
