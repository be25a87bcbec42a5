// Analysis: runs (jobs that propose changes), change proposals, contradictions, findings and their
// evidences, and the analysis enumerations.
import {
  ANALYSIS_MODES,
  CONTRADICTION_STATUSES,
  EVIDENCE_SOURCE_TYPES,
  FINDING_TYPES,
  PROPOSAL_ENTITY_TYPES,
  REVIEW_STATUSES,
} from '../../../catalog/shared.js';
import { demoRunOutput, findingRecord, seedAnalysis } from '../data/analysis.js';
import { ENGAGEMENT_AP } from '../data/ids.js';
import { cancelJob, refreshAll, refreshJob, startJob, TERMINAL } from '../jobs.js';
import {
  conflict,
  type HandlerContext,
  type HandlerTable,
  inputOf,
  type Localized,
  notFound,
  type Rec,
  type SandboxArea,
  validationFailed,
  type WorkspaceState,
} from '../types.js';
import { engagementOf, findEvidenceSource, scoped } from './sources.js';

/** Unscaled duration of an analysis run. */
const ANALYSIS_RUN_MS = 90_000;
const RUNS = 'analysis_runs';

const say = (ctx: HandlerContext, t: Localized) => t[ctx.locale];

// ------------------------------------------------------------------------------ enums

const label = (en: string, fr: string): Localized => ({ en, fr });
const ENUM_LABELS: Record<string, Record<string, Localized>> = {
  'finding-types': {
    irritant: label('Irritant', 'Irritant'),
    re_entry: label('Re-entry', 'Ressaisie'),
    volume: label('Volume', 'Volume'),
    duration: label('Duration', 'Durée'),
    business_rule: label('Business rule', 'Règle de gestion'),
    tool: label('Tool', 'Outil'),
    key_person_dependency: label('Key-person dependency', 'Dépendance à une personne clé'),
    risk: label('Risk', 'Risque'),
    good_practice: label('Good practice', 'Bonne pratique'),
    other: label('Other', 'Autre'),
  },
  'review-statuses': {
    proposed: label('Proposed', 'Proposé'),
    validated: label('Validated', 'Validé'),
    rejected: label('Rejected', 'Rejeté'),
  },
  'evidence-source-types': {
    transcript_segment: label('Transcript segment', 'Segment de transcription'),
    screen_frame: label('Screen frame', "Capture d'écran"),
    pin: label('Pin', 'Épingle'),
    artifact_chunk: label('Document passage', 'Extrait de document'),
    external_source_item: label('External source item', 'Élément de source externe'),
    recap_item: label('Recap item', 'Point de récapitulatif'),
  },
  'contradiction-statuses': {
    open: label('Open', 'Ouverte'),
    resolved: label('Resolved', 'Résolue'),
    kept_as_finding: label('Kept as a finding', 'Conservée comme constat'),
    dismissed: label('Dismissed', 'Écartée'),
  },
  'proposal-entity-types': {
    process: label('Process', 'Processus'),
    process_step: label('Process step', 'Étape de processus'),
    process_flow: label('Process flow', 'Flux de processus'),
    finding: label('Finding', 'Constat'),
    opportunity: label('Opportunity', 'Opportunité'),
  },
  'analysis-modes': {
    incremental: label('Incremental', 'Incrémentale'),
    full: label('Full', 'Complète'),
  },
};

// The values come from the catalog's enums: a value the API accepts is a value the enum lists.
const ENUM_VALUES: Record<string, readonly string[]> = {
  'finding-types': FINDING_TYPES,
  'review-statuses': REVIEW_STATUSES,
  'evidence-source-types': EVIDENCE_SOURCE_TYPES,
  // `open` is not a resolve input but is the state every contradiction starts in.
  'contradiction-statuses': ['open', ...CONTRADICTION_STATUSES],
  'proposal-entity-types': PROPOSAL_ENTITY_TYPES,
  'analysis-modes': ANALYSIS_MODES,
};

// ------------------------------------------------------------------------------ evidences

