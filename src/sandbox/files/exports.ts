// The file of each export kind, built from the engagement's records when the export job finishes.
import { DOCUMENT_KINDS } from '../../../catalog/shared.js';
import { DOCUMENT_TITLES, type DocumentKind, documentOf, draftOf, label, ofEngagement } from '../data/deliverables.js';
import type { FileBody, Rec, WorkspaceState } from '../types.js';
import { bpmn } from './bpmn.js';
import { csv } from './csv.js';
import { html } from './html.js';
import { docx, pptx } from './ooxml.js';
import type { Page, Rendered } from './page.js';
import { pdf } from './pdf.js';
import { type Attribution, COLLECTION_OF, documentPage } from './render.js';

const CONTENT_TYPES = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  csv: 'text/csv; charset=utf-8',
  json: 'application/json; charset=utf-8',
  html: 'text/html; charset=utf-8',
  bpmn: 'application/xml; charset=utf-8',
} as const;

const LEGAL_FORMS = new Set(['sa', 'sas', 'sarl', 'sasu', 'inc', 'ltd', 'llc', 'gmbh', 'maison', 'groupe']);

function slugify(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/**
 * Base of export file names, e.g. `berthier-p2p`: the client without its legal form, then the
 * engagement's short name (the part in parentheses, if any, else its first words).
 */
function fileStem(ws: WorkspaceState, engagement: Rec): string {
  const client = ws.c('client_companies').get(String(engagement.client_company_id ?? ''));
  const clientPart = slugify(String(client?.name ?? ''))
    .split('-')
    .filter((w) => w && !LEGAL_FORMS.has(w))
    .join('-');
  const name = String(engagement.name ?? 'engagement');
  const short = /\(([^)]+)\)/.exec(name)?.[1] ?? name.split(/\s+/).slice(0, 3).join(' ');
  return [clientPart, slugify(short)].filter(Boolean).join('-') || 'export';
}

export interface ExportRequest {
  kind: string;
  document_kind?: string | null;
  process_id?: string | null;
  deliverable_version_id?: string | null;
}

/** File name and content type, known as soon as the export is requested. */
export function exportFileName(ws: WorkspaceState, engagement: Rec, req: ExportRequest): { filename: string; content_type: string } {
  const stem = fileStem(ws, engagement);
  const ext: Record<string, keyof typeof CONTENT_TYPES> = {
    bpmn: 'bpmn',
    findings_csv: 'csv',
    opportunities_csv: 'csv',
    json_bundle: 'json',
    printable: 'html',
    document_pdf: 'pdf',
    document_pptx: 'pptx',
    document_docx: 'docx',
    document_csv: 'csv',
    deliverable_pdf: 'pdf',
  };
  const e = ext[req.kind] ?? 'json';
  const suffix = req.kind.startsWith('document_')
    ? String(req.document_kind)
    : req.kind === 'deliverable_pdf'
      ? 'livrable'
      : req.kind.replace(/_(csv|bundle)$/, '');
  const fileExt = e === 'bpmn' ? 'bpmn' : e;
  return { filename: `${stem}-${suffix}.${fileExt}`, content_type: CONTENT_TYPES[e] };
}

function attributionOf(ws: WorkspaceState, engagementId: string): Attribution {
  const d = draftOf(ws, engagementId);
  return { attribution: String(d.attribution ?? 'by_role'), named_interview_ids: (d.named_interview_ids as string[] | undefined) ?? [] };
}

/** Every included document of the engagement, in the spec's document order, as pages. */
function deliverablePages(ws: WorkspaceState, engagementId: string, documents: Record<string, unknown>[], how: Attribution): Page[] {
  const order = (k: unknown) => DOCUMENT_KINDS.indexOf(k as DocumentKind);
  return [...documents].sort((a, b) => order(a.kind) - order(b.kind)).map((d) => documentPage(ws, engagementId, d, how));
}

function introPage(draft: Record<string, unknown>, title: string): Page {
  const paragraphs: Page['paragraphs'] = [];
  if (draft.introduction) paragraphs.push({ style: 'heading', text: 'Introduction' }, { style: 'text', text: String(draft.introduction) });
  if (draft.recommendations) paragraphs.push({ style: 'heading', text: 'Recommandations' }, { style: 'text', text: String(draft.recommendations) });
  return { title, paragraphs };
}

