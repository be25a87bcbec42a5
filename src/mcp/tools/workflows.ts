// Workflow tools: one call for what an assistant would otherwise do in five to fifty. Each runs its
// inner operations through the pipeline (`invoke`: the same policy, validation, token rate limiter and
// retries as a direct call), reads in parallel, writes one after another, and every part that failed
// is reported, never silently left out. The pipeline validates their own arguments and marks their
// results as workspace content.
import { z } from 'zod';
import { DOCUMENT_KINDS, id, REVIEW_STATUSES } from '../../../catalog/shared.js';
import { WorkspaceApiError } from '../../api/errors.js';
import { viewMeta } from '../apps/views.js';
import { resourceUri } from '../operations/resources.js';
import { allPages } from '../pipeline/list-pages.js';
import { InvocationRefused, type Pipeline } from '../pipeline/pipeline.js';
import { REVIEWS_RESULT, sectionsResult } from '../pipeline/result-schemas.js';
import { type CallContext, defineTool, type ToolSpec } from '../pipeline/tool-spec.js';
import { renderError, renderWorkflow, toolError } from '../render/index.js';
import { refusal, refusalResult } from '../render/refusal.js';
import { editDocumentBlocks } from './edit-document-blocks.js';

interface WorkflowDeps {
  pipeline: Pipeline;
  /** WORKSPACE_RESPONSE_BUDGET, for the workflows' own answers. */
  budget: number;
}

type Json = Record<string, unknown>;

