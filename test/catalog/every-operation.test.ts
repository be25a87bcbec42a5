// Every catalog tool (the documented operations and the curated ones), called through the SDK's MCP
// client against the sandbox over real HTTP. For each call: exactly one request reached the sandbox, on the operation's method and
// path template, and the tool answered without error. The client has listed the tools first, so it
// validates each result's structuredContent against the tool's outputSchema (the SDK client does on
// every callTool once it holds the listing; a mismatch rejects the call). What the results hold is
// in docs/tool-results.md; test/mcp/tool-results.test.ts keeps reviewed snapshots of them.
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { catalog } from '../../catalog/index.js';
import { ENGAGEMENT_AP, METHOD_P2P } from '../../src/sandbox/data/ids.js';
import type { RequestLogEntry } from '../../src/sandbox/index.js';
import { finished, TestClock } from '../helpers/clock.js';
import { demoValues, exampleArguments } from '../helpers/examples.js';
import { type Stack, startStack, textOf } from '../helpers/stack.js';

let stack: Stack;
const E = ENGAGEMENT_AP;
type Rec = Record<string, unknown> & { id: string };

const called = new Set<string>();
/** Each tool as listed: handed to callTool, whose validation of the result uses its outputSchema. */
const listed = new Map<string, Tool>();

// The sandbox's clock: runs with real time, moved past a job's end to read the job finished.
const clock = new TestClock();
beforeAll(async () => {
  // Jobs run 100x faster, so exports and runs finish within the test.
  // The client keeps its budget of 120 a window; the window is the time-scaled minute (0.6 s).
  // Job tools answer once started (WORKSPACE_JOB_WAIT_SECONDS 0), so each call is exactly one request;
  // following jobs is tested in test/jobs. Their answer carries the job as structuredContent.job.
  stack = await startStack({
    sandbox: { timeScale: 0.01, rateLimit: true, clock: clock.now },
    env: { WORKSPACE_RATE_LIMIT: '120/0.6', WORKSPACE_JOB_WAIT_SECONDS: '0' },
  });
  // The listing the client validates every result against.
  const { tools } = await stack.client.listTools();
  for (const t of tools) {
    expect(t.outputSchema, t.name).toMatchObject({ type: 'object' });
    listed.set(t.name, t);
  }
});
afterAll(async () => {
  await stack?.close();
});

async function get(path: string, query?: Record<string, unknown>): Promise<unknown> {
  const res = await stack.api.request({ method: 'GET', path, ...(query ? { query } : {}) });
  return res.data;
}
async function list(path: string, query?: Record<string, unknown>): Promise<Rec[]> {
  return (await get(path, { limit: 200, ...query })) as Rec[];
}
/** Call one tool and check what reached the sandbox. Returns the structured result. */
async function call(name: string, args: Record<string, unknown> = {}): Promise<any> {
  const op = catalog.find((o) => o.name === name);
  expect(op, `unknown tool ${name}`).toBeDefined();
  const before = stack.sandbox.requests().length;
  if (process.env.DEBUG_CALLS) process.stderr.write(`call ${name}\n`);
  // The listed definition, given to callTool: the client checks the result against its outputSchema
  // on this call whatever its cache holds (a list_changed meanwhile would have dropped the listing).
  const r = (await stack.client.callTool({ name, arguments: args }, { toolDefinition: listed.get(name) as Tool })) as CallToolResult;
  const seen: RequestLogEntry[] = stack.sandbox
    .requests()
    .slice(before)
    .filter((q) => q.path.startsWith('/api/v1/'));
  expect(r.isError, `${name}: ${textOf(r)}`).toBeFalsy();
  expect(
    seen.map((q) => `${q.method} ${q.template}`),
    name,
  ).toEqual([`${op!.method} ${op!.path}`]);
  expect(seen[0]!.status, name).toBeLessThan(300);
  called.add(name);
  return r.structuredContent;
}

