// The apps' tools as the model and a host without apps see them: the board's filters and its
// read-only answer, the preview's few reads and its text outline, and the tools the board's view
// calls staying callable where the view runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGAGEMENT_AP } from '../../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { type Stack, startStack, textOf } from '../../helpers/stack.js';

let sandbox: SandboxHandle;
let stack: Stack;
const DEFAULT = { WORKSPACE_TOOLSETS: 'default' };

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  stack = await startStack({ sandboxHandle: sandbox, env: DEFAULT });
});
afterAll(async () => {
  await stack?.close();
  await sandbox?.close();
});

const apiCalls = (from: number) =>
  sandbox
    .requests()
    .slice(from)
    .filter((r) => r.path.startsWith('/api/v1/') && !r.path.endsWith('/openapi.json'));
type Board = { findings: { type: string; review_status: string }[]; total: number; can_write: boolean; filter: { review_status: string; type: string | null } };

describe('review_board', () => {
  it('filters by review status and by type', async () => {
    const validated = (await stack.call('review_board', { engagement: ENGAGEMENT_AP, review_status: 'validated' })).structuredContent as Board;
    expect(validated.findings.length).toBeGreaterThan(0);
    for (const f of validated.findings) expect(f.review_status).toBe('validated');
    const irritants = (await stack.call('review_board', { engagement: ENGAGEMENT_AP, type: 'irritant' })).structuredContent as Board;
    expect(irritants.filter).toEqual({ review_status: 'proposed', type: 'irritant' });
    expect(irritants.findings.length).toBeGreaterThan(0);
    for (const f of irritants.findings) expect([f.type, f.review_status]).toEqual(['irritant', 'proposed']);
  });

  it('in read-only mode offers no decision, to the view (can_write) and in the text', async () => {
    const ro = await startStack({ sandboxHandle: sandbox, env: { ...DEFAULT, WORKSPACE_READ_ONLY: 'true' } });
    try {
      const r = await ro.call('review_board', { engagement: ENGAGEMENT_AP });
      expect((r.structuredContent as Board).can_write).toBe(false);
      expect(textOf(r)).toContain('read-only');
      expect(textOf(r)).not.toContain('review_findings');
    } finally {
      await ro.close();
    }
  });

  it('cuts its text at a finding within the response budget, saying how many were left out, and still gives the view every card', async () => {
    const small = await startStack({ sandboxHandle: sandbox, env: { ...DEFAULT, WORKSPACE_RESPONSE_BUDGET: '500' } });
    try {
      const r = await small.call('review_board', { engagement: ENGAGEMENT_AP });
      const board = r.structuredContent as Board;
      const listed = textOf(r)
        .split('\n')
        .filter((l) => l.startsWith('- '));
      expect(listed.length).toBeGreaterThan(0);
      expect(listed.length).toBeLessThan(board.total);
      expect(textOf(r)).toContain(`(${board.total - listed.length} more not shown here`);
      expect(board.findings.length).toBe(board.total);
    } finally {
      await small.close();
    }
  });

  it('an unknown engagement is one clear error', async () => {
    const r = await stack.call('review_board', { engagement: '01ZZZZZZZZZZZZZZZZZZZZZZZZ' });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain('was not found');
  });

  it('keeps the tools its view calls (review_findings, update_finding, review_board) on the default surface, where a host lets a view call them', async () => {
    // A host lets a view call only the server's listed tools: if one left the default surface, it
    // would have to stay listed with _meta.ui.visibility ["app"] for the board to keep working.
    const names = (await stack.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['review_board', 'review_findings', 'update_finding']));
  });
});

describe('preview_deliverable_document', () => {
  it('reads only what the blocks need: a roadmap asks for no summary and no contradictions', async () => {
    const before = sandbox.requests().length;
    const r = await stack.call('preview_deliverable_document', { engagement: ENGAGEMENT_AP, kind: 'roadmap' });
    expect(r.isError).toBeFalsy();
    expect(
      apiCalls(before)
        .map((q) => q.template)
        .sort(),
    ).toEqual(['/engagements/{engagement}/deliverable/documents', '/engagements/{engagement}/findings', '/engagements/{engagement}/interviews']);
  });

  it('answers a host without apps with the outline, and says when a document is left out of the deliverable', async () => {
    const r = await stack.call('preview_deliverable_document', { engagement: ENGAGEMENT_AP, kind: 'interim_insights' });
    const text = textOf(r);
    expect(text).toContain('excluded from the deliverable');
    expect(text).toMatch(/^- message: /m);
    expect(text).toMatch(/^Included documents: .*executive_summary/m);
    const sc = r.structuredContent as { document: { included: boolean; blocks: unknown[] } };
    expect(sc.document.included).toBe(false);
    expect(sc.document.blocks.length).toBeGreaterThan(0);
  });

  it('resolves the findings and evidences the blocks cite, and the figures of the topic coverage chart', async () => {
    const summary = (await stack.call('preview_deliverable_document', { engagement: ENGAGEMENT_AP, kind: 'executive_summary' })).structuredContent as {
      document: { blocks: { type: string; evidence_id?: string; refs?: { type: string; id: string }[] }[] };
      records: { finding: Record<string, { statement: string }>; evidence: Record<string, { excerpt: string }> };
    };
    const quoted = summary.document.blocks.find((b) => b.type === 'quote')?.evidence_id as string;
    expect(summary.records.evidence[quoted]?.excerpt).toBeTruthy();
    const cited = summary.document.blocks.flatMap((b) => b.refs ?? []).filter((x) => x.type === 'finding');
    expect(cited.length).toBeGreaterThan(0);
    for (const c of cited) expect(summary.records.finding[c.id]?.statement).toBeTruthy();
    const coverage = (await stack.call('preview_deliverable_document', { engagement: ENGAGEMENT_AP, kind: 'coverage' })).structuredContent as {
      data: { topics: { topic: string; findings: number }[]; interviews: unknown[] };
    };
    expect(coverage.data.topics.length).toBeGreaterThan(0);
    expect(coverage.data.interviews.length).toBeGreaterThan(0);
  });
});