function errorText(err: unknown): string {
  if (err instanceof WorkspaceApiError) return `HTTP ${err.status} ${err.code}: ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}

export function countBy(items: Json[], key: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const it of items) {
    const k = String(it[key] ?? 'unknown');
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

/** What the model is told when `engagement` is not in the workspace, with how to find the right id. */
export const engagementNotFound = (engagement: string) => `Engagement ${engagement} was not found in this workspace. List engagements to find its id.`;

/** Settled sections: a failed part is reported in place, the others still answer. */
export async function section<T>(f: () => Promise<T>): Promise<T | { error: string }> {
  try {
    return await f();
  } catch (err) {
    return { error: errorText(err) };
  }
}

const overviewInput = z.strictObject({ engagement: id() });
const reviewInput = z.strictObject({
  engagement: id(),
  reviews: z
    .array(z.strictObject({ finding: id(), review_status: z.enum(REVIEW_STATUSES) }))
    .min(1)
    .max(100),
});
const contextInput = z.strictObject({
  engagement: id(),
  kind: z.enum(DOCUMENT_KINDS),
  outline: z.boolean().optional().describe('true: a line per block (id, type, first words) and per validated finding'),
});

/** How many words of a block the outline shows: enough to tell blocks apart and find one. */
const OUTLINE_WORDS = 10;

/** The first words of a text, with an ellipsis when there were more. */
function firstWords(text: string, n = OUTLINE_WORDS): string {
  const words = text.split(/\s+/).filter(Boolean);
  return words.length > n ? `${words.slice(0, n).join(' ')}…` : words.join(' ');
}

/** One block of document_context's outline. */
export interface OutlineBlock {
  id: string | null;
  type: string;
  title?: string;
  words: string;
  /** A key_figures block's items, all of them: what a replace that adds one re-sends. */
  items?: string[];
}

/**
 * One block of the outline: its id, its type, its title and what it says in a few words. A
 * key_figures block shows its items (each short), an item list how many ids of what it lists, a
 * chart its kind; a text the outline cuts ends with an ellipsis.
 */
export function outlineOf(blocks: readonly Json[]): OutlineBlock[] {
  return blocks.map((b) => {
    const out: OutlineBlock = { id: typeof b.id === 'string' ? b.id : null, type: String(b.type ?? ''), words: '' };
    if (typeof b.title === 'string' && b.title) out.title = b.title;
    if (Array.isArray(b.items)) {
      out.items = (b.items as unknown[]).map(String);
      out.words = firstWords(out.items.join('; '), 4 * OUTLINE_WORDS);
    } else if (Array.isArray(b.ids)) out.words = `${b.ids.length} ${String(b.item_type ?? 'item')} ids`;
    else if (typeof b.chart === 'string') out.words = b.chart;
    else if (typeof b.text === 'string') out.words = firstWords(b.text);
    return out;
  });
}

/** The outline's line for a block: "id type: title: first words". */
function outlineLine(b: OutlineBlock): string {
  const said = [b.title, b.words].filter(Boolean).join(': ');
  return `${b.id ?? '(no id)'} ${b.type}${said ? `: ${said}` : ''}`;
}

/** AI cost so far, in the few figures a briefing needs: the total and what it was spent on. */
function aiCost(costs: Json): Json {
  if ('error' in costs) return costs;
  const byUsage = Array.isArray(costs.by_usage) ? (costs.by_usage as Json[]) : [];
  return {
    total_eur: costs.total_eur ?? null,
    currency: costs.currency ?? 'EUR',
    by_usage: byUsage.map((u) => ({ usage: u.usage, cost_eur: u.cost_eur ?? null })),
  };
}

const OPEN = new Set(['open', 'pending', 'unresolved']);

export function workflowTools(deps: WorkflowDeps): ToolSpec[] {
  const { pipeline } = deps;

  const overview = defineTool({
    name: 'engagement_overview',
    input: overviewInput,
    quotesContent: true,
    description:
      'Everything about one engagement in one call: the engagement, analysis summary and coverage, findings counted by type and review status, open contradictions, latest analysis run, deliverable stage, AI cost so far. Start here to brief someone on an engagement.',
    annotations: { readOnlyHint: true },
    // Hosts that render MCP Apps draw the answer as the engagement dashboard.
    _meta: viewMeta('engagement_dashboard'),
    outputSchema: sectionsResult(['engagement', 'coverage', 'findings', 'contradictions', 'latest_analysis_run', 'deliverable', 'ai_cost', 'analysis_summary']),
    async run(args, ctx: CallContext) {
      const { engagement } = args;
      const s = ctx.signal;
      const get = (name: string, more: Json = {}) => pipeline.invoke(name, { engagement, ...more }, ctx).then((r) => r.data);
      const [eng, summary, contradictions, draft, costs] = await Promise.all([
        section(() => get('get_engagement')),
        section(() => get('get_analysis_summary')),
        section(async () => {
          const { items } = await allPages(pipeline, 'list_contradictions', { engagement }, s, 2);
          const open = items.filter((c) => OPEN.has(String(c.status)));
          return { open: open.length, total: items.length, items: open.slice(0, 20) };
        }),
        section(() => get('get_deliverable_draft')),
        section(() => get('get_engagement_costs')),
      ]);
      // The analysis summary already counts the findings and names the latest run: they are
      // requested on their own only when it does not (6 requests down to 4, the same facts).
      const summaryData = summary as Json;
      const told = (key: string) => !('error' in summaryData) && key in summaryData;
      const [findings, latestRun] = await Promise.all([
        told('findings')
          ? summaryData.findings
          : section(async () => {
              const { items, complete } = await allPages(pipeline, 'list_findings', { engagement }, s);
              return { total: items.length, complete, by_type: countBy(items, 'type'), by_review_status: countBy(items, 'review_status') };
            }),
        told('last_run')
          ? summaryData.last_run
          : section(() => get('list_analysis_runs', { limit: 1 })).then((runs) => (Array.isArray(runs) ? (runs[0] ?? null) : runs)),
      ]);
      // A 404 on everything is an unknown engagement, not several failures.
      const sections = [eng, summary, contradictions, draft];
      if (sections.every((x) => x && typeof x === 'object' && 'error' in x && String(x.error).startsWith('HTTP 404'))) {
        return toolError(engagementNotFound(engagement), { error: { code: 'not_found' } });
      }
      const draftData = draft as Json;
      // The rest of the summary, without what the sections above already say.
      const {
        engagement_id: _e,
        findings: _f,
        contradictions: _c,
        coverage: _v,
        last_run: _r,
        ...otherCounts
      } = 'error' in summaryData ? ({} as Json) : summaryData;
      const value: Json = {
        engagement: eng,
        coverage: 'error' in summaryData ? summaryData : (summaryData.coverage ?? null),
        findings,
        contradictions,
        latest_analysis_run: latestRun,
        deliverable: 'error' in draftData ? draftData : { stage: draftData.stage ?? null, updated_at: draftData.updated_at ?? null, id: draftData.id ?? null },
        ai_cost: aiCost(costs as Json),
        analysis_summary: otherCounts,
      };
      const uri = resourceUri('engagement', { engagement });
      return renderWorkflow(value, ctx.budget ?? deps.budget, {
        extra: [{ type: 'resource_link', uri, name: `engagement ${engagement}`, mimeType: 'application/json' }],
        how: 'call the operation behind the section (get_engagement, list_contradictions, get_analysis_summary, get_deliverable_draft, get_engagement_costs)',
        known: [engagement],
      });
    },
  });

  const review = defineTool({
    name: 'review_findings',
    input: reviewInput,
    quotesContent: false,
    description:
      'Validate or reject several findings of one engagement in one call (review_status validated, rejected, or proposed to reopen). Each finding is reviewed in turn and the result says, per finding, whether it was applied.',
    annotations: { readOnlyHint: false, idempotentHint: true },
    outputSchema: REVIEWS_RESULT,
    async run(args, extra) {
      const { engagement, reviews } = args;
      const seen = new Set<string>();
      const twice = reviews
        .map((r) => r.finding)
        .filter((f) => {
          if (seen.has(f)) return true;
          seen.add(f);
          return false;
        });
      if (twice.length) {
        return refusalResult(
          refusal('review_findings', [{ path: ['reviews'], rule: `give one decision per finding: ${twice.join(', ')} appears more than once` }]),
        );
      }
      const results: Json[] = [];
      for (const [i, r] of reviews.entries()) {
        if (extra.signal.aborted) {
          // Not sent: reported as such (the client gets this only if it still listens).
          results.push({ finding: r.finding, review_status: r.review_status, ok: false, error: 'not sent: the call was cancelled' });
          continue;
        }
        try {
          const res = await pipeline.invoke('review_finding', { engagement, finding: r.finding, review_status: r.review_status }, extra);
          const f = (res.data ?? {}) as Json;
          results.push({ finding: r.finding, review_status: f.review_status ?? r.review_status, ok: true });
        } catch (err) {
          results.push({ finding: r.finding, review_status: r.review_status, ok: false, error: errorText(err) });
        }
        extra.progress?.(i + 1, reviews.length, `reviewed ${i + 1} of ${reviews.length}`);
      }
      const applied = results.filter((r) => r.ok).length;
      const failed = results.length - applied;
      const head = failed
        ? `${applied} of ${results.length} reviews applied; ${failed} failed (listed with their error; the others are done).`
        : `All ${applied} reviews applied.`;
      const lines = results.map((r) => `- ${String(r.finding)}: ${r.ok ? `now ${String(r.review_status)}` : `NOT applied: ${String(r.error)}`}`);
      return {
        ...(failed === results.length ? { isError: true } : {}),
        content: [{ type: 'text', text: `${head}\n${lines.join('\n')}` }],
        structuredContent: { applied, failed, results },
      };
    },
  });

  const context = defineTool({
    name: 'document_context',
    input: contextInput,
    quotesContent: true,
    description:
      'What drafting one deliverable document needs, in one call: the document (its blocks, with the ids edit_document_blocks takes), the validated findings to cite (id, type, statement), open contradictions and the draft stage. With outline: true, a few words per block and per finding.',
    annotations: { readOnlyHint: true },
    // The outline answers kind and document only.
    outputSchema: { ...sectionsResult(['kind', 'document', 'findings', 'open_contradictions', 'draft']), required: ['kind', 'document'] },
    async run(args, extra) {
      const { engagement, kind, outline } = args;
      const s = extra.signal;
      if (outline) {
        // The document and the findings to cite, each in a line per item: what choosing edits needs.
        const [doc, found] = await Promise.all([
          pipeline.invoke('get_deliverable_document', { engagement, kind }, extra).then(
            (r) => (r.data ?? {}) as Json,
            (err: unknown) => err,
          ),
          section(() => allPages(pipeline, 'list_findings', { engagement }, s)),
        ]);
        if (doc instanceof Error || !doc || typeof doc !== 'object') {
          if (s.aborted) throw doc;
          if (doc instanceof InvocationRefused) return doc.result;
          const op = pipeline.registry.get('get_deliverable_document');
          return op ? renderError(op, doc) : toolError(errorText(doc));
        }
        const d = doc as Json;
        const blocks = outlineOf(Array.isArray(d.blocks) ? (d.blocks as Json[]) : []);
        const updated = String(d.updated_at ?? '');
        const validated =
          'error' in found
            ? found
            : found.items.filter((f) => f.review_status === 'validated').map((f) => ({ id: String(f.id), words: firstWords(String(f.statement ?? ''), 8) }));
        const lines = blocks.map(outlineLine);
        const cite = Array.isArray(validated) ? validated.map((f) => `${f.id}: ${f.words}`) : [`(not read: ${validated.error})`];
        const text =
          `${kind}, updated_at ${updated}, ${blocks.length} blocks (id type: first words):\n${lines.join('\n')}\n` +
          `Validated findings to cite (id: first words):\n${cite.join('\n')}`;
        return { content: [{ type: 'text', text }], structuredContent: { kind, document: { updated_at: updated, blocks }, findings: { validated } } };
      }
      const [document, findings, contradictions, draft] = await Promise.all([
        section(() => pipeline.invoke('get_deliverable_document', { engagement, kind }, extra).then((r) => r.data)),
        section(async () => {
          const { items, complete } = await allPages(pipeline, 'list_findings', { engagement }, s);
          const validated = items
            .filter((f) => f.review_status === 'validated')
            .map((f) => ({ id: f.id, type: f.type, statement: f.statement, deliverable_category: f.deliverable_category }));
          return { validated, proposed: items.filter((f) => f.review_status === 'proposed').length, complete };
        }),
        section(async () => {
          const { items } = await allPages(pipeline, 'list_contradictions', { engagement }, s, 1);
          return items.filter((c) => OPEN.has(String(c.status)));
        }),
        section(() => pipeline.invoke('get_deliverable_draft', { engagement }, extra).then((r) => r.data)),
      ]);
      const d = draft as Json;
      const value = {
        kind,
        document,
        findings,
        open_contradictions: contradictions,
        draft: 'error' in d ? d : { stage: d.stage, attribution: d.attribution, include_proposed: d.include_proposed },
      };
      // The document's updated_at is what a whole-document update echoes: kept in the concise form.
      return renderWorkflow(value, extra.budget ?? deps.budget, {
        keep: ['document.updated_at'],
        how: 'call the operation behind the section (get_deliverable_document, list_contradictions)',
        known: [engagement],
      });
    },
  });

  return [overview, review, context, editDocumentBlocks(deps)];
}
