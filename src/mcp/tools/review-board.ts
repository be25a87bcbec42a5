// review_board: the findings of one engagement to review, as cards in a host that renders MCP Apps
// (the review-board view), or as the concise list the model reads in one that does not. The view
// changes nothing itself: it calls review_findings and update_finding through the host, so every
// decision goes through the one pipeline (policy, validation, rate budget) like the model's own.
import { z } from 'zod';
import { FINDING_TYPES, id, REVIEW_STATUSES } from '../../../catalog/shared.js';
import { linesWithin } from '../apps/bounded-lines.js';
import { viewMeta } from '../apps/views.js';

import type { Pipeline } from '../pipeline/pipeline.js';
import { allPages, countBy, readFailed, section } from '../pipeline/sections.js';
import { defineTool, type ToolSpec } from '../pipeline/tool-spec.js';

type Json = Record<string, unknown>;

const input = z.strictObject({
  engagement: id(),
  review_status: z.enum(REVIEW_STATUSES).optional().describe('default proposed'),
  type: z.enum(FINDING_TYPES).optional(),
});

/** At most this many cards: a board, not an export (the text says how many were left out). */
const MAX_CARDS = 100;

const str = (v: unknown) => (typeof v === 'string' ? v : null);

/** One evidence as a card shows it: the excerpt and where it comes from (who and when, or which passage). */
function evidenceCard(e: Json, interviews: Map<string, Json>): Json {
  const interview = typeof e.interview_id === 'string' ? interviews.get(e.interview_id) : undefined;
  const locator = (e.locator ?? null) as Json | null;
  return {
    id: e.id,
    excerpt: str(e.excerpt) ?? '',
    source_type: str(e.source_type) ?? 'unknown',
    participant: str(interview?.interviewee_name),
    role: str(interview?.interviewee_role),
    interview: str(interview?.title),
    at_ms: typeof locator?.start_ms === 'number' ? locator.start_ms : null,
  };
}

const reviewBoardOutput = {
  type: 'object',
  properties: { findings: { type: 'array' }, total: { type: 'integer' }, can_write: { type: 'boolean' } },
  required: ['findings', 'total', 'can_write'],
} as const;

/** `budget`: WORKSPACE_RESPONSE_BUDGET, in tokens, for the text the model reads. */
export function reviewBoardTool(pipeline: Pipeline, budget: number): ToolSpec {
  return defineTool({
    name: 'review_board',
    input,
    quotesContent: true,
    description:
      'Findings of an engagement to review (default: proposed) with their evidences; in hosts that render apps, an interactive board where the user validates, rejects, reopens or edits them. Use when the user wants to review findings.',
    outputSchema: reviewBoardOutput,
    annotations: { readOnlyHint: true },
    _meta: viewMeta('review_board'),
    async run(args, ctx) {
      const { engagement, review_status = 'proposed', type } = args;
      const [findings, interviews] = await Promise.all([
        section(() => allPages(pipeline, 'list_findings', { engagement }, ctx.signal)),
        // Who said what: an evidence names its interview, the interview its participant and role.
        section(() => allPages(pipeline, 'list_interviews', { engagement }, ctx.signal, 1)),
      ]);
      if ('error' in findings) return readFailed(engagement, 'list the findings', findings);
      const byId = new Map('error' in interviews ? [] : interviews.items.map((i) => [String(i.id), i] as const));
      const shown = findings.items.filter((f) => f.review_status === review_status && (!type || f.type === type));
      const cards = shown.slice(0, MAX_CARDS).map((f) => ({
        id: f.id,
        type: f.type,
        statement: str(f.statement) ?? '',
        details: str(f.details),
        quantity: f.quantity ?? null,
        review_status: f.review_status,
        updated_at: f.updated_at ?? null,
        evidences: (Array.isArray(f.evidences) ? (f.evidences as Json[]) : []).map((e) => evidenceCard(e, byId)),
      }));
      const canWrite = pipeline.registry.writesAllowed();
      const value = {
        engagement,
        filter: { review_status, type: type ?? null },
        total: shown.length,
        can_write: canWrite,
        counts: { by_type: countBy(findings.items, 'type'), by_review_status: countBy(findings.items, 'review_status') },
        findings: cards,
        ...('error' in interviews ? { interviews_error: interviews.error } : {}),
      };
      // The model reads what a table would have told it: one line per finding, ids to act on.
      const what = `${shown.length} ${review_status} finding${shown.length === 1 ? '' : 's'}${type ? ` of type ${type}` : ''}`;
      const lines = cards.map(
        (c) => `- ${String(c.id)} [${String(c.type)}] ${c.statement} (${c.evidences.length} evidence${c.evidences.length === 1 ? '' : 's'})`,
      );
      const { kept, left } = linesWithin(lines, budget);
      const notShown = left + shown.length - cards.length;
      const more = notShown ? `\n(${notShown} more not shown here: filter by type, or list them with list_findings.)` : '';
      const next = canWrite
        ? 'Decide with review_findings (validate, reject, reopen as proposed) and edit with update_finding.'
        : 'This session is read-only: nothing can be decided here.';
      return {
        content: [{ type: 'text', text: `${what} in engagement ${engagement}:\n${kept.join('\n')}${more}\n${next}` }],
        structuredContent: value,
      };
    },
  });
}
