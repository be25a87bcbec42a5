// Deliverables and exports: the draft, its documents (optimistic concurrency on updated_at), generation
// jobs, published versions and their comments, and export jobs whose files are built on completion.
import { DOCUMENT_KINDS } from '../../../catalog/shared.js';
import {
  type Block,
  composeBlocks,
  DOCUMENT_TITLES,
  type DocumentKind,
  documentOf,
  draftOf,
  label,
  ofEngagement,
  publishableFindings,
  seedDeliverables,
  snapshotOf,
  USER_BLOCK_PREFIX,
} from '../data/deliverables.js';
import { VERSION_AP_1 } from '../data/ids.js';
import { buildExportFile, type ExportRequest, exportFileName } from '../files/exports.js';
import { documentPage, speakerOf } from '../files/render.js';
import { refreshAll, refreshJob, startJob } from '../jobs.js';
import {
  conflict,
  type FileBody,
  type HandlerContext,
  type HandlerTable,
  inputOf,
  notFound,
  type Rec,
  type SandboxArea,
  validationFailed,
  type WorkspaceState,
} from '../types.js';
import { fieldError } from '../validate.js';

const GENERATION_MS = 20_000;
const GENERATE_ALL_MS = 45_000;
const SUGGESTION_MS = 15_000;
const EXPORT_MS = 8_000;

const GENERATION_JOBS = 'generation_jobs';
const SUGGESTION_JOBS = 'recommendation_jobs';

// Export files hold Buffers: kept beside the records so the JSON of an export stays small.
const exportFiles = new WeakMap<Rec, FileBody>();

/** The {kind} of the path: the pipeline does not validate path values, and an unknown kind names no document. */
function kindOf(ctx: HandlerContext): DocumentKind {
  const kind = ctx.params.kind as DocumentKind;
  if (!DOCUMENT_KINDS.includes(kind)) throw notFound('document');
  return kind;
}

function engagementOf(ctx: HandlerContext): Rec {
  return ctx.ws.c('engagements').must(ctx.params.engagement ?? '', 'engagement');
}

/** A record of `collection` that must belong to the engagement of the path: 404 otherwise. */
function owned(ctx: HandlerContext, collection: string, id: string | undefined, what: string): Rec {
  const r = ctx.ws.c(collection).get(id ?? '');
  if (!r || r.engagement_id !== ctx.params.engagement) throw notFound(what);
  return r;
}

/**
 * A fresh concurrency token: strictly later than the previous one even when two writes land in the
 * same millisecond, since clients compare it for equality and a repeat would hide a lost update.
 */
function nextStamp(previous: unknown, now: Date): string {
  const prev = typeof previous === 'string' ? Date.parse(previous) : 0;
  return new Date(Math.max(now.getTime(), (Number.isNaN(prev) ? 0 : prev) + 1)).toISOString();
}

function jobView(job: Rec): Record<string, unknown> {
  return { job_id: job.id, status: job.status, progress: job.progress };
}

/** The document as answered: its latest generation job's state and a title in the caller's language. */
function documentView(ctx: HandlerContext, doc: Rec): Record<string, unknown> {
  const jobs = ctx.ws
    .c(GENERATION_JOBS)
    .all((j) => j.engagement_id === doc.engagement_id && ((j.kinds as string[] | undefined) ?? []).includes(String(doc.kind)));
  const latest = jobs[jobs.length - 1];
  if (latest) refreshJob(ctx.ws, latest, ctx.now());
  return {
    ...doc,
    title: DOCUMENT_TITLES[doc.kind as DocumentKind]?.[ctx.locale] ?? doc.title,
    generation: latest ? jobView(latest) : null,
  };
}

function allDocuments(ws: WorkspaceState, engagementId: string): Rec[] {
  return DOCUMENT_KINDS.map((k) => documentOf(ws, engagementId, k));
}