describe('every catalog tool against the sandbox', () => {
  // What `$demo.<kind>` names (the areas' demo declarations): the steps below use it for the records
  // they change in order; every other entry is called with its example, in the last steps.
  const demo = demoValues();

  it('ai', async () => {
    const profile = await call('set_ai_profile', {
      scope_type: 'engagement',
      scope_id: E,
      usage: 'chat',
      driver: 'anthropic',
      model: 'claude-sonnet-4-5',
      credential_source: 'platform',
      label: 'Chat mission',
    });
    await call('delete_ai_profile', { profile: profile.id });
    const trial = await call('create_voice_trial', { mode: 'voice_only', locale: 'fr', label: 'Essai voix' });
    await call('update_voice_trial', { trial: trial.id, first_sound_ms: 420, response_ms: 900, note: 'fluide' });
    await call('delete_voice_trial', { trial: trial.id });
  });

  it('engagements, methods and guides', async () => {
    const company = await call('create_client_company', { name: 'Fromagerie Lenoir', industry: 'Agroalimentaire', country: 'FR' });
    await call('create_engagement', { client_company_id: company.id, name: 'Audit de la paie', locale: 'fr' });
    const method = await call('create_method', { name: 'Audit paie', description: 'Processus de paie mensuelle' });
    await call('update_method', { method: method.id, name: 'Audit paie v2' });
    const copy = await call('duplicate_method', { method: method.id });
    await call('delete_method', { method: copy.id });

    const owner = { ownerType: 'method', ownerId: METHOD_P2P };
    const topics = (await call('list_guide_topics', { ...owner, limit: 200 })).items as Rec[];
    const topic = await call('create_guide_topic', {
      ...owner,
      title: 'Gestion des avoirs',
      requirement: 'optional',
      depth: 'standard',
      opening_questions: ['Comment traitez-vous un avoir ?'],
    });
    await call('update_guide_topic', { ...owner, topic: topic.id, depth: 'deep' });
    await call('reorder_guide_topics', { ...owner, ids: [topic.id, ...topics.map((t) => t.id)] });
    await call('set_guide_override', { ownerType: 'engagement', ownerId: E, topic: topics[0]!.id, operation: 'make_optional' });
    await call('delete_guide_override', { ownerType: 'engagement', ownerId: E, topic: topics[0]!.id });
    const proposal = await call('propose_guide_topics', { ...owner, count: 3, focus: 'avoirs et litiges', locale: 'fr' });
    const key = String(((proposal.topics ?? proposal.items ?? []) as Rec[])[0]?.key ?? 'p1');
    await call('accept_topic_proposal', { ...owner, proposal: proposal.id, keys: [key] });
    await call('delete_guide_topic', { ...owner, topic: topic.id });
  });

  it('analysis', async () => {
    const run = await call('start_analysis_run', { engagement: E, mode: 'incremental' });
    await call('cancel_analysis_run', { engagement: E, run: run.job.id });
    // Two pending proposals, one accepted and one rejected before the rest are settled at once.
    const [proposalA, proposalB] = (await list(`/engagements/${E}/change-proposals`)).filter((p) => p.status === 'pending');
    await call('accept_change_proposal', { engagement: E, proposal: proposalA!.id });
    await call('reject_change_proposal', { engagement: E, proposal: proposalB!.id });
    await call('accept_all_change_proposals', { engagement: E, entity_type: 'opportunity' });
    await call('reject_all_change_proposals', { engagement: E });
    const created = await call('create_finding', {
      engagement: E,
      type: 're_entry',
      statement: 'Les factures PDF sont ressaisies à la main dans SAP',
      evidences: [{ source_type: 'transcript_segment', source_id: demo.segment, excerpt: null }],
    });
    await call('get_finding', { engagement: E, finding: created.id });
    await call('update_finding', { engagement: E, finding: created.id, details: 'Environ 40 % des factures' });
    const ev = await call('add_finding_evidence', { engagement: E, finding: created.id, source_type: 'transcript_segment', source_id: demo.segment });
    await call('remove_finding_evidence', { engagement: E, finding: created.id, evidence: ev.id });
    await call('delete_finding', { engagement: E, finding: created.id });
  });

  it('interviews and sessions', async () => {
    await call('start_preview_session', { engagement: E, mode: 'text_simulation', locale: 'fr' });
    const test = await call('start_test_interview', { engagement: E, mode: 'voice_only', locale: 'en' });
    await call('end_session', { session: String((test.session as Rec | undefined)?.id ?? test.id) });
  });

  it('sources', async () => {
    const up = await call('upload_artifact', { engagement: E, file: { text: 'Fournisseur;Montant\nBois du Jura;1200\n', filename: 'litiges.csv' } });
    await call('delete_artifact', { engagement: E, artifact: up.id });
    // Read first: the upload checks its file against this schema, and once read it is reference data
    // held by the client, so a later call would send no request.
    await call('get_external_source_schema', exampleArguments(catalog.find((o) => o.name === 'get_external_source_schema')!)!);
    const file = {
      format_version: '1',
      source: { name: 'Export tickets', system: 'GLPI' },
      items: [{ external_id: 'T-1', title: 'Facture bloquée', body: 'Sans bon de commande', occurred_at: '2026-09-01T10:00:00Z', attributes: {} }],
    };
    const src = await call('upload_external_source', {
      engagement: E,
      name: 'Tickets support AP',
      file: { text: JSON.stringify(file), filename: 'tickets.json', content_type: 'application/json' },
    });
    await call('delete_external_source', { engagement: E, source: src.id });
  });

  it('deliverables and exports', async () => {
    const doc = await call('get_deliverable_document', { engagement: E, kind: 'executive_summary' });
    await call('update_deliverable_document', { engagement: E, kind: 'executive_summary', updated_at: doc.updated_at, included: true });
    await call('generate_deliverable_document', { engagement: E, kind: 'roadmap', mode: 'keep_edits', ai: false });
    await call('generate_all_documents', { engagement: E, ai: false });
    await call('update_deliverable_draft', { engagement: E, stage: 'interim', include_proposed: false });
    await call('publish_deliverable', { engagement: E, stage: 'interim', changelog: 'Ajout des constats validés' });
    // Answered, then closed: a closed comment takes no reply.
    await call('reply_deliverable_comment', { engagement: E, comment: demo.comment, body: 'Corrigé dans la version 2.' });
    await call('close_deliverable_comment', { engagement: E, comment: demo.comment });
    const exp = await call('create_export', { engagement: E, kind: 'findings_csv' });
    const done = await finished(clock, async () => (await list(`/engagements/${E}/exports`)).find((x) => x.id === exp.job.id));
    expect(done?.status).toBe('succeeded');
    await call('get_export', { engagement: E, export: exp.job.id });
    const dl = await call('download_export', { engagement: E, export: exp.job.id });
    expect(dl.file.size).toBeGreaterThan(0);
  });

  it('workspace and usage', async () => {
    const inv = await call('invite_member', { email: 'lea.bernard@atelier-conseil.fr', role: 'consultant' });
    await call('revoke_invitation', { invitation: inv.id });
    // Another consultant than the one the examples promote.
    const other = (await list('/workspace/members')).find((m) => m.role === 'consultant' && m.id !== demo.member)!;
    await call('remove_member', { member: other.id });
    await call('set_usage_budget', { monthly_amount: 800, warning_ratio: 0.75, include_tests: false });
    await call('delete_usage_budget');
    await call('delete_workspace_logo');
  });

  it('every entry with example arguments, called with them (those the steps above did not call)', async () => {
    const withExample = catalog.filter((op) => op.example && !called.has(op.name));
    expect(withExample.length).toBeGreaterThan(40);
    for (const op of withExample) await call(op.name, exampleArguments(op)!);
  });

  it('every read that needs no argument, called with none', async () => {
    const needsNone = (op: (typeof catalog)[number]) => Object.values(op.input.shape).every((field) => (field as z.ZodType).safeParse(undefined).success);
    for (const op of catalog.filter((o) => o.method === 'GET' && !called.has(o.name) && needsNone(o))) await call(op.name);
  });

  it('called every tool of the catalog', () => {
    const missing = catalog.map((o) => o.name).filter((n) => !called.has(n));
    expect(missing).toEqual([]);
    expect(called.size).toBe(catalog.length);
  });
});
