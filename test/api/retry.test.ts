// The retry decision (src/api/retry.ts) as a table: a method, what its attempt came to and what the
// call did so far, and what happens next (docs/architecture.md, Writes and retries). A write is sent
// again only when it cannot have been applied.
import { describe, expect, it } from 'vitest';
import { type Attempt, type Decision, decideRetry, type Outcome, type RetryLimits } from '../../src/api/retry.js';
import type { HttpMethod } from '../../src/operation.js';

const LIMITS: RetryLimits = { maxNetworkRetries: 2, max429Retries: 5, maxRetryAfterSeconds: 120, backoffBaseMs: 100, canRefresh: true };

const reset: Outcome = { kind: 'no-answer', notSent: false, stale: false, timedOut: false };
const refused: Outcome = { kind: 'no-answer', notSent: true, stale: false, timedOut: false };
const stale: Outcome = { kind: 'no-answer', notSent: false, stale: true, timedOut: false };
const timedOut: Outcome = { kind: 'no-answer', notSent: false, stale: false, timedOut: true };
const status = (s: number, retryAfterSeconds?: number): Outcome => ({
  kind: 'answer',
  status: s,
  ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
});
const cut: Outcome = { kind: 'answer', status: 200, unreadable: true };

interface Row {
  method: HttpMethod;
  outcome: Outcome;
  /** What the call did before this attempt (default: nothing). */
  before?: Partial<Omit<Attempt, 'method' | 'outcome'>>;
  limits?: Partial<RetryLimits>;
  decision: Decision;
}