/** Rebuild a document's blocks from the current analysis; keep_edits keeps the consultant's own blocks. */
function regenerate(ws: WorkspaceState, doc: Rec, mode: string, processId: string | null, now: Date): void {
  const draft = draftOf(ws, String(doc.engagement_id));
  const generated = composeBlocks(ws, String(doc.engagement_id), doc.kind as DocumentKind, {
    includeProposed: Boolean(draft.include_proposed),
    processId,
  });
  const kept = mode === 'keep_edits' ? ((doc.blocks as Block[]) ?? []).filter((b) => String(b.id ?? '').startsWith(USER_BLOCK_PREFIX)) : [];
  doc.blocks = [...generated, ...kept];
  doc.generated_at = now.toISOString();
  doc.updated_at = nextStamp(doc.updated_at, now);
}

function draftView(ctx: HandlerContext, draft: Rec): Record<string, unknown> {
  const jobs = ctx.ws.c(SUGGESTION_JOBS).all((j) => j.engagement_id === draft.engagement_id);
  const latest = jobs[jobs.length - 1];
  if (latest) refreshJob(ctx.ws, latest, ctx.now());
  return { ...draft, suggestion: latest ? jobView(latest) : null };
}

function attribution(draft: Rec) {
  return { attribution: String(draft.attribution ?? 'by_role'), named_interview_ids: (draft.named_interview_ids as string[] | undefined) ?? [] };
}

function versionView(ws: WorkspaceState, v: Rec): Record<string, unknown> {
  const { snapshot: _snapshot, ...rest } = v;
  const comments = ws.c('deliverable_comments').all((c) => c.version_id === v.id);
  return { ...rest, comments_count: comments.length, open_comments_count: comments.filter((c) => c.status === 'open').length };
}

function exportView(ws: WorkspaceState, job: Rec, now: Date): Rec {
  return refreshJob(ws, job, now);
}

/** Check an export request against the engagement's records; returns it with defaults filled in. */
function checkExport(ctx: HandlerContext, eid: string): ExportRequest {
  const { kind, document_kind, process_id, deliverable_version_id } = inputOf<ExportRequest>(ctx);
  const req: ExportRequest = {
    kind,
    document_kind: document_kind ?? null,
    process_id: process_id ?? null,
    deliverable_version_id: deliverable_version_id ?? null,
  };
  if (kind.startsWith('document_') && !document_kind) {
    throw validationFailed({ document_kind: [`document_kind is required for a ${kind} export.`] });
  }
  if (kind === 'bpmn') {
    const processes = ofEngagement(ctx.ws, 'processes', eid);
    if (process_id && !processes.some((p) => p.id === process_id)) {
      throw validationFailed({ process_id: ['The process does not exist in this engagement.'] });
    }
    const chosen = process_id ?? processes[0]?.id;
    if (!chosen) throw validationFailed({ process_id: ['The engagement has no process to export.'] });
    req.process_id = chosen;
  }
  if (kind === 'deliverable_pdf') {
    const versions = ofEngagement(ctx.ws, 'deliverable_versions', eid);
    if (deliverable_version_id && !versions.some((v) => v.id === deliverable_version_id)) {
      throw validationFailed({ deliverable_version_id: ['The version does not exist in this engagement.'] });
    }
    const latest = [...versions].sort((a, b) => Number(b.number) - Number(a.number))[0];
    if (!latest) throw validationFailed({ deliverable_version_id: ['No version of the deliverable has been published yet.'] });
    req.deliverable_version_id = deliverable_version_id ?? latest.id;
  }
  return req;
}

