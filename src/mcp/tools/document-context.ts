// document_context: what drafting one deliverable document needs, in one call.
// A workflow: its inner operations go through the pipeline (src/mcp/pipeline/sections.ts says how).
import { z } from 'zod';
import { DOCUMENT_KINDS, id } from '../../../catalog/shared.js';
import { InvocationRefused } from '../pipeline/invocation-refused.js';
import { DOCUMENT_CONTEXT_RESULT } from '../pipeline/result-schemas.js';
import { allPages, errorText, OPEN, section, sectionsFailed, type WorkflowDeps } from '../pipeline/sections.js';
import { defineTool, type ToolSpec } from '../pipeline/tool-spec.js';
import { renderError, renderWorkflow, toolError } from '../render/index.js';

type Json = Record<string, unknown>;

const contextInput = z.strictObject({
  engagement: id(),
  kind: z.enum(DOCUMENT_KINDS),
  outline: z.boolean().optional().describe('true: a line per block (id, type, title, first words; key figures whole) and per validated finding'),
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
 * key_figures block shows its items whole (each short), an item list how many ids of what it lists,
 * a chart its kind; a text the outline cuts ends with an ellipsis.
 */
export function outlineOf(blocks: readonly Json[]): OutlineBlock[] {
  return blocks.map((b) => {
    const out: OutlineBlock = { id: typeof b.id === 'string' ? b.id : null, type: String(b.type ?? ''), words: '' };
    if (typeof b.title === 'string' && b.title) out.title = b.title;
    if (Array.isArray(b.items)) {
      // Whole: each item is short, and a replace (or an update of items) re-sends them all.
      out.items = (b.items as unknown[]).map(String);
      out.words = out.items.join('; ');
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

export function documentContextTool(deps: WorkflowDeps): ToolSpec {
  const { pipeline } = deps;
  return defineTool({
    name: 'document_context',
    input: contextInput,
    quotesContent: true,
    description:
      "What drafting one deliverable document needs, in one call: the document (its blocks, with the ids edit_document_blocks takes), the validated findings to cite (id, type, statement), open contradictions and the draft stage. With outline: true, a line per block (its title and first words; a key_figures block's items whole, an item list's count) and per finding.",
    annotations: { readOnlyHint: true },
    // The outline answers kind, document and findings only.
    outputSchema: DOCUMENT_CONTEXT_RESULT,
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
          return op ? renderError(op, doc, { engagement, kind }) : toolError(errorText(doc), { code: 'read_failed' });
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
        // A failed read of the findings is the section's {error}, as in every workflow section.
        const findings = Array.isArray(validated) ? { validated } : validated;
        return { content: [{ type: 'text', text }], structuredContent: { kind, document: { updated_at: updated, blocks }, findings } };
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
      const unknown = sectionsFailed(engagement, [document, findings, contradictions, draft]);
      if (unknown) return unknown;
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
}