const FIELD = {
  sourceMissing: label('The source was not found in this engagement.', 'La source est introuvable dans cette mission.'),
  processMissing: label('The process was not found in this engagement.', 'Le processus est introuvable dans cette mission.'),
  stepMissing: label('The step was not found in this engagement.', "L'étape est introuvable dans cette mission."),
  stepOtherProcess: label('The step belongs to another process.', "L'étape appartient à un autre processus."),
  findingMissing: label('The finding was not found in this engagement.', 'Le constat est introuvable dans cette mission.'),
  keptNeedsFinding: label('The finding is required when the status is kept_as_finding.', 'Le constat est obligatoire lorsque le statut est kept_as_finding.'),
};

interface EvidenceInput {
  source_type: string;
  source_id: string;
  locator?: Record<string, unknown> | null;
  excerpt?: string | null;
}

/** Field errors of evidence inputs whose source is not in the engagement, named `<prefix>source_id`. */
function evidenceErrors(ctx: HandlerContext, engagementId: string, inputs: EvidenceInput[], prefix: (i: number) => string) {
  const errors: Record<string, string[]> = {};
  inputs.forEach((ev, i) => {
    if (!findEvidenceSource(ctx.ws, engagementId, ev.source_type, ev.source_id)) errors[`${prefix(i)}source_id`] = [say(ctx, FIELD.sourceMissing)];
  });
  return errors;
}

/** Store an evidence whose source has been checked; the excerpt defaults to the source's opening. */
function insertEvidence(ws: WorkspaceState, finding: Rec, ev: EvidenceInput): Rec | undefined {
  const source = findEvidenceSource(ws, String(finding.engagement_id), ev.source_type, ev.source_id);
  if (!source) return undefined;
  const r = source.record;
  return ws.c('evidences').insert({
    engagement_id: finding.engagement_id,
    finding_id: finding.id,
    source_type: ev.source_type,
    source_id: ev.source_id,
    interview_id: source.interview_id,
    locator: ev.locator ?? ('start_ms' in r ? { start_ms: r.start_ms, end_ms: r.end_ms } : null),
    excerpt: ev.excerpt ?? (source.text.slice(0, 280) || null),
    is_publishable: true,
  });
}

function findingView(ws: WorkspaceState, f: Rec): Rec {
  return { ...f, evidences: ws.c('evidences').all((e) => e.finding_id === f.id) };
}

/** The source an evidence cites, with who said it, when, and what was said around it. */
function evidencePreview(ws: WorkspaceState, evidence: Rec): Record<string, unknown> {
  const engagementId = String(evidence.engagement_id);
  const source = findEvidenceSource(ws, engagementId, String(evidence.source_type), String(evidence.source_id));
  const finding = ws.c('findings').get(String(evidence.finding_id));
  const base = {
    evidence_id: evidence.id,
    finding_id: evidence.finding_id,
    finding_statement: finding?.statement ?? null,
    source_type: evidence.source_type,
    source_id: evidence.source_id,
    excerpt: evidence.excerpt,
    is_publishable: evidence.is_publishable,
  };
  // The source may have been deleted since (an artifact removed): the evidence stays, marked so.
  if (!source) return { ...base, available: false, text: null, interview: null, context: null };
  const interview = source.interview_id ? ws.c('interviews').get(source.interview_id) : undefined;
  const r = source.record;
  let context: Record<string, unknown> | null = null;
  if (evidence.source_type === 'transcript_segment') {
    const all = ws.c('transcript_segments').all((s) => s.session_id === r.session_id);
    const around = (s: Rec) => ({
      id: s.id,
      position: s.position,
      speaker: s.speaker,
      speaker_name: s.speaker_name,
      start_ms: s.start_ms,
      end_ms: s.end_ms,
      text: s.text,
    });
    const pos = Number(r.position);
    context = {
      before: all
        .filter((s) => Number(s.position) >= pos - 2 && Number(s.position) < pos)
        .sort((a, b) => Number(a.position) - Number(b.position))
        .map(around),
      after: all
        .filter((s) => Number(s.position) > pos && Number(s.position) <= pos + 2)
        .sort((a, b) => Number(a.position) - Number(b.position))
        .map(around),
    };
  }
  return {
    ...base,
    available: true,
    text: source.text,
    speaker: r.speaker ?? null,
    speaker_name: r.speaker_name ?? null,
    start_ms: r.start_ms ?? r.at_ms ?? null,
    end_ms: r.end_ms ?? null,
    session_id: source.session_id,
    media: r.media ?? null,
    interview: interview
      ? {
          id: interview.id,
          title: interview.title,
          interviewee_name: interview.interviewee_name,
          interviewee_role: interview.interviewee_role,
          locale: interview.locale,
        }
      : null,
    context,
  };
}

