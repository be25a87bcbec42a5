// The poll share of the rate budget, counted where it matters: on the sandbox's request log.
// Stated rule (docs/architecture.md, Rate budget): all polls together at most 25% of the token's requests in any
// rolling window, one job at most once per window / (limit x 25%). With WORKSPACE_RATE_LIMIT
// 120/0.6 (the API's budget on the sandbox's scaled clock): 30 polls per 0.6 s, one job every 20 ms.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POLL_SHARE } from '../../../../src/api/limiter.js';
import { ENGAGEMENT_AP } from '../../../../src/sandbox/data/ids.js';
import { type Stack, startStack } from '../../../helpers/stack.js';

const LIMIT = 120;
const WINDOW_MS = 600;
const POLL_PATH = '/engagements/{engagement}/exports/{export}';

let stack: Stack;
beforeAll(async () => {
  // timeScale 0.2: an export lasts 1.6 s, long enough for ten of them to press on the share.
  stack = await startStack({
    sandbox: { timeScale: 0.2 },
    env: { WORKSPACE_RATE_LIMIT: `${LIMIT}/${WINDOW_MS / 1000}`, WORKSPACE_JOB_WAIT_SECONDS: '30' },
  });
});
afterAll(() => stack.close());

/** The most entries of `times` (ms, sorted) inside any window of `windowMs`. */
function busiestWindow(times: number[], windowMs: number): number {
  let best = 0;
  let start = 0;
  for (let end = 0; end < times.length; end++) {
    while (times[end]! - times[start]! >= windowMs) start++;
    best = Math.max(best, end - start + 1);
  }
  return best;
}

describe('polling spends at most its share of the rate budget', () => {
  it('ten exports followed at once: at most 25% of the budget in any window, each job spaced', async () => {
    stack.sandbox.clearRequests();
    const results = await Promise.all(Array.from({ length: 10 }, () => stack.call('create_export', { engagement: ENGAGEMENT_AP, kind: 'findings_csv' })));
    for (const r of results) expect((r.structuredContent as { state: string }).state).toBe('succeeded');

    const polls = stack.sandbox.requests().filter((q) => q.method === 'GET' && q.template === POLL_PATH);
    const times = polls.map((q) => Date.parse(q.time)).sort((a, b) => a - b);
    const share = Math.floor(LIMIT * POLL_SHARE);
    expect(share).toBe(30);
    const busiest = busiestWindow(times, WINDOW_MS);
    expect(busiest).toBeLessThanOrEqual(share);
    // The gate was really pressed (ten jobs would poll far more often without it).
    expect(busiest).toBeGreaterThanOrEqual(share * 0.6);

    // Per job: never two polls closer than window / share (20 ms), with 5 ms for clock granularity.
    const byJob = new Map<string, number[]>();
    for (const q of polls) byJob.set(q.path, [...(byJob.get(q.path) ?? []), Date.parse(q.time)]);
    expect(byJob.size).toBe(10);
    for (const ts of byJob.values()) {
      ts.sort((a, b) => a - b);
      for (let i = 1; i < ts.length; i++) expect(ts[i]! - ts[i - 1]!).toBeGreaterThanOrEqual(WINDOW_MS / share - 5);
    }
  });

  it('one job backs off: its gaps grow x1.5 up to a sixth of the window', async () => {
    stack.sandbox.clearRequests();
    const r = await stack.call('create_export', { engagement: ENGAGEMENT_AP, kind: 'json_bundle' });
    expect((r.structuredContent as { state: string }).state).toBe('succeeded');
    const ts = stack.sandbox
      .requests()
      .filter((q) => q.method === 'GET' && q.template === POLL_PATH)
      .map((q) => Date.parse(q.time));
    const gaps = ts.slice(1).map((t, i) => t - ts[i]!);
    // 1.6 s polled every 20 ms would be 80 polls; backing off to 100 ms it is about 20.
    expect(ts.length).toBeGreaterThan(5);
    expect(ts.length).toBeLessThanOrEqual(25);
    expect(Math.min(...gaps.slice(-3))).toBeGreaterThanOrEqual(WINDOW_MS / 6 - 10);
  });
});
