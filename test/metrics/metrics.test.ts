// The metrics' own counts, from the parts that publish them: the API client's answers (a 429 among
// them) and the rate budget's waits and refusals, over real HTTP to a fake workspace; each server's
// registry its own, so two in one process count apart; only GET /metrics is served.
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { RateLimiter } from '../../src/api/limiter.js';
import { createLogger } from '../../src/log.js';
import { type Metrics, startMetrics } from '../../src/metrics/metrics.js';
import { fakeWorkspace, sendJson } from '../api/fake-workspace.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

const { logger } = createLogger('silent');

async function metrics(): Promise<Metrics> {
  const m = await startMetrics({ host: '127.0.0.1', port: 0, logger });
  cleanups.push(() => m.close());
  return m;
}

/** The value of one sample line (`name{labels} value`), 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describe('operator metrics', () => {
  it('count the workspace answers and its 429s, the waits for the budget and its refusals', async () => {
    const m = await metrics();
    let first = true;
    const ws = await fakeWorkspace((_hit, res) => {
      if (first) {
        first = false;
        sendJson(res, 429, { code: 'rate.limited', message: 'Too many requests.', details: {} }, { 'retry-after': '0' });
        return;
      }
      sendJson(res, 200, { data: { ok: true } });
    });
    cleanups.push(() => ws.close());
    const limiter = new RateLimiter({ limit: 1, windowMs: 300 });
    const client = new ApiClient({ baseUrl: ws.api, token: () => 'pat_metrics_test', limiter, retry: { maxBudgetWaitMs: 5_000 } });
    cleanups.push(() => client.close());
    // A 429 waited out, then a call that waits for the window.
    await client.request({ method: 'GET', path: '/workspace' });
    await client.request({ method: 'GET', path: '/workspace' });
    // And a call that would wait past its bound: refused, nothing sent.
    await expect(limiter.schedule(async () => {}, { maxWaitMs: 1 })).rejects.toThrow(/Nothing was sent/);

    const res = await fetch(m.url);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(sample(text, 'wcm_upstream_rate_limited_total')).toBe(1);
    expect(sample(text, 'wcm_upstream_responses_total{class="4xx"}')).toBe(1);
    expect(sample(text, 'wcm_upstream_responses_total{class="2xx"}')).toBe(2);
    expect(sample(text, 'wcm_budget_waits_total')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'wcm_budget_refusals_total')).toBe(1);
    expect(ws.hits).toHaveLength(3);
  });

  it('each server counts in its own registry, and unknown tool names do not grow the labels past a bound', async () => {
    const a = await metrics();
    const b = await metrics();
    a.emit({ event: 'sign_in', member: 'member:x', client: 'c', outcome: 'ok' });
    a.redisError();
    b.countSessions(() => 7);
    for (let i = 0; i < 400; i++) {
      a.emit({
        event: 'tool_call',
        request_id: String(i),
        rpc_id: i,
        member: 'local',
        client: 'c',
        tool: `made_up_${i}`,
        operation: null,
        ids: {},
        outcome: 'refused',
        status: null,
        duration_ms: 1,
      });
    }
    const [ta, tb] = [await a.text(), await b.text()];
    expect(sample(ta, 'wcm_sign_ins_total{outcome="ok"}')).toBe(1);
    expect(sample(tb, 'wcm_sign_ins_total{outcome="ok"}')).toBe(0);
    expect(sample(ta, 'wcm_redis_errors_total')).toBe(1);
    expect(sample(tb, 'wcm_redis_errors_total')).toBe(0);
    expect(sample(tb, 'wcm_sessions')).toBe(7);
    const toolSeries = ta.split('\n').filter((l) => l.startsWith('wcm_tool_calls_total{'));
    expect(toolSeries.length).toBeLessThanOrEqual(301);
    expect(sample(ta, 'wcm_tool_calls_total{tool="other",outcome="refused"}')).toBe(100);
  });

  it('serves GET /metrics only', async () => {
    const m = await metrics();
    expect((await fetch(new URL('/', m.url))).status).toBe(404);
    expect((await fetch(m.url, { method: 'POST' })).status).toBe(404);
  });
});