// ------------------------------------------------------------------------------ findings

/** Field errors of process_id and step_id that do not name a process or step of the engagement. */
function processErrors(ctx: HandlerContext, engagementId: string, processId: unknown, stepId: unknown): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const process = typeof processId === 'string' ? ctx.ws.c('processes').get(processId) : undefined;
  if (typeof processId === 'string' && process?.engagement_id !== engagementId) errors.process_id = [say(ctx, FIELD.processMissing)];
  if (typeof stepId === 'string') {
    const step = ctx.ws.c('process_steps').get(stepId);
    if (step?.engagement_id !== engagementId) errors.step_id = [say(ctx, FIELD.stepMissing)];
    else if (typeof processId === 'string' && step.process_id !== processId) errors.step_id = [say(ctx, FIELD.stepOtherProcess)];
  }
  return errors;
}

const FINDING_FIELDS = ['type', 'statement', 'details', 'quantity', 'process_id', 'step_id', 'deliverable_category'] as const;

function pick(input: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (input[k] !== undefined) out[k] = input[k];
  return out;
}

function createFinding(
  ws: WorkspaceState,
  engagementId: string,
  fields: Record<string, unknown>,
  evidences: EvidenceInput[],
  extra: Rec | Record<string, unknown>,
): Rec {
  const finding = ws.c('findings').insert(findingRecord(engagementId, fields, extra));
  for (const ev of evidences) insertEvidence(ws, finding, ev);
  return finding;
}

// ------------------------------------------------------------------------------ runs

/** What a finished run adds: two findings with evidences and two proposals, from the material at hand. */
function runOutput(ws: WorkspaceState, run: Rec, finishedAt: string): Record<string, unknown> {
  const turn = ws.counters.analysis_runs_succeeded ?? 0;
  ws.counters.analysis_runs_succeeded = turn + 1;
  if (run.engagement_id === ENGAGEMENT_AP) {
    const out = demoRunOutput(ws, run, turn, finishedAt);
    return { stats: { findings_proposed: out.findings, change_proposals: out.proposals } };
  }
  // Any other engagement: quote what participants said, most recent first.
  const said = ws
    .c('transcript_segments')
    .all((s) => s.engagement_id === run.engagement_id && s.speaker === 'participant')
    .reverse();
  for (let i = 0; i < 2; i++) {
    const seg = said[i];
    const text = seg ? String(seg.text) : '';
    createFinding(
      ws,
      String(run.engagement_id),
      { type: 'other', statement: seg ? `To check: "${text.slice(0, 200)}"` : `Analysis point ${turn * 2 + i + 1} to check with the team.` },
      seg ? [{ source_type: 'transcript_segment', source_id: seg.id, excerpt: text.slice(0, 200) }] : [],
      { origin: 'analysis', analysis_run_id: run.id, created_at: finishedAt, updated_at: finishedAt },
    );
  }
  for (const [entity_type, summary] of [
    ['process', 'Create a process from the interviews'],
    ['opportunity', 'Create an opportunity from the findings'],
  ] as const) {
    ws.c('change_proposals').insert({
      engagement_id: run.engagement_id,
      analysis_run_id: run.id,
      entity_type,
      action: 'create',
      target_id: null,
      summary,
      payload: { name: summary, title: summary },
      status: 'pending',
      decided_at: null,
      decided_by: null,
      created_at: finishedAt,
      updated_at: finishedAt,
    });
  }
  return { stats: { findings_proposed: 2, change_proposals: 2 } };
}

