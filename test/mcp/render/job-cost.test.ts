// What the three jobs cost an assistant, run through the real server over stdio against the sandbox
// (bench/jobs.ts scripts them; `npm run bench` prints the table): at most half the result tokens a
// generic bridge's raw JSON costs for the same requests, with every fact the job's answer needs in
// what the assistant read, or one `response_format: "detailed"` call away. And a page of 50 findings
// of the demo engagement in the concise form: under 4,000 tokens, uncut by the default budget.
import { mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { costOf, findingCopy, type JobRun, runJobs, startRecordingProxy } from '../../../bench/jobs.js';
import { DEFAULT_RESPONSE_BUDGET_TOKENS } from '../../../src/mcp/render/index.js';
import { ENGAGEMENT_AP } from '../../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { ROOT } from '../../helpers/spawn.js';
import { startStack, textOf } from '../../helpers/stack.js';

type Rec = Record<string, unknown>;
const SCALE = 0.01; // jobs and the rate window run 100x faster

let sandbox: SandboxHandle;
let proxy: Awaited<ReturnType<typeof startRecordingProxy>>;
let runs: JobRun[];
// The workspace as the jobs found it (the review job changes the findings' counts).
let before: { findings: Rec[]; engagement: Rec; summary: Summary; contradictions: Rec[]; draft: Rec };
type Summary = { findings: { total: number; by_review_status: Rec }; coverage: { interviews: Rec[] }; last_run: Rec };

async function api(path: string): Promise<unknown> {
  const res = await fetch(`${sandbox.api}${path}`, { headers: { authorization: `Bearer ${sandbox.tokens.read}`, accept: 'application/json' } });
  return ((await res.json()) as { data: unknown }).data;
}
const findings = async () => (await api(`/engagements/${ENGAGEMENT_AP}/findings?limit=200`)) as Rec[];

/** Everything the assistant read in one job: the text of each result, links as a client shows them. */
function read(run: JobRun): string {
  return run.calls.flatMap((c) => c.answer.content.map((b) => (b.type === 'text' ? b.text : JSON.stringify(b)))).join('\n');
}

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: true, timeScale: SCALE });
  proxy = await startRecordingProxy(sandbox.url);
  before = {
    findings: await findings(),
    engagement: (await api(`/engagements/${ENGAGEMENT_AP}`)) as Rec,
    summary: (await api(`/engagements/${ENGAGEMENT_AP}/analysis/summary`)) as Summary,
    contradictions: (await api(`/engagements/${ENGAGEMENT_AP}/contradictions`)) as Rec[],
    draft: (await api(`/engagements/${ENGAGEMENT_AP}/deliverable/draft`)) as Rec,
  };
  runs = await runJobs({
    command: process.execPath,
    args: ['--import', 'tsx', join(ROOT, 'src/cli.ts')],
    cwd: ROOT,
    workspaceUrl: proxy.url,
    token: sandbox.tokens.write,
    downloadDir: await mkdtemp(join(tmpdir(), 'wcm-jobs-')),
    log: proxy.log,
    env: { WORKSPACE_RATE_LIMIT: `120/${60 * SCALE}` },
  });
}, 120_000);
afterAll(async () => {
  await proxy?.close();
  await sandbox?.close();
});

