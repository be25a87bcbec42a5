// preview_deliverable_document: one deliverable document as the client will see it. A document holds
// blocks that only reference records (findings, evidences, contradictions) by id and charts that
// name their data: this gathers the document, the records its blocks cite and the figures its
// charts are drawn from, in a few list reads, and the document-preview view draws them. A host
// without apps gets the document's outline as text.
import { z } from 'zod';
import { DOCUMENT_KINDS, id } from '../../../catalog/shared.js';
import { linesWithin } from '../apps/bounded-lines.js';
import { viewMeta } from '../apps/views.js';

import type { Pipeline } from '../pipeline/pipeline.js';
import { allPages, readFailed, section } from '../pipeline/sections.js';
import { defineTool, type ToolSpec } from '../pipeline/tool-spec.js';
import { toolError } from '../render/index.js';

type Json = Record<string, unknown>;

const input = z.strictObject({ engagement: id(), kind: z.enum(DOCUMENT_KINDS) });

const documentPreviewOutput = {
  type: 'object',
  properties: { document: { type: 'object' }, documents: { type: 'array' }, records: { type: 'object' } },
  required: ['document', 'documents', 'records'],
} as const;

const str = (v: unknown) => (typeof v === 'string' ? v : null);
const blocksOf = (doc: Json): Json[] => (Array.isArray(doc.blocks) ? (doc.blocks as Json[]) : []);

/** Every id a block cites, by record type: its refs, its items, its quoted evidence. */
function cited(blocks: Json[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const add = (type: string, rid: unknown) => {
    if (typeof rid !== 'string') return;
    const set = out.get(type) ?? new Set<string>();
    out.set(type, set);
    set.add(rid);
  };
  for (const b of blocks) {
    for (const r of Array.isArray(b.refs) ? (b.refs as Json[]) : []) add(String(r.type), r.id);
    if (b.type === 'item_list') for (const i of Array.isArray(b.ids) ? b.ids : []) add(String(b.item_type ?? 'finding'), i);
    if (b.type === 'quote') add('evidence', b.evidence_id);
  }
  return out;
}

/** `budget`: WORKSPACE_RESPONSE_BUDGET, in tokens, for the outline the model reads. */
export function documentPreviewTool(pipeline: Pipeline, budget: number): ToolSpec {
  return defineTool({
    name: 'preview_deliverable_document',
    input,
    quotesContent: true,
    description:
      'One deliverable document as the client will see it: its blocks, charts and cited findings and quotes, drawn in hosts that render apps. Use to show a document before publishing.',
    outputSchema: documentPreviewOutput,
    annotations: { readOnlyHint: true },
    _meta: viewMeta('document_preview'),
    async run(args, ctx) {
      const { engagement, kind } = args;
      const s = ctx.signal;
      const [docs, findings, interviews] = await Promise.all([
        // The list holds every document whole: this one and which of the others are included.
        section(() => allPages(pipeline, 'list_deliverable_documents', { engagement }, s, 1)),
        section(() => allPages(pipeline, 'list_findings', { engagement }, s)),
        section(() => allPages(pipeline, 'list_interviews', { engagement }, s, 1)),
      ]);
      if ('error' in docs) return readFailed(engagement, 'read the documents', docs);
      const doc = docs.items.find((d) => d.kind === kind);
      if (!doc) return toolError(`The deliverable has no ${kind} document (given as kind).`, { code: 'no_document' });
      const blocks = blocksOf(doc);
      const charts = new Set(blocks.filter((b) => b.type === 'chart').map((b) => String(b.chart)));
      const wants = cited(blocks);
      // Read only when a block needs them: topic coverage is the summary's, contradictions their list's.
      const [summary, contradictions] = await Promise.all([
        charts.has('topic_coverage') ? section(() => pipeline.invoke('get_analysis_summary', { engagement }, ctx).then((r) => r.data as Json)) : null,
        wants.has('contradiction') ? section(() => allPages(pipeline, 'list_contradictions', { engagement }, s, 1)) : null,
      ]);

      const interviewList = 'error' in interviews ? [] : interviews.items;
      const interviewById = new Map(interviewList.map((i) => [String(i.id), i] as const));
      const findingList = 'error' in findings ? [] : findings.items;
      const evidenceList = findingList.flatMap((f) => (Array.isArray(f.evidences) ? (f.evidences as Json[]) : []));
      const pick = <T>(type: string, list: Json[], shape: (r: Json) => T) =>
        Object.fromEntries(list.filter((r) => wants.get(type)?.has(String(r.id))).map((r) => [String(r.id), shape(r)]));
      const records = {
        finding: pick('finding', findingList, (f) => ({ type: f.type, statement: str(f.statement), review_status: f.review_status })),
        evidence: pick('evidence', evidenceList, (e) => {
          const i = typeof e.interview_id === 'string' ? interviewById.get(e.interview_id) : undefined;
          return { excerpt: str(e.excerpt), finding_id: e.finding_id ?? null, role: str(i?.interviewee_role), source_type: e.source_type };
        }),
        contradiction: pick('contradiction', contradictions && !('error' in contradictions) ? contradictions.items : [], (c) => ({
          topic: str(c.topic),
          status: c.status,
        })),
      };
      // What the charts that compute their figures are drawn from (the others carry theirs in options).
      const PAIN = new Set(['irritant', 're_entry', 'duration', 'volume', 'risk', 'key_person_dependency']);
      const data = {
        interviews: charts.has('coverage_bars')
          ? interviewList.map((i) => ({ id: i.id, department: str(i.department), role: str(i.interviewee_role), status: str(i.status) }))
          : [],
        pain_findings: charts.has('pain_heatmap')
          ? findingList
              .filter((f) => PAIN.has(String(f.type)))
              .map((f) => ({ id: f.id, type: f.type, step_id: f.step_id ?? null, review_status: f.review_status }))
          : [],
        topics: summary && !('error' in summary) ? (((summary.coverage as Json | undefined)?.topics as Json[] | undefined) ?? []) : [],
      };
      const missing = [
        ...('error' in findings ? [`findings: ${findings.error}`] : []),
        ...('error' in interviews ? [`interviews: ${interviews.error}`] : []),
        ...(summary && 'error' in summary ? [`summary: ${summary.error}`] : []),
        ...(contradictions && 'error' in contradictions ? [`contradictions: ${contradictions.error}`] : []),
      ];
      const document = { kind, title: str(doc.title) ?? kind, included: doc.included === true, updated_at: doc.updated_at ?? null, blocks };
      const documents = docs.items.map((d) => ({ kind: d.kind, title: str(d.title), included: d.included === true }));
      const outline = blocks.map((b) => {
        const label = str(b.title) ?? str(b.text) ?? (b.type === 'chart' ? String(b.chart) : '');
        return `- ${String(b.type)}${label ? `: ${label.length > 120 ? `${label.slice(0, 117)}...` : label}` : ''}`;
      });
      const { kept, left } = linesWithin(outline, budget);
      if (left) kept.push(`(${left} more blocks not shown here: get_deliverable_document has them all.)`);
      const head = `${document.title} (${kind}, ${document.included ? 'included in' : 'excluded from'} the deliverable): ${blocks.length} blocks.`;
      const others = `Included documents: ${documents
        .filter((d) => d.included)
        .map((d) => d.kind)
        .join(', ')}.`;
      return {
        content: [{ type: 'text', text: [head, ...kept, others, ...(missing.length ? [`Not read: ${missing.join('; ')}`] : [])].join('\n') }],
        structuredContent: { engagement, document, documents, records, data, ...(missing.length ? { missing } : {}) },
      };
    },
  });
}