function runsOf(ctx: HandlerContext, engagementId: string): Rec[] {
  refreshAll(ctx.ws, RUNS, ctx.now());
  // Newest first: the run that matters is the last one.
  return ctx.ws
    .c(RUNS)
    .all((r) => r.engagement_id === engagementId)
    .reverse();
}

// ------------------------------------------------------------------------------ change proposals

const PROPOSAL_COLLECTIONS: Record<string, string> = {
  process: 'processes',
  process_step: 'process_steps',
  process_flow: 'process_flows',
  finding: 'findings',
  opportunity: 'opportunities',
};

const notPending = (p: Rec) =>
  conflict(
    'change_proposal.not_pending',
    { en: `The change proposal has already been ${String(p.status)}.`, fr: `La proposition de modification est déjà traitée (${String(p.status)}).` },
    { status: p.status },
  );

const targetMissing = () =>
  conflict('change_proposal.target_missing', {
    en: 'The record this proposal changes no longer exists.',
    fr: "L'élément que cette proposition modifie n'existe plus.",
  });

/** Apply an accepted proposal to its entity; returns the id of the record created or changed. */
function applyProposal(ctx: HandlerContext, p: Rec): string | null {
  const ws = ctx.ws;
  const engagementId = String(p.engagement_id);
  const collection = ws.c(PROPOSAL_COLLECTIONS[String(p.entity_type)] ?? 'processes');
  const payload = { ...((p.payload as Record<string, unknown> | null) ?? {}) };
  const target = typeof p.target_id === 'string' ? collection.get(p.target_id) : undefined;
  const ownTarget = target && target.engagement_id === engagementId ? target : undefined;
  if (p.action === 'create') {
    if (p.entity_type === 'finding') {
      const evidences = (payload.evidences as EvidenceInput[] | undefined) ?? [];
      const f = createFinding(ws, engagementId, pick(payload, FINDING_FIELDS), evidences, { origin: 'analysis', analysis_run_id: p.analysis_run_id ?? null });
      return f.id;
    }
    // A create proposal names the record it will create once accepted (seeded history) or none yet.
    if (ownTarget) return ownTarget.id;
    return collection.insert({ engagement_id: engagementId, ...payload, status: 'validated', change_proposal_id: p.id }).id;
  }
  if (!ownTarget) {
    if (p.action === 'delete') return null; // already gone: the intent is met
    throw targetMissing();
  }
  if (p.action === 'delete') {
    collection.remove(ownTarget.id);
    return ownTarget.id;
  }
  collection.update(ownTarget.id, payload);
  return ownTarget.id;
}

function decide(ctx: HandlerContext, p: Rec, status: 'accepted' | 'rejected', resultId: string | null): Rec {
  const now = ctx.now().toISOString();
  return Object.assign(p, { status, decided_at: now, decided_by: ctx.member.id, result_id: resultId, updated_at: now });
}

/** Pending proposals of the engagement, narrowed by the bulk body's entity_type and analysis_run_id. */
function bulkTargets(ctx: HandlerContext, engagementId: string): Rec[] {
  const { entity_type, analysis_run_id } = ctx.input as { entity_type?: string; analysis_run_id?: string | null };
  return ctx.ws
    .c('change_proposals')
    .all(
      (p) =>
        p.engagement_id === engagementId &&
        p.status === 'pending' &&
        (entity_type === undefined || p.entity_type === entity_type) &&
        (analysis_run_id === undefined || analysis_run_id === null || p.analysis_run_id === analysis_run_id),
    );
}

// ------------------------------------------------------------------------------ handlers

function findingOf(ctx: HandlerContext): { e: Rec; f: Rec } {
  const e = engagementOf(ctx);
  return { e, f: scoped(ctx.ws, 'findings', String(ctx.params.finding), e.id, 'finding') };
}

function count(items: Rec[], key: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const i of items) out[String(i[key])] = (out[String(i[key])] ?? 0) + 1;
  return out;
}