// Jitter 0: a backoff is half its step (base x 2^retries), the bottom of its range.
const TABLE: Array<[string, Row]> = [
  ['a success is returned', { method: 'GET', outcome: status(200), decision: { action: 'return' } }],
  ['a write answered 201 is returned', { method: 'POST', outcome: status(201), decision: { action: 'return' } }],
  // No answer.
  [
    'a read whose connection was reset goes again after a backoff',
    { method: 'GET', outcome: reset, decision: { action: 'retry', kind: 'network', waitMs: 50, mayHaveApplied: true } },
  ],
  [
    'the second network retry backs off twice as long',
    {
      method: 'GET',
      outcome: reset,
      before: { retries: { network: 1, rateLimit: 0, stale: 0 } },
      decision: { action: 'retry', kind: 'network', waitMs: 100, mayHaveApplied: true },
    },
  ],
  [
    'a read out of network retries fails',
    { method: 'GET', outcome: reset, before: { retries: { network: 2, rateLimit: 0, stale: 0 } }, decision: { action: 'fail' } },
  ],
  ['a POST whose connection was reset is not sent again', { method: 'POST', outcome: reset, decision: { action: 'outcome-unknown' } }],
  ['a PATCH that timed out is not sent again', { method: 'PATCH', outcome: timedOut, decision: { action: 'outcome-unknown' } }],
  ['a read that timed out goes again', { method: 'GET', outcome: timedOut, decision: { action: 'retry', kind: 'network', waitMs: 50, mayHaveApplied: true } }],
  [
    'a POST refused before any connection goes again: nothing was sent',
    { method: 'POST', outcome: refused, decision: { action: 'retry', kind: 'network', waitMs: 50, mayHaveApplied: false } },
  ],
  [
    'a read on a reused connection that failed before any byte of the answer goes again at once',
    { method: 'GET', outcome: stale, limits: { maxNetworkRetries: 0 }, decision: { action: 'retry', kind: 'stale', waitMs: 0, mayHaveApplied: true } },
  ],
  [
    'a second stale connection in one call is a network failure like any',
    {
      method: 'GET',
      outcome: stale,
      before: { retries: { network: 0, rateLimit: 0, stale: 1 } },
      decision: { action: 'retry', kind: 'network', waitMs: 50, mayHaveApplied: true },
    },
  ],
  ['a POST on a reused connection that failed before any byte is not sent again', { method: 'POST', outcome: stale, decision: { action: 'outcome-unknown' } }],
  // Gateways.
  ['a read answered 502 goes again', { method: 'GET', outcome: status(502), decision: { action: 'retry', kind: 'network', waitMs: 50, mayHaveApplied: true } }],
  [
    'a read answered 503 with Retry-After waits that long',
    { method: 'GET', outcome: status(503, 3), decision: { action: 'retry', kind: 'network', waitMs: 3_000, mayHaveApplied: true } },
  ],
  [
    'a 503 whose Retry-After passes the cap backs off instead',
    { method: 'PUT', outcome: status(503, 600), decision: { action: 'retry', kind: 'network', waitMs: 50, mayHaveApplied: true } },
  ],
  ['a POST answered 504 is not sent again', { method: 'POST', outcome: status(504), decision: { action: 'outcome-unknown' } }],
  [
    'a DELETE out of retries fails with the 503',
    { method: 'DELETE', outcome: status(503), before: { retries: { network: 2, rateLimit: 0, stale: 0 } }, decision: { action: 'fail' } },
  ],
  // Answers cut short.
  [
    'a read whose success came cut goes again',
    { method: 'GET', outcome: cut, decision: { action: 'retry', kind: 'network', waitMs: 50, mayHaveApplied: true } },
  ],
  ['a write whose success came cut was applied: not sent again', { method: 'POST', outcome: cut, decision: { action: 'outcome-unknown' } }],
  // 429.
  [
    'a 429 is waited out for its Retry-After, a write included',
    { method: 'POST', outcome: status(429, 2), decision: { action: 'retry', kind: 'rateLimit', waitMs: 2_000, mayHaveApplied: false } },
  ],
  [
    'a 429 without Retry-After waits a second',
    { method: 'GET', outcome: status(429), decision: { action: 'retry', kind: 'rateLimit', waitMs: 1_000, mayHaveApplied: false } },
  ],
  [
    'a Retry-After past the cap is said at once',
    { method: 'GET', outcome: status(429, 300), decision: { action: 'wait-too-long', retryAfterSeconds: 300, capSeconds: 120 } },
  ],
  [
    "a Retry-After past what the call may still wait for the budget is said at once, in the call's seconds",
    { method: 'GET', outcome: status(429, 10), before: { budgetLeftMs: 4_200 }, decision: { action: 'wait-too-long', retryAfterSeconds: 10, capSeconds: 5 } },
  ],
  [
    'a 429 after the last allowed wait fails with it',
    { method: 'GET', outcome: status(429, 1), before: { retries: { network: 0, rateLimit: 5, stale: 0 } }, decision: { action: 'fail' } },
  ],
  // 401 and the rest.
  ['a 401 asks for a refreshed token', { method: 'GET', outcome: status(401), decision: { action: 'refresh' } }],
  ['a second 401 after a refresh fails', { method: 'GET', outcome: status(401), before: { refreshed: true }, decision: { action: 'fail' } }],
  ['a 401 without a way to refresh fails', { method: 'GET', outcome: status(401), limits: { canRefresh: false }, decision: { action: 'fail' } }],
  ['a 422 fails at once', { method: 'POST', outcome: status(422), decision: { action: 'fail' } }],
  // A DELETE that may have been applied.
  [
    'a DELETE sent again after a lost answer that finds nothing is already gone',
    { method: 'DELETE', outcome: status(404), before: { mayHaveApplied: true }, decision: { action: 'already-gone' } },
  ],
  [
    'a DELETE answered 410 after a 502 is already gone',
    { method: 'DELETE', outcome: status(410), before: { mayHaveApplied: true }, decision: { action: 'already-gone' } },
  ],
  ['a DELETE of an id that never existed is not found', { method: 'DELETE', outcome: status(404), decision: { action: 'fail' } }],
];

describe('the retry decision', () => {
  it.each(TABLE)('%s', (_, row) => {
    const attempt: Attempt = {
      method: row.method,
      outcome: row.outcome,
      retries: { network: 0, rateLimit: 0, stale: 0 },
      refreshed: false,
      mayHaveApplied: false,
      budgetLeftMs: 30_000,
      jitter: 0,
      ...row.before,
    };
    expect(decideRetry(attempt, { ...LIMITS, ...row.limits })).toEqual(row.decision);
  });

  it('spreads backoffs over the upper half of their step with the jitter', () => {
    const attempt = (jitter: number): Attempt => ({
      method: 'GET',
      outcome: reset,
      retries: { network: 1, rateLimit: 0, stale: 0 },
      refreshed: false,
      mayHaveApplied: false,
      budgetLeftMs: 30_000,
      jitter,
    });
    expect(decideRetry(attempt(0), LIMITS)).toMatchObject({ waitMs: 100 });
    expect(decideRetry(attempt(1), LIMITS)).toMatchObject({ waitMs: 200 });
  });
});