const handlers: HandlerTable = {
  list_deliverable_documents: (ctx) => {
    const e = engagementOf(ctx);
    return ctx.page(allDocuments(ctx.ws, e.id).map((d) => documentView(ctx, d)));
  },

  get_deliverable_document: (ctx) => {
    const e = engagementOf(ctx);
    return { data: documentView(ctx, documentOf(ctx.ws, e.id, kindOf(ctx))) };
  },

  update_deliverable_document: (ctx) => {
    const e = engagementOf(ctx);
    const doc = documentOf(ctx.ws, e.id, kindOf(ctx));
    const { updated_at, included, parameters, blocks } = ctx.input as {
      updated_at: string;
      included?: boolean;
      parameters?: Record<string, unknown>;
      blocks?: Block[];
    };
    // The spec names no status for a stale concurrency token, and lists 422 validation.failed as the
    // answer to invalid data: a stale updated_at is invalid data on that field (not a 409 of our own).
    if (updated_at !== doc.updated_at) {
      throw fieldError('updated_at', ctx.locale, {
        en: 'The document was changed since you read it: read it again, then apply your change to the current version.',
        fr: 'Le document a été modifié depuis votre lecture : relisez-le, puis appliquez votre modification à la version actuelle.',
      });
    }
    if (included !== undefined) doc.included = included;
    if (parameters !== undefined) doc.parameters = parameters;
    if (blocks !== undefined) doc.blocks = structuredClone(blocks);
    doc.updated_at = nextStamp(doc.updated_at, ctx.now());
    return { data: documentView(ctx, doc) };
  },

  generate_deliverable_document: (ctx) => {
    const e = engagementOf(ctx);
    const kind = kindOf(ctx);
    const mode = String(ctx.input.mode ?? 'keep_edits');
    const processId = (ctx.input.process_id as string | null | undefined) ?? null;
    if (processId && !ofEngagement(ctx.ws, 'processes', e.id).some((p) => p.id === processId)) {
      throw validationFailed({ process_id: ['The process does not exist in this engagement.'] });
    }
    const job = startJob(
      ctx,
      GENERATION_JOBS,
      { engagement_id: e.id, kind, kinds: [kind], mode, process_id: processId, ai: Boolean(ctx.input.ai) },
      {
        durationMs: GENERATION_MS,
        onSucceeded: (ws) => {
          regenerate(ws, documentOf(ws, e.id, kind), mode, processId, new Date());
        },
      },
    );
    return { status: 202, data: job };
  },

  generate_all_documents: (ctx) => {
    const e = engagementOf(ctx);
    const kinds = [...DOCUMENT_KINDS];
    const job = startJob(
      ctx,
      GENERATION_JOBS,
      { engagement_id: e.id, kind: null, kinds, mode: 'keep_edits', process_id: null, ai: Boolean(ctx.input.ai) },
      {
        durationMs: GENERATE_ALL_MS,
        onSucceeded: (ws) => {
          const now = new Date();
          for (const k of kinds) regenerate(ws, documentOf(ws, e.id, k), 'keep_edits', null, now);
        },
      },
    );
    return { status: 202, data: job };
  },

  get_deliverable_draft: (ctx) => {
    const e = engagementOf(ctx);
    return { data: draftView(ctx, draftOf(ctx.ws, e.id)) };
  },

  update_deliverable_draft: (ctx) => {
    const e = engagementOf(ctx);
    const draft = draftOf(ctx.ws, e.id);
    const { dismiss_suggestion, ...fields } = ctx.input as Record<string, unknown>;
    const named = fields.named_interview_ids as string[] | undefined;
    if (named) {
      const known = new Set(ofEngagement(ctx.ws, 'interviews', e.id).map((i) => i.id));
      const unknown = named.filter((id) => !known.has(id));
      if (unknown.length) throw validationFailed({ named_interview_ids: [`Unknown interviews in this engagement: ${unknown.join(', ')}.`] });
    }
    if (dismiss_suggestion) fields.suggested_recommendations = null;
    ctx.ws.c('deliverable_drafts').update(draft.id, fields);
    return { data: draftView(ctx, draft) };
  },

  preview_draft_evidence: (ctx) => {
    const e = engagementOf(ctx);
    const evidence = owned(ctx, 'evidences', ctx.params.evidence, 'evidence');
    const draft = draftOf(ctx.ws, e.id);
    const finding = ctx.ws.c('findings').get(String(evidence.finding_id ?? ''));
    const findingShown = Boolean(finding && publishableFindings(ctx.ws, e.id, Boolean(draft.include_proposed)).includes(finding));
    const { speaker, interview_id } = speakerOf(ctx.ws, evidence, attribution(draft));
    return {
      data: {
        evidence_id: evidence.id,
        finding_id: evidence.finding_id ?? null,
        finding_statement: finding ? label(finding) : null,
        source_type: evidence.source_type,
        excerpt: evidence.excerpt ?? null,
        speaker,
        interview_id,
        attribution: draft.attribution,
        is_publishable: evidence.is_publishable !== false,
        // What the client would actually see: a publishable excerpt of a finding the draft shows.
        shown_in_deliverable: evidence.is_publishable !== false && findingShown,
      },
    };
  },

  preview_deliverable_draft: (ctx) => {
    const e = engagementOf(ctx);
    const draft = draftOf(ctx.ws, e.id);
    const how = attribution(draft);
    const shown = new Set(publishableFindings(ctx.ws, e.id, Boolean(draft.include_proposed)).map((f) => f.id));
    const docs = allDocuments(ctx.ws, e.id).filter((d) => d.included);
    // Findings a document lists but the draft would not show (rejected, or proposed when excluded).
    const warnings = docs.flatMap((d) =>
      ((d.blocks as Block[]) ?? [])
        .filter((b) => b.type === 'item_list' && (b.item_type ?? 'finding') === 'finding')
        .flatMap((b) => ((b.ids as string[]) ?? []).filter((id) => !shown.has(id)))
        .map((id) => ({ document_kind: d.kind, finding_id: id, reason: 'finding_not_publishable' })),
    );
    return {
      data: {
        engagement_id: e.id,
        stage: draft.stage,
        introduction: draft.introduction ?? null,
        recommendations: draft.recommendations ?? null,
        attribution: draft.attribution,
        documents: docs.map((d) => ({ kind: d.kind, updated_at: d.updated_at, ...documentPage(ctx.ws, e.id, d, how) })),
        warnings,
      },
    };
  },

  suggest_recommendations: (ctx) => {
    const e = engagementOf(ctx);
    const job = startJob(
      ctx,
      SUGGESTION_JOBS,
      { engagement_id: e.id },
      {
        durationMs: SUGGESTION_MS,
        onSucceeded: (ws) => {
          const draft = draftOf(ws, e.id);
          const findings = publishableFindings(ws, e.id, Boolean(draft.include_proposed)).slice(0, 5);
          const lines = findings.map((f, i) => `${i + 1}. Traiter : ${label(f)}`);
          draft.suggested_recommendations = lines.length ? lines.join('\n') : '1. Valider les constats proposés avant de formuler des recommandations.';
        },
      },
    );
    return { status: 202, data: job };
  },

  publish_deliverable: (ctx) => {
    const e = engagementOf(ctx);
    const draft = draftOf(ctx.ws, e.id);
    const docs = allDocuments(ctx.ws, e.id);
    if (!docs.some((d) => d.included)) {
      throw validationFailed({ documents: ['Include at least one document before publishing.'] });
    }
    const stage = String(ctx.input.stage ?? draft.stage ?? 'interim');
    const versions = ofEngagement(ctx.ws, 'deliverable_versions', e.id);
    const number = Math.max(0, ...versions.map((v) => Number(v.number))) + 1;
    const now = ctx.now().toISOString();
    const version = ctx.ws.c('deliverable_versions').insert({
      engagement_id: e.id,
      number,
      stage,
      changelog: ctx.input.changelog ?? null,
      published_at: now,
      published_by: ctx.member.id,
      snapshot: snapshotOf(draft, docs, stage),
    });
    draft.stage = stage;
    return { status: 201, data: versionView(ctx.ws, version) };
  },

  list_deliverable_versions: (ctx) => {
    const e = engagementOf(ctx);
    const versions = ofEngagement(ctx.ws, 'deliverable_versions', e.id).sort((a, b) => Number(b.number) - Number(a.number));
    return ctx.page(versions.map((v) => versionView(ctx.ws, v)));
  },

  get_deliverable_version: (ctx) => {
    engagementOf(ctx);
    return { data: versionView(ctx.ws, owned(ctx, 'deliverable_versions', ctx.params.version, 'deliverable version')) };
  },

  list_deliverable_comments: (ctx) => {
    engagementOf(ctx);
    const v = owned(ctx, 'deliverable_versions', ctx.params.version, 'deliverable version');
    return ctx.page(ctx.ws.c('deliverable_comments').all((c) => c.version_id === v.id));
  },

  get_deliverable_snapshot: (ctx) => {
    engagementOf(ctx);
    const v = owned(ctx, 'deliverable_versions', ctx.params.version, 'deliverable version');
    return { data: { version_id: v.id, number: v.number, published_at: v.published_at, ...(v.snapshot as object) } };
  },

  close_deliverable_comment: (ctx) => {
    engagementOf(ctx);
    const c = owned(ctx, 'deliverable_comments', ctx.params.comment, 'comment');
    if (c.status === 'closed') {
      throw conflict('comment.closed', { en: 'The comment is already closed.', fr: 'Le commentaire est déjà clos.' }, { closed_at: c.closed_at ?? null });
    }
    ctx.ws.c('deliverable_comments').update(c.id, { status: 'closed', closed_at: ctx.now().toISOString(), closed_by: ctx.member.id });
    return { data: c };
  },

  reply_deliverable_comment: (ctx) => {
    engagementOf(ctx);
    const c = owned(ctx, 'deliverable_comments', ctx.params.comment, 'comment');
    const reply = {
      id: ctx.ws.newId(),
      author_name: ctx.member.name ?? null,
      member_id: ctx.member.id,
      body: String(ctx.input.body),
      created_at: ctx.now().toISOString(),
    };
    ctx.ws.c('deliverable_comments').update(c.id, { replies: [...((c.replies as unknown[]) ?? []), reply] });
    return { data: c };
  },

  list_exports: (ctx) => {
    const e = engagementOf(ctx);
    refreshAll(ctx.ws, 'exports', ctx.now());
    return ctx.page(ofEngagement(ctx.ws, 'exports', e.id).reverse());
  },

  create_export: (ctx) => {
    const e = engagementOf(ctx);
    const req = checkExport(ctx, e.id);
    const job = startJob(
      ctx,
      'exports',
      { engagement_id: e.id, ...req, ...exportFileName(ctx.ws, e, req), size: null },
      {
        durationMs: EXPORT_MS,
        onSucceeded: (ws, rec) => {
          const file = buildExportFile(ws, e, req);
          exportFiles.set(rec, file);
          return { size: file.size ?? null };
        },
      },
    );
    return { status: 202, data: job };
  },

  get_export: (ctx) => {
    engagementOf(ctx);
    return { data: refreshJob(ctx.ws, owned(ctx, 'exports', ctx.params.export, 'export'), ctx.now()) };
  },

  download_export: (ctx) => {
    const e = engagementOf(ctx);
    const job = exportView(ctx.ws, owned(ctx, 'exports', ctx.params.export, 'export'), ctx.now());
    if (job.status !== 'succeeded') {
      const failed = job.status === 'failed' || job.status === 'cancelled';
      throw conflict(
        failed ? 'export.failed' : 'export.not_ready',
        failed
          ? { en: `The export ended without a file (${String(job.status)}).`, fr: `L'export s'est terminé sans fichier (${String(job.status)}).` }
          : { en: 'The export is not finished yet: try again shortly.', fr: "L'export n'est pas encore terminé : réessayez dans un instant." },
        { status: job.status, progress: job.progress },
      );
    }
    // The job's completion stored the file; an export record made by other means is built on demand.
    const file = exportFiles.get(job) ?? buildExportFile(ctx.ws, e, job as unknown as ExportRequest);
    exportFiles.set(job, file);
    return { file };
  },
};

export const area: SandboxArea = {
  toolset: 'deliverables',
  handlers,
  seeds: [seedDeliverables],
  after: ['analysis'],
  demo: {
    version: () => VERSION_AP_1,
    comment: (ws) => ws.c('deliverable_comments').all((c) => c.version_id === VERSION_AP_1 && c.status === 'open')[0]?.id,
  },
};