const handlers: HandlerTable = {
  list_analysis_enum_values: (ctx) => {
    const name = String(ctx.params.name);
    const values = ENUM_VALUES[name];
    if (!values) throw notFound('analysis enum');
    return ctx.page(values.map((value) => ({ value, label: ENUM_LABELS[name]?.[value]?.[ctx.locale] ?? value })));
  },

  list_analysis_runs: (ctx) => {
    const e = engagementOf(ctx);
    return ctx.page(runsOf(ctx, e.id));
  },

  start_analysis_run: (ctx) => {
    const e = engagementOf(ctx);
    const active = runsOf(ctx, e.id).find((r) => !TERMINAL.has(String(r.status)));
    if (active) {
      throw conflict(
        'analysis.run_in_progress',
        { en: 'An analysis run is already in progress for this engagement.', fr: 'Une analyse est déjà en cours pour cette mission.' },
        { run_id: active.id },
      );
    }
    const durationMs = Math.max(1, ctx.scaled(ANALYSIS_RUN_MS));
    const run = startJob(
      ctx,
      RUNS,
      { engagement_id: e.id, mode: ctx.input.mode, requested_by: ctx.member.id, stats: null },
      {
        durationMs: ANALYSIS_RUN_MS,
        onSucceeded: (ws, rec) => runOutput(ws, rec, new Date(Date.parse(String(rec.started_at)) + durationMs).toISOString()),
      },
    );
    // The spec answers 201 here (a run record is created), unlike other jobs' 202.
    return { status: 201, data: run };
  },

  get_analysis_run: (ctx) => {
    const e = engagementOf(ctx);
    return { data: refreshJob(ctx.ws, scoped(ctx.ws, RUNS, String(ctx.params.run), e.id, 'analysis run'), ctx.now()) };
  },

  cancel_analysis_run: (ctx) => {
    const e = engagementOf(ctx);
    const run = scoped(ctx.ws, RUNS, String(ctx.params.run), e.id, 'analysis run');
    return { data: cancelJob(ctx.ws, run, ctx.now()) };
  },

  get_analysis_summary: (ctx) => {
    const e = engagementOf(ctx);
    const ws = ctx.ws;
    const runs = runsOf(ctx, e.id);
    const findings = ws.c('findings').all((f) => f.engagement_id === e.id);
    const evidences = ws.c('evidences').all((v) => v.engagement_id === e.id);
    const contradictions = ws.c('contradictions').all((c) => c.engagement_id === e.id);
    const proposals = ws.c('change_proposals').all((p) => p.engagement_id === e.id && p.status === 'pending');
    const interviews = ws
      .c('interviews')
      .all((i) => i.engagement_id === e.id)
      .map((i) => {
        const cited = evidences.filter((v) => v.interview_id === i.id);
        return {
          interview_id: i.id,
          title: i.title,
          interviewee_name: i.interviewee_name,
          status: i.status,
          findings: new Set(cited.map((v) => v.finding_id)).size,
          evidences: cited.length,
        };
      });
    const topics = Object.entries(count(findings, 'deliverable_category')).map(([topic, n]) => ({
      topic: topic === 'null' ? null : topic,
      findings: n,
      validated: findings.filter((f) => String(f.deliverable_category) === topic && f.review_status === 'validated').length,
    }));
    return {
      data: {
        engagement_id: e.id,
        findings: { total: findings.length, by_type: count(findings, 'type'), by_review_status: count(findings, 'review_status') },
        evidences: { total: evidences.length, publishable: evidences.filter((v) => v.is_publishable).length },
        contradictions: {
          total: contradictions.length,
          open: contradictions.filter((c) => c.status === 'open').length,
          by_status: count(contradictions, 'status'),
        },
        change_proposals: { pending: proposals.length, by_entity_type: count(proposals, 'entity_type') },
        coverage: { interviews, topics },
        runs: { total: runs.length, in_progress: runs.filter((r) => !TERMINAL.has(String(r.status))).length },
        last_run: runs[0] ?? null,
      },
    };
  },

  list_change_proposals: (ctx) => {
    const e = engagementOf(ctx);
    return ctx.page(ctx.ws.c('change_proposals').all((p) => p.engagement_id === e.id));
  },

  accept_all_change_proposals: (ctx) => {
    const e = engagementOf(ctx);
    const accepted: string[] = [];
    const skipped: string[] = [];
    for (const p of bulkTargets(ctx, e.id)) {
      try {
        decide(ctx, p, 'accepted', applyProposal(ctx, p));
        accepted.push(p.id);
      } catch {
        // A proposal whose target is gone stays pending: it can be rejected on its own.
        skipped.push(p.id);
      }
    }
    return { data: { accepted: accepted.length, skipped: skipped.length, proposal_ids: accepted, skipped_ids: skipped } };
  },

  reject_all_change_proposals: (ctx) => {
    const e = engagementOf(ctx);
    const rejected = bulkTargets(ctx, e.id).map((p) => decide(ctx, p, 'rejected', null).id);
    return { data: { rejected: rejected.length, proposal_ids: rejected } };
  },

  accept_change_proposal: (ctx) => {
    const e = engagementOf(ctx);
    const p = scoped(ctx.ws, 'change_proposals', String(ctx.params.proposal), e.id, 'change proposal');
    if (p.status !== 'pending') throw notPending(p);
    return { data: decide(ctx, p, 'accepted', applyProposal(ctx, p)) };
  },

  reject_change_proposal: (ctx) => {
    const e = engagementOf(ctx);
    const p = scoped(ctx.ws, 'change_proposals', String(ctx.params.proposal), e.id, 'change proposal');
    if (p.status !== 'pending') throw notPending(p);
    return { data: decide(ctx, p, 'rejected', null) };
  },

  list_contradictions: (ctx) => {
    const e = engagementOf(ctx);
    return ctx.page(ctx.ws.c('contradictions').all((c) => c.engagement_id === e.id));
  },

  resolve_contradiction: (ctx) => {
    const e = engagementOf(ctx);
    const c = scoped(ctx.ws, 'contradictions', String(ctx.params.contradiction), e.id, 'contradiction');
    const { status, resolution_note, resolved_finding_id } = ctx.input as {
      status: string;
      resolution_note?: string | null;
      resolved_finding_id?: string | null;
    };
    if (status === 'kept_as_finding' && !resolved_finding_id) throw validationFailed({ resolved_finding_id: [say(ctx, FIELD.keptNeedsFinding)] });
    if (resolved_finding_id && ctx.ws.c('findings').get(resolved_finding_id)?.engagement_id !== e.id) {
      throw validationFailed({ resolved_finding_id: [say(ctx, FIELD.findingMissing)] });
    }
    const now = ctx.now().toISOString();
    return {
      data: ctx.ws.c('contradictions').update(c.id, {
        status,
        resolution_note: resolution_note ?? null,
        resolved_finding_id: resolved_finding_id ?? null,
        resolved_at: now,
        resolved_by: ctx.member.id,
      }),
    };
  },

  set_evidence_publishable: (ctx) => {
    const e = engagementOf(ctx);
    const ev = scoped(ctx.ws, 'evidences', String(ctx.params.evidence), e.id, 'evidence');
    return { data: ctx.ws.c('evidences').update(ev.id, { is_publishable: Boolean(ctx.input.is_publishable) }) };
  },

  preview_evidence: (ctx) => {
    const e = engagementOf(ctx);
    return { data: evidencePreview(ctx.ws, scoped(ctx.ws, 'evidences', String(ctx.params.evidence), e.id, 'evidence')) };
  },

  list_findings: (ctx) => {
    const e = engagementOf(ctx);
    return ctx.page(
      ctx.ws
        .c('findings')
        .all((f) => f.engagement_id === e.id)
        .map((f) => findingView(ctx.ws, f)),
    );
  },

  create_finding: (ctx) => {
    const e = engagementOf(ctx);
    const evidences = (ctx.input.evidences as EvidenceInput[] | undefined) ?? [];
    const errors = {
      ...processErrors(ctx, e.id, ctx.input.process_id, ctx.input.step_id),
      ...evidenceErrors(ctx, e.id, evidences, (i) => `evidences.${i}.`),
    };
    if (Object.keys(errors).length > 0) throw validationFailed(errors);
    const f = createFinding(ctx.ws, e.id, pick(ctx.input, FINDING_FIELDS), evidences, { origin: 'manual', created_by: ctx.member.id });
    return { status: 201, data: findingView(ctx.ws, f) };
  },

  get_finding: (ctx) => ({ data: findingView(ctx.ws, findingOf(ctx).f) }),

  update_finding: (ctx) => {
    const { e, f } = findingOf(ctx);
    const patch = pick(ctx.input, FINDING_FIELDS);
    // A step given alone must fit the finding's current process; a process given alone clears nothing.
    const processId = 'process_id' in patch ? patch.process_id : f.process_id;
    const errors = processErrors(ctx, e.id, 'process_id' in patch ? patch.process_id : undefined, undefined);
    if ('step_id' in patch) Object.assign(errors, processErrors(ctx, e.id, processId, patch.step_id));
    if (Object.keys(errors).length > 0) throw validationFailed(errors);
    return { data: findingView(ctx.ws, ctx.ws.c('findings').update(f.id, patch)) };
  },

  delete_finding: (ctx) => {
    const { f } = findingOf(ctx);
    const evidences = ctx.ws.c('evidences');
    for (const ev of evidences.all((v) => v.finding_id === f.id)) evidences.remove(ev.id);
    ctx.ws.c('findings').remove(f.id);
    return { status: 204 };
  },

  add_finding_evidence: (ctx) => {
    const { e, f } = findingOf(ctx);
    const input = inputOf<EvidenceInput>(ctx);
    const errors = evidenceErrors(ctx, e.id, [input], () => '');
    if (Object.keys(errors).length > 0) throw validationFailed(errors);
    return { status: 201, data: insertEvidence(ctx.ws, f, input) };
  },

  remove_finding_evidence: (ctx) => {
    const { e, f } = findingOf(ctx);
    const ev = scoped(ctx.ws, 'evidences', String(ctx.params.evidence), e.id, 'evidence');
    if (ev.finding_id !== f.id) throw notFound('evidence');
    ctx.ws.c('evidences').remove(ev.id);
    return { status: 204 };
  },

  review_finding: (ctx) => {
    const { f } = findingOf(ctx);
    const now = ctx.now().toISOString();
    const status = String(ctx.input.review_status);
    // Back to proposed clears who reviewed it: nobody has, any more.
    const reviewed = status === 'proposed' ? { reviewed_at: null, reviewed_by: null } : { reviewed_at: now, reviewed_by: ctx.member.id };
    return { data: findingView(ctx.ws, ctx.ws.c('findings').update(f.id, { review_status: status, ...reviewed })) };
  },
};

