// Usage and cost, and compliance documents, over real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPLIANCE_DPA, COMPLIANCE_WHITEPAPER } from '../../../src/sandbox/data/privacy.js';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { api, checkPdfXref, ENGAGEMENT, parseCsv } from '../helpers.js';

let sb: SandboxHandle;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, timeScale: 0.001, rateLimit: false });
});
afterAll(async () => {
  await sb.close();
});

describe('usage entries and totals', () => {
  it('lists 40 seeded entries newest first', async () => {
    const all = (await api(sb, 'GET', '/workspace/usage/entries?limit=200')).json.data;
    expect(all).toHaveLength(40);
    expect(all[0].occurred_at >= all.at(-1).occurred_at).toBe(true);
    for (const e of all)
      expect(e).toEqual(
        expect.objectContaining({ driver: expect.any(String), model: expect.any(String), usage: expect.any(String), cost_eur: expect.any(Number) }),
      );
  });

  it('sums the reporting month in the summary, by usage and by engagement', async () => {
    const entries = (await api(sb, 'GET', '/workspace/usage/entries?limit=200')).json.data;
    const s = (await api(sb, 'GET', '/workspace/usage/summary')).json.data;
    const month = entries.filter((e: any) => e.occurred_at.startsWith(s.period.month));
    const expected = Math.round(month.reduce((t: number, e: any) => t + e.cost_eur, 0) * 100) / 100;
    expect(s.total_eur).toBeCloseTo(expected, 2);
    expect(s.entries_count).toBe(month.length);
    const byUsage = s.by_usage.reduce((t: number, g: any) => t + g.cost_eur, 0);
    expect(byUsage).toBeCloseTo(expected, 1);
    expect(s.by_engagement.find((g: any) => g.engagement_id === ENGAGEMENT).name).toBeTruthy();
    expect(s.budget).toMatchObject({ budget_eur: 500, status: 'warning' });
  });

  it('computes the costs of one engagement, and 404 for an unknown one', async () => {
    const entries = (await api(sb, 'GET', '/workspace/usage/entries?limit=200')).json.data.filter((e: any) => e.engagement_id === ENGAGEMENT);
    const c = (await api(sb, 'GET', `/engagements/${ENGAGEMENT}/costs`)).json.data;
    expect(c.entries_count).toBe(entries.length);
    expect(c.total_eur).toBeCloseTo(
      entries.reduce((t: number, e: any) => t + e.cost_eur, 0),
      1,
    );
    expect(c.by_usage.map((g: any) => g.usage)).toContain('analysis');
    expect((await api(sb, 'GET', '/engagements/01M1D4MS5080000000GGT70VZZ/costs')).status).toBe(404);
  });

  it('shows the month against the budget on the dashboard, with the open alert', async () => {
    const d = (await api(sb, 'GET', '/workspace/usage/dashboard')).json.data;
    expect(d).toMatchObject({ budget_eur: 500, status: 'warning', open_alerts: 1 });
    expect(d.ratio).toBeGreaterThanOrEqual(0.8);
    expect(d.daily.length).toBeGreaterThan(0);
    expect(d.forecast_eur).toBeGreaterThanOrEqual(d.spent_eur);
  });

  it('offers the filter values found in the entries', async () => {
    const o = (await api(sb, 'GET', '/workspace/usage/options')).json.data;
    expect(o.usages).toEqual(expect.arrayContaining(['analysis', 'transcription', 'voice', 'chat']));
    expect(o.engagements).toContainEqual({ id: ENGAGEMENT, name: expect.any(String) });
    expect(o.months.length).toBeGreaterThanOrEqual(2);
  });

  it('exports the entries as a CSV file', async () => {
    const r = await api(sb, 'GET', '/workspace/usage/export');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/csv/);
    expect(String(r.headers['content-disposition'])).toContain('usage-atelier.csv');
    const rows = parseCsv(r.body.toString('utf8').replace(/^\uFEFF/, ''));
    expect(rows[0]).toContain('cost_eur');
    expect(rows).toHaveLength(41);
  });
});

describe('budget and alerts', () => {
  it('acknowledges the alert once; a second acknowledgement keeps the first', async () => {
    const [alert] = (await api(sb, 'GET', '/workspace/usage/alerts')).json.data;
    expect(alert).toMatchObject({ level: 'warning', acknowledged_at: null });
    const first = await api(sb, 'POST', `/workspace/usage/alerts/${alert.id}/acknowledge`);
    expect(first.status).toBe(200);
    expect(first.json.data.acknowledged_at).toBeTruthy();
    const second = await api(sb, 'POST', `/workspace/usage/alerts/${alert.id}/acknowledge`);
    expect(second.json.data.acknowledged_at).toBe(first.json.data.acknowledged_at);
    expect((await api(sb, 'POST', `/workspace/usage/alerts/${ENGAGEMENT}/acknowledge`)).status).toBe(404);
  });

  it('replaces, reads and deletes the budget; after deletion it reads null', async () => {
    expect((await api(sb, 'GET', '/workspace/usage/budget')).json.data).toMatchObject({ monthly_amount: 500, warning_ratio: 0.8 });
    const put = await api(sb, 'PUT', '/workspace/usage/budget', { body: { monthly_amount: 1000 } });
    expect(put.status).toBe(200);
    expect(put.json.data).toMatchObject({ monthly_amount: 1000, warning_ratio: 0.8, include_tests: false });
    expect((await api(sb, 'GET', '/workspace/usage/dashboard')).json.data.status).toBe('ok');
    expect((await api(sb, 'PUT', '/workspace/usage/budget', { body: { monthly_amount: 0 } })).status).toBe(422);
    expect((await api(sb, 'DELETE', '/workspace/usage/budget')).status).toBe(204);
    const after = await api(sb, 'GET', '/workspace/usage/budget');
    expect(after.status).toBe(200);
    expect(after.json.data).toBeNull();
    expect((await api(sb, 'GET', '/workspace/usage/dashboard')).json.data.status).toBe('no_budget');
  });

  it('counts rate-limit refusals in the usage summary', async () => {
    const limited = await startSandbox({ port: 0, timeScale: 1, rateLimit: true });
    try {
      const answers = await Promise.all(Array.from({ length: 125 }, () => api(limited, 'GET', '/ai/voices', { token: limited.tokens.read })));
      const refused = answers.filter((a) => a.status === 429).length;
      expect(refused).toBeGreaterThan(0);
      // The summary is read with the other token, whose own budget is untouched.
      const s = (await api(limited, 'GET', '/workspace/usage/summary')).json.data;
      expect(s.rate_limited_requests).toBe(refused);
    } finally {
      await limited.close();
    }
  });
});

describe('compliance documents', () => {
  it('downloads each compliance document as a valid PDF', async () => {
    for (const id of [COMPLIANCE_DPA, COMPLIANCE_WHITEPAPER]) {
      const r = await api(sb, 'GET', `/compliance-documents/${id}/download`);
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toBe('application/pdf');
      expect(r.body.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      expect(r.body.toString('latin1')).toContain('/Type /Page ');
      checkPdfXref(r.body);
    }
    expect((await api(sb, 'GET', `/compliance-documents/${ENGAGEMENT}/download`)).status).toBe(404);
  });
});
