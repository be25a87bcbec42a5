// Every catalog tool (the documented operations and the curated ones), called through the SDK's MCP
// client against the sandbox over real HTTP. For each call: exactly one request reached the sandbox, on the operation's method and
// path template, and the tool answered without error. The client has listed the tools first, so it
// validates each result's structuredContent against the tool's outputSchema (the SDK client does on
// every callTool once it holds the listing; a mismatch rejects the call). What the results hold is
// in docs/tool-results.md; test/mcp/tool-results.test.ts keeps reviewed snapshots of them.
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGAGEMENT_AP, INTERVIEW_AP_CLERK, METHOD_P2P, SESSION_AP_CLERK, VERSION_AP_1 } from '../../src/sandbox/data/ids.js';
import type { RequestLogEntry } from '../../src/sandbox/index.js';
import { catalog } from '../../tools/index.js';
import { finished, TestClock } from '../helpers/clock.js';
import { exampleArguments } from '../helpers/examples.js';
import { type Stack, startStack, textOf } from '../helpers/stack.js';

let stack: Stack;
const E = ENGAGEMENT_AP;
type Rec = Record<string, unknown> & { id: string };

/** Ids discovered from the demo data (or created by earlier steps). */
const ids: Record<string, string> = {};
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
  it('discovers the demo ids', async () => {
    const findings = await list(`/engagements/${E}/findings`);
    ids.finding = findings.find((f) => f.review_status === 'proposed')!.id;
    ids.finding2 = findings.filter((f) => f.review_status === 'proposed')[1]!.id;
    const finding = (await get(`/engagements/${E}/findings/${ids.finding}`)) as { evidences?: Rec[] };
    const evidences = finding.evidences ?? [];
    expect(evidences.length).toBeGreaterThan(0);
    ids.evidence = evidences[0]!.id;
    ids.segment = String(evidences.find((e) => e.source_type === 'transcript_segment')?.source_id);
    ids.contradiction = (await list(`/engagements/${E}/contradictions`)).find((c) => c.status === 'open')!.id;
    const proposals = (await list(`/engagements/${E}/change-proposals`)).filter((p) => p.status === 'pending');
    ids.proposalA = proposals[0]!.id;
    ids.proposalB = proposals[1]!.id;
    ids.chapter = (await list(`/interviews/${INTERVIEW_AP_CLERK}/chapters`))[0]!.id;
    const frames = await list(`/sessions/${SESSION_AP_CLERK}/frames`);
    const media = frames[0]!.media as { disk: string; path: string };
    ids.disk = media.disk;
    ids.mediaPath = media.path;
    const session = (await get(`/sessions/${SESSION_AP_CLERK}`)) as { recording_ids: string[] };
    ids.recording = session.recording_ids[0]!;
    ids.artifact = (await list(`/engagements/${E}/artifacts`))[0]!.id;
    ids.source = (await list(`/engagements/${E}/external-sources`))[0]!.id;
    ids.credential = (await list('/ai/credentials'))[0]!.id;
    ids.profile = (await list('/ai/profiles'))[0]!.id;
    ids.trial = (await list('/ai/voice-lab/trials'))[0]!.id;
    ids.template = String((await list('/methods/templates'))[0]!.template_key);
    ids.methodVersion = (await list(`/methods/${METHOD_P2P}/versions`))[0]!.id;
    ids.comment = (await list(`/engagements/${E}/deliverable/versions/${VERSION_AP_1}/comments`)).find((c) => c.status === 'open')!.id;
    ids.alert = (await list('/workspace/usage/alerts'))[0]!.id;
    ids.member = (await list('/workspace/members')).find((m) => m.role === 'consultant')!.id;
    ids.member2 = (await list('/workspace/members')).filter((m) => m.role === 'consultant')[1]!.id;
    // Listed by an operation the spec does not document (the sandbox assumes it, see openapi.json).
    ids.compliance = (await list('/compliance-documents'))[0]!.id;
    expect(Object.values(ids).every(Boolean), JSON.stringify(ids)).toBe(true);
  });

  it('ai', async () => {
    await call('list_ai_catalog');
    await call('test_ai_credential', { credential: ids.credential });
    await call('list_ai_drivers');
    await call('list_ai_usages');
    await call('list_voice_architectures');
    await call('list_ai_price_grid');
    await call('list_ai_profiles');
    const profile = await call('set_ai_profile', {
      scope_type: 'engagement',
      scope_id: E,
      usage: 'chat',
      driver: 'anthropic',
      model: 'claude-sonnet-4-5',
      credential_source: 'platform',
      label: 'Chat mission',
    });
    await call('test_ai_profile', { profile: ids.profile, sample: 'Bonjour' });
    await call('test_ai_usage', { usage: 'analysis' });
    await call('delete_ai_profile', { profile: profile.id });
    await call('list_voice_trials');
    const trial = await call('create_voice_trial', { mode: 'voice_only', locale: 'fr', label: 'Essai voix' });
    await call('update_voice_trial', { trial: trial.id, first_sound_ms: 420, response_ms: 900, note: 'fluide' });
    await call('delete_voice_trial', { trial: trial.id });
    await call('list_ai_voices');
  });

  it('engagements, methods and guides', async () => {
    await call('list_client_companies');
    const company = await call('create_client_company', { name: 'Fromagerie Lenoir', industry: 'Agroalimentaire', country: 'FR' });
    await call('list_engagements');
    await call('create_engagement', { client_company_id: company.id, name: 'Audit de la paie', locale: 'fr' });
    await call('ask_audit_chat', { engagement: E, question: 'Que dit le service comptable de la double saisie des factures ?' });
    await call('list_methods');
    const method = await call('create_method', { name: 'Audit paie', description: 'Processus de paie mensuelle' });
    await call('list_avatar_presets');
    await call('list_method_templates');
    await call('create_method_from_template', { template_key: ids.template, name: 'Audit O2C', locale: 'fr' });
    await call('update_method', { method: method.id, name: 'Audit paie v2' });
    const copy = await call('duplicate_method', { method: method.id });
    await call('delete_method', { method: copy.id });
    await call('get_method_version', { method: METHOD_P2P, version: ids.methodVersion });

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
    await call('get_topic_proposal', { ...owner, proposal: proposal.id });
    const key = String(((proposal.topics ?? proposal.items ?? []) as Rec[])[0]?.key ?? 'p1');
    await call('accept_topic_proposal', { ...owner, proposal: proposal.id, keys: [key] });
    await call('delete_guide_topic', { ...owner, topic: topic.id });
  });

  it('analysis', async () => {
    const run = await call('start_analysis_run', { engagement: E, mode: 'incremental' });
    await call('get_analysis_run', { engagement: E, run: run.job.id });
    await call('cancel_analysis_run', { engagement: E, run: run.job.id });
    await call('accept_change_proposal', { engagement: E, proposal: ids.proposalA });
    await call('reject_change_proposal', { engagement: E, proposal: ids.proposalB });
    await call('accept_all_change_proposals', { engagement: E, entity_type: 'opportunity' });
    await call('reject_all_change_proposals', { engagement: E });
    await call('list_contradictions', { engagement: E });
    await call('resolve_contradiction', {
      engagement: E,
      contradiction: ids.contradiction,
      status: 'dismissed',
      resolution_note: 'Délais confirmés par le contrôleur',
    });
    await call('set_evidence_publishable', { engagement: E, evidence: ids.evidence, is_publishable: false });
    await call('preview_evidence', { engagement: E, evidence: ids.evidence });
    await call('list_findings', { engagement: E, limit: 5 });
    const created = await call('create_finding', {
      engagement: E,
      type: 're_entry',
      statement: 'Les factures PDF sont ressaisies à la main dans SAP',
      evidences: [{ source_type: 'transcript_segment', source_id: ids.segment, excerpt: null }],
    });
    await call('get_finding', { engagement: E, finding: created.id });
    await call('update_finding', { engagement: E, finding: created.id, details: 'Environ 40 % des factures' });
    const ev = await call('add_finding_evidence', { engagement: E, finding: created.id, source_type: 'transcript_segment', source_id: ids.segment });
    await call('remove_finding_evidence', { engagement: E, finding: created.id, evidence: ev.id });
    await call('review_finding', { engagement: E, finding: ids.finding, review_status: 'validated' });
    await call('delete_finding', { engagement: E, finding: created.id });
  });

  it('interviews and sessions', async () => {
    await call('list_interviews', { engagement: E });
    const preview = await call('start_preview_session', { engagement: E, mode: 'text_simulation', locale: 'fr' });
    const test = await call('start_test_interview', { engagement: E, mode: 'voice_only', locale: 'en' });
    await call('get_chapter_recap', { interview: INTERVIEW_AP_CLERK, chapter: ids.chapter });
    await call('get_interview_source', { interview: INTERVIEW_AP_CLERK, type: 'transcript_segment', source: ids.segment });
    await call('get_media', { disk: ids.disk, path: ids.mediaPath });
    await call('get_media_thumbnail', { disk: ids.disk, path: ids.mediaPath });
    await call('end_session', { session: String((test.session as Rec | undefined)?.id ?? test.id) });
    void preview;
    await call('get_session_recording', { session: SESSION_AP_CLERK, recording: ids.recording });
    await call('get_session_transcript', { session: SESSION_AP_CLERK });
  });

  it('sources', async () => {
    const up = await call('upload_artifact', { engagement: E, file: { text: 'Fournisseur;Montant\nBois du Jura;1200\n', filename: 'litiges.csv' } });
    await call('get_artifact', { engagement: E, artifact: up.id });
    await call('download_artifact', { engagement: E, artifact: up.id });
    await call('delete_artifact', { engagement: E, artifact: up.id });
    const schema = await call('get_external_source_schema', { version: '1' });
    expect(schema).toBeTruthy();
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
    await call('list_external_source_items', { engagement: E, source: ids.source });
    await call('delete_external_source', { engagement: E, source: src.id });
  });

  it('deliverables and exports', async () => {
    await call('list_deliverable_documents', { engagement: E });
    const doc = await call('get_deliverable_document', { engagement: E, kind: 'executive_summary' });
    await call('update_deliverable_document', { engagement: E, kind: 'executive_summary', updated_at: doc.updated_at, included: true });
    await call('generate_deliverable_document', { engagement: E, kind: 'roadmap', mode: 'keep_edits', ai: false });
    await call('generate_all_documents', { engagement: E, ai: false });
    await call('update_deliverable_draft', { engagement: E, stage: 'interim', include_proposed: false });
    await call('preview_draft_evidence', { engagement: E, evidence: ids.evidence });
    await call('suggest_recommendations', { engagement: E });
    await call('publish_deliverable', { engagement: E, stage: 'interim', changelog: 'Ajout des constats validés' });
    await call('reply_deliverable_comment', { engagement: E, comment: ids.comment, body: 'Corrigé dans la version 2.' });
    await call('close_deliverable_comment', { engagement: E, comment: ids.comment });
    const exp = await call('create_export', { engagement: E, kind: 'findings_csv' });
    const done = await finished(clock, async () => (await list(`/engagements/${E}/exports`)).find((x) => x.id === exp.job.id));
    expect(done?.status).toBe('succeeded');
    await call('get_export', { engagement: E, export: exp.job.id });
    const dl = await call('download_export', { engagement: E, export: exp.job.id });
    expect(dl.file.size).toBeGreaterThan(0);
  });

  it('workspace, usage and the rest', async () => {
    await call('get_current_member');
    await call('update_current_member', { locale: 'fr' });
    await call('get_workspace');
    await call('update_workspace', { display_name: 'Atelier Conseil' });
    await call('update_workspace_branding', { email_sender_name: 'Atelier Conseil', primary_color: '#1F3A5F' });
    await call('delete_workspace_logo');
    await call('get_workspace_dashboard');
    await call('list_invitations');
    const inv = await call('invite_member', { email: 'lea.bernard@atelier-conseil.fr', role: 'consultant' });
    await call('revoke_invitation', { invitation: inv.id });
    await call('list_members');
    await call('update_member_role', { member: ids.member, role: 'admin' });
    await call('remove_member', { member: ids.member2 });
    await call('list_member_roles');
    await call('list_workspace_statuses');

    await call('list_usage_alerts');
    await call('acknowledge_usage_alert', { alert: ids.alert });
    await call('get_usage_budget');
    await call('set_usage_budget', { monthly_amount: 800, warning_ratio: 0.75, include_tests: false });
    await call('delete_usage_budget');
    await call('get_usage_dashboard');
    await call('export_usage');
    await call('get_usage_options');
    await call('get_usage_summary');

    await call('get_openapi_description');
    await call('download_compliance_document', { document: ids.compliance });
  });

  it('every entry with example arguments, called with them (those the steps above did not call)', async () => {
    for (const op of catalog) {
      const args = exampleArguments(op);
      if (args && !called.has(op.name)) await call(op.name, args);
    }
  });

  it('called every tool of the catalog', () => {
    const missing = catalog.map((o) => o.name).filter((n) => !called.has(n));
    expect(missing).toEqual([]);
    expect(called.size).toBe(catalog.length);
  });
});