/** The first evidence of the demo engagement's first finding, as get_finding lists them. */
function firstEvidence(ws: WorkspaceState): Rec | undefined {
  const finding = ws.c('findings').all((f) => f.engagement_id === ENGAGEMENT_AP)[0];
  return finding ? ws.c('evidences').all((e) => e.finding_id === finding.id)[0] : undefined;
}

export const area: SandboxArea = {
  toolset: 'analysis',
  handlers,
  seeds: [seedAnalysis],
  after: ['interviews', 'sources'],
  demo: {
    finding: (ws) => ws.c('findings').all((f) => f.engagement_id === ENGAGEMENT_AP)[0]?.id,
    proposed_finding: (ws) => ws.c('findings').all((f) => f.engagement_id === ENGAGEMENT_AP && f.review_status === 'proposed')[0]?.id,
    evidence: (ws) => firstEvidence(ws)?.id,
    segment: (ws) =>
      ws.c('evidences').all((e) => e.finding_id === firstEvidence(ws)?.finding_id && e.source_type === 'transcript_segment')[0]?.source_id as
        | string
        | undefined,
    analysis_run: (ws) =>
      ws
        .c(RUNS)
        .all((r) => r.engagement_id === ENGAGEMENT_AP)
        .at(-1)?.id,
    contradiction: (ws) => ws.c('contradictions').all((c) => c.engagement_id === ENGAGEMENT_AP && c.status === 'open')[0]?.id,
    change_proposal: (ws) => ws.c('change_proposals').all((p) => p.engagement_id === ENGAGEMENT_AP && p.status === 'pending')[0]?.id,
  },
};