describe('the three jobs', () => {
  it('read at most half the result tokens of a bridge answering raw JSON for the same requests', () => {
    const costs = runs.map(costOf);
    expect(costs.map((c) => c.toolCalls)).toEqual([2, 2, 2]);
    const ours = costs.reduce((n, c) => n + c.resultTokens, 0);
    const bridge = costs.reduce((n, c) => n + c.bridge.resultTokens, 0);
    expect(ours).toBeLessThanOrEqual(bridge / 2);
    // Never by answering less: each job's API requests are the bridge's too.
    for (const c of costs) expect(c.bridge.apiRequests).toBe(c.apiRequests);
  });

  it('brief: the engagement, its findings, open contradictions, interviews, latest run and deliverable stage are all in what was read', () => {
    const text = read(runs[0]!);
    const { engagement, summary, contradictions, draft } = before;
    const facts: string[] = [
      String(engagement.name),
      String((engagement.client_company as Rec).name),
      `status: ${engagement.status}`,
      `starts_on: ${engagement.starts_on}`,
      `ends_on: ${engagement.ends_on}`,
      `total: ${summary.findings.total}`,
      ...Object.entries(summary.findings.by_review_status).map(([k, n]) => `${k}: ${n}`),
      ...contradictions.filter((c) => c.status === 'open').flatMap((c) => [String(c.topic), String(c.statement_a), String(c.statement_b)]),
      ...summary.coverage.interviews.map((i) => String(i.interviewee_name)),
      String(summary.last_run.status),
      String(summary.last_run.finished_at),
      `stage: ${draft.stage}`,
    ];
    expect(facts.filter((f) => !text.includes(f))).toEqual([]);
  });

  it('review: every proposed finding with its evidence excerpts was read, and the two validated are validated', async () => {
    const text = read(runs[1]!);
    const proposed = before.findings.filter((f) => f.review_status === 'proposed');
    expect(proposed.length).toBeGreaterThan(2);
    const missing: string[] = [];
    for (const f of proposed) {
      for (const fact of [String(f.id), String(f.statement), ...(f.evidences as Rec[]).map((e) => String(e.excerpt))])
        if (!text.includes(fact)) missing.push(fact);
    }
    expect(missing).toEqual([]);
    const reviewed = ((runs[1]!.calls[1]!.arguments.reviews as Rec[]) ?? []).map((r) => String(r.finding));
    expect(reviewed).toHaveLength(2);
    const now = new Map((await findings()).map((f) => [f.id, f]));
    for (const id of reviewed) {
      expect(text).toContain(`${id}: now validated`);
      expect(now.get(id)?.review_status).toBe('validated');
    }
  });

  it('export: the regenerated summary and the saved PDF are in what was read', async () => {
    const text = read(runs[2]!);
    const doc = (await api(`/engagements/${ENGAGEMENT_AP}/deliverable/documents/executive_summary`)) as { blocks: Rec[] };
    for (const b of doc.blocks) if (typeof b.text === 'string') expect(text).toContain(JSON.stringify(b.text).slice(1, -1));
    expect(text).toMatch(/The document generation \S+ succeeded/);
    expect(text).toMatch(/The export \S+ succeeded/);
    const link = runs[2]!.calls[1]!.answer.content.find((b) => b.type === 'resource_link' && String(b.uri).startsWith('file:'));
    expect(link?.mimeType).toBe('application/pdf');
    expect((await stat(fileURLToPath(String(link!.uri)))).size).toBeGreaterThan(0);
  });

  it('what the concise form leaves out of them is one detailed call away', async () => {
    // With the live description: list_engagements is one of its operations.
    const stack = await startStack({ sandboxHandle: sandbox, env: { WORKSPACE_TOOLSETS: 'default', WORKSPACE_RATE_LIMIT: `120/${60 * SCALE}` } });
    try {
      // The engagement's owner and who reviewed a finding: audit facts a job's answer may still want.
      const { engagement } = before;
      expect(read(runs[0]!)).not.toContain(String(engagement.owner_id));
      expect(textOf(await stack.call('list_engagements', { response_format: 'detailed' }))).toContain(`"owner_id":"${engagement.owner_id}"`);
      const validated = (await findings()).find((f) => f.review_status === 'validated' && f.reviewed_by)!;
      expect(read(runs[1]!)).not.toContain(String(validated.reviewed_by));
      expect(textOf(await stack.call('list_findings', { engagement: ENGAGEMENT_AP, response_format: 'detailed', fields: ['id', 'reviewed_by'] }))).toContain(
        `{"id":"${validated.id}","reviewed_by":"${validated.reviewed_by}"}`,
      );
    } finally {
      await stack.close();
    }
  });
});

describe('a page of 50 findings of the demo engagement', () => {
  it('in the concise form is under 4,000 o200k tokens and fits the default budget without a cut', async () => {
    const stack = await startStack({
      sandboxHandle: sandbox,
      liveOpenApi: false,
      env: { WORKSPACE_TOOLSETS: 'default', WORKSPACE_RESPONSE_BUDGET: String(DEFAULT_RESPONSE_BUDGET_TOKENS), WORKSPACE_RATE_LIMIT: `120/${60 * SCALE}` },
    });
    try {
      // The demo engagement has 22: add copies of them, with their evidences, through the API.
      const seeded = await findings();
      for (let i = 0; seeded.length + i < 50; i++) {
        const created = await stack.call('create_finding', { engagement: ENGAGEMENT_AP, ...findingCopy(seeded[i % seeded.length]!, i + 1) });
        expect(created.isError, textOf(created)).toBeFalsy();
      }
      const r = await stack.call('list_findings', { engagement: ENGAGEMENT_AP, limit: 50 });
      const text = r.content
        .filter((b) => b.type === 'text')
        .map((b) => (b as { text: string }).text)
        .join('\n');
      expect((r.structuredContent as { items: unknown[] }).items).toHaveLength(50);
      expect((r.structuredContent as { truncated?: unknown }).truncated).toBeUndefined();
      expect(text).toMatch(/^findings\[50\]/);
      expect(encode(text).length).toBeLessThan(4_000);
    } finally {
      await stack.close();
    }
  });
});
