// 120 requests per rolling minute per token, as the spec says; the window is scaled by the sandbox's
// time scale so a test can exhaust and recover the budget in milliseconds.
import { ApiError } from './types.js';

export const RATE_LIMIT = 120;
export const RATE_WINDOW_MS = 60_000;

interface RateDecision {
  allowed: boolean;
  remaining: number;
  /** Seconds until a request would be accepted again (refusals only). */
  retryAfterS: number;
}

/** The sandbox's per-token rolling windows that answer 429 (the server's own limiter is src/api/limiter.ts). */
export class TokenRateWindows {
  private readonly hits = new Map<string, number[]>();

  constructor(
    private readonly windowMs: number,
    private readonly limit = RATE_LIMIT,
  ) {}

  /** Count one request of `key` at `now`; refused requests are not counted against the window. */
  take(key: string, now: number): RateDecision {
    let list = this.hits.get(key);
    if (!list) {
      list = [];
      this.hits.set(key, list);
    }
    const from = now - this.windowMs;
    let drop = 0;
    while (drop < list.length && (list[drop] as number) <= from) drop++;
    if (drop) list.splice(0, drop);
    if (list.length >= this.limit) {
      const oldest = list[0] as number;
      return { allowed: false, remaining: 0, retryAfterS: Math.max(0, oldest + this.windowMs - now) / 1000 };
    }
    list.push(now);
    return { allowed: true, remaining: this.limit - list.length, retryAfterS: 0 };
  }

  clear(): void {
    this.hits.clear();
  }
}

/**
 * Retry-After in seconds: a whole number (rounded up) at real speed, as HTTP expects; with a time
 * scale the wait is often well under a second, so it is given as a decimal with 3 places.
 */
export function formatRetryAfter(seconds: number, timeScale: number): string {
  return timeScale === 1 ? String(Math.max(1, Math.ceil(seconds))) : Math.max(0.001, seconds).toFixed(3);
}

export const rateLimited = (limit: number, retryAfter: string) =>
  new ApiError(
    429,
    'rate.limited',
    {
      en: `Too many requests: at most ${limit} per minute per token. Retry after ${retryAfter} s.`,
      fr: `Trop de requêtes : au plus ${limit} par minute et par jeton. Réessayez dans ${retryAfter} s.`,
    },
    { limit, retry_after: Number(retryAfter) },
    { 'Retry-After': retryAfter, 'X-RateLimit-Limit': String(limit), 'X-RateLimit-Remaining': '0' },
  );
