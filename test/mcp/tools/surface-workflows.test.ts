// Workflow tools over real HTTP: each is several API calls, and says exactly what it did.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGAGEMENT_AP } from '../../../src/sandbox/data/ids.js';
import type { SandboxHandle } from '../../../src/sandbox/index.js';
import { type Stack, startDefaultStack, stopDefaultStack, textOf } from '../../helpers/stack.js';

type Finding = { id: string; type: string; review_status: string };

let sandbox: SandboxHandle;
let stack: Stack;
beforeAll(async () => {
  ({ sandbox, stack } = await startDefaultStack());
});
afterAll(() => stopDefaultStack({ sandbox, stack }));

async function findings(): Promise<Finding[]> {
  const res = await stack.api.request({
    method: 'GET',
    path: '/engagements/{engagement}/findings',
    pathParams: { engagement: ENGAGEMENT_AP },
    query: { limit: 200 },
  });
  return res.data as Finding[];
}

function tally(items: Finding[], key: 'type' | 'review_status'): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of items) out[f[key]] = (out[f[key]] ?? 0) + 1;
  return out;
}

const apiCalls = () => sandbox.requests().filter((r) => r.path.startsWith('/api/v1/') && !r.path.endsWith('/openapi.json'));

describe('engagement_overview', () => {
  it('gathers the engagement, coverage, finding counts, open contradictions, latest run and deliverable stage', async () => {
    sandbox.clearRequests();
    const r = await stack.call('engagement_overview', { engagement: ENGAGEMENT_AP });
    const made = apiCalls();
    expect(r.isError).toBeFalsy();
    const o = r.structuredContent as {
      engagement: { id: string; name: string };
      coverage: { interviews: unknown[] };
      findings: { total: number; by_type: Record<string, number>; by_review_status: Record<string, number> };
      contradictions: { open: number; items: { status: string }[] };
      latest_analysis_run: { status: string } | null;
      deliverable: { stage: string };
      ai_cost: { total_eur: number };
    };
    const all = await findings();
    expect(o.engagement.id).toBe(ENGAGEMENT_AP);
    expect(o.engagement.name).toBeTruthy();
    expect(o.coverage.interviews.length).toBeGreaterThan(0);
    expect(o.findings.total).toBe(all.length);
    expect(o.findings.by_type).toEqual(tally(all, 'type'));
    expect(o.findings.by_review_status).toEqual(tally(all, 'review_status'));
    expect(o.contradictions.open).toBe(o.contradictions.items.length);
    for (const c of o.contradictions.items) expect(c.status).toBe('open');
    expect(o.latest_analysis_run?.status).toBeTruthy();
    expect(['interim', 'final']).toContain(o.deliverable.stage);
    // Five requests, each one endpoint: the engagement, the summary (which also counts the findings
    // and names the latest run, so neither is listed again), the contradictions, the draft and the
    // AI cost (the dashboard's last tile).
    expect(made.map((q) => q.template).sort()).toEqual([
      '/engagements/{engagement}',
      '/engagements/{engagement}/analysis/summary',
      '/engagements/{engagement}/contradictions',
      '/engagements/{engagement}/costs',
      '/engagements/{engagement}/deliverable/draft',
    ]);
    expect(o.ai_cost.total_eur).toBeGreaterThan(0);
    expect(r.content.some((c) => c.type === 'resource_link' && c.uri === `workspace://engagements/${ENGAGEMENT_AP}`)).toBe(true);
  });

  it('an unknown engagement is one clear error, not six failures', async () => {
    const r = await stack.call('engagement_overview', { engagement: '01ZZZZZZZZZZZZZZZZZZZZZZZZ' });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/was not found in this workspace/);
  });
});

describe('review_findings', () => {
  it('applies each review, and reports per finding what was applied and what failed', async () => {
    const proposed = (await findings()).filter((f) => f.review_status === 'proposed').slice(0, 2);
    expect(proposed).toHaveLength(2);
    const unknown = '01ZZZZZZZZZZZZZZZZZZZZZZZZ';
    const r = await stack.call('review_findings', {
      engagement: ENGAGEMENT_AP,
      reviews: [
        { finding: proposed[0]!.id, review_status: 'validated' },
        { finding: unknown, review_status: 'validated' },
        { finding: proposed[1]!.id, review_status: 'rejected' },
      ],
    });
    const sc = r.structuredContent as { applied: number; failed: number; results: { finding: string; ok: boolean; error?: string }[] };
    expect(sc.applied).toBe(2);
    expect(sc.failed).toBe(1);
    expect(sc.results.map((x) => [x.finding, x.ok])).toEqual([
      [proposed[0]!.id, true],
      [unknown, false],
      [proposed[1]!.id, true],
    ]);
    expect(sc.results[1]!.error).toMatch(/HTTP 404/);
    expect(textOf(r)).toMatch(/2 of 3 reviews applied; 1 failed/);
    expect(textOf(r)).toContain(`${unknown}: NOT applied`);
    // What the tool says was applied is what the workspace now holds.
    const after = new Map((await findings()).map((f) => [f.id, f.review_status]));
    expect(after.get(proposed[0]!.id)).toBe('validated');
    expect(after.get(proposed[1]!.id)).toBe('rejected');
  });

  it('refuses a finding given twice before sending anything', async () => {
    sandbox.clearRequests();
    const id = (await findings())[0]!.id;
    sandbox.clearRequests();
    const r = await stack.call('review_findings', {
      engagement: ENGAGEMENT_AP,
      reviews: [
        { finding: id, review_status: 'validated' },
        { finding: id, review_status: 'rejected' },
      ],
    });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/appears more than once/);
    expect(apiCalls()).toHaveLength(0);
  });
});

describe('document_context', () => {
  it('returns the document with its concurrency token, the validated findings to cite and the draft stage', async () => {
    const r = await stack.call('document_context', { engagement: ENGAGEMENT_AP, kind: 'executive_summary' });
    expect(r.isError, textOf(r)).toBeFalsy();
    const sc = r.structuredContent as { document: { updated_at: string }; findings: { validated: { id: string }[] }; draft: { stage: string } };
    expect(sc.document.updated_at).toBeTruthy();
    const validated = (await findings()).filter((f) => f.review_status === 'validated').map((f) => f.id);
    expect(sc.findings.validated.map((f) => f.id).sort()).toEqual(validated.sort());
    expect(['interim', 'final']).toContain(sc.draft.stage);
  });
});