/** Build the file of a finished export. The request was checked when the export was created. */
export function buildExportFile(ws: WorkspaceState, engagement: Rec, req: ExportRequest): FileBody {
  const eid = engagement.id;
  const { filename, content_type: contentType } = exportFileName(ws, engagement, req);
  const how = attributionOf(ws, eid);
  const title = String(engagement.name ?? 'Engagement');
  const file = (body: Buffer): FileBody => ({ contentType, filename, body, size: body.length });

  switch (req.kind) {
    case 'bpmn': {
      const process = ws.c('processes').get(String(req.process_id)) ?? ofEngagement(ws, 'processes', eid)[0];
      const steps = process ? ws.c('process_steps').all((s) => s.process_id === process.id) : [];
      steps.sort((a, b) => Number(a.position ?? 0) - Number(b.position ?? 0));
      return file(
        bpmn(
          { id: process?.id ?? eid, name: label(process) || title, description: (process?.description as string | undefined) ?? null },
          steps.map((s) => ({ id: s.id, name: label(s), actor: (s.actor_role ?? s.actor ?? null) as string | null })),
        ),
      );
    }
    case 'findings_csv': {
      const evidences = ofEngagement(ws, 'evidences', eid);
      const rows = ofEngagement(ws, 'findings', eid).map((f) => [
        f.id,
        f.type,
        f.statement,
        f.details,
        f.review_status,
        label(ws.c('processes').get(String(f.process_id ?? ''))),
        f.deliverable_category,
        evidences.filter((e) => e.finding_id === f.id).length,
        f.created_at,
      ]);
      return file(csv(['id', 'type', 'statement', 'details', 'review_status', 'process', 'deliverable_category', 'evidence_count', 'created_at'], rows));
    }
    case 'opportunities_csv': {
      const rows = ofEngagement(ws, 'opportunities', eid).map((o) => [o.id, label(o), o.description, o.gain, o.effort, o.horizon, o.status, o.created_at]);
      return file(csv(['id', 'title', 'description', 'gain', 'effort', 'horizon', 'status', 'created_at'], rows));
    }
    case 'json_bundle': {
      const bundle = {
        exported_at: new Date().toISOString(),
        engagement,
        findings: ofEngagement(ws, 'findings', eid),
        evidences: ofEngagement(ws, 'evidences', eid),
        processes: ofEngagement(ws, 'processes', eid).map((p) => ({
          ...p,
          steps: ws.c('process_steps').all((s) => s.process_id === p.id),
        })),
        opportunities: ofEngagement(ws, 'opportunities', eid),
      };
      return file(Buffer.from(JSON.stringify(bundle, null, 2), 'utf8'));
    }
    case 'printable': {
      const draft = draftOf(ws, eid);
      const docs = ofEngagement(ws, 'deliverable_documents', eid).filter((d) => d.included);
      return file(html({ title, pages: [introPage(draft, title), ...deliverablePages(ws, eid, docs, how)] }));
    }
    case 'deliverable_pdf': {
      const versions = ofEngagement(ws, 'deliverable_versions', eid);
      const version = req.deliverable_version_id
        ? versions.find((v) => v.id === req.deliverable_version_id)
        : versions.sort((a, b) => Number(b.number) - Number(a.number))[0];
      const snap = (version?.snapshot ?? {}) as { documents?: Record<string, unknown>[]; introduction?: unknown; recommendations?: unknown };
      const vTitle = `${title} - version ${String(version?.number ?? '')}`;
      return file(pdf({ title: vTitle, pages: [introPage(snap, vTitle), ...deliverablePages(ws, eid, snap.documents ?? [], how)] }));
    }
    default: {
      // document_pdf, document_pptx, document_docx, document_csv: one document of the draft.
      const kind = String(req.document_kind) as DocumentKind;
      const doc = documentOf(ws, eid, kind);
      const page = documentPage(ws, eid, doc, how);
      const rendered: Rendered = { title: `${title} - ${DOCUMENT_TITLES[kind]?.fr ?? kind}`, pages: [page] };
      if (req.kind === 'document_pptx') return file(pptx(rendered));
      if (req.kind === 'document_docx') return file(docx(rendered));
      if (req.kind === 'document_csv') return file(documentCsv(ws, eid, doc));
      return file(pdf(rendered));
    }
  }
}

/** A document's tabular content: each table row and each listed item, one line per entry. */
function documentCsv(ws: WorkspaceState, eid: string, doc: Rec): Buffer {
  const rows: unknown[][] = [];
  for (const b of (doc.blocks as Record<string, unknown>[] | undefined) ?? []) {
    const blockId = b.id ?? '';
    if (b.type === 'table') {
      const opts = (b.options ?? {}) as { columns?: string[]; rows?: string[][] };
      for (const row of opts.rows ?? []) rows.push([blockId, 'table_row', '', row.join(' | '), b.title ?? '']);
    } else if (b.type === 'item_list') {
      const type = String(b.item_type ?? 'finding');
      const collection = COLLECTION_OF[type];
      for (const id of (b.ids as string[] | undefined) ?? []) {
        const r = collection ? ws.c(collection).get(id) : undefined;
        if (r && (r.engagement_id === undefined || r.engagement_id === eid)) rows.push([blockId, type, id, label(r), b.title ?? '']);
      }
    } else if (b.type === 'key_figures') {
      for (const item of (b.items as string[] | undefined) ?? []) rows.push([blockId, 'key_figure', '', item, b.title ?? '']);
    }
  }
  return csv(['block_id', 'item_type', 'item_id', 'text', 'block_title'], rows);
}
