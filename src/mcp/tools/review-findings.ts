// review_findings: several findings of one engagement reviewed in one call.
// A workflow: its inner operations go through the pipeline (src/mcp/pipeline/sections.ts says how).
import { z } from 'zod';
import { id, REVIEW_STATUSES } from '../../../catalog/shared.js';
import { REVIEWS_RESULT } from '../pipeline/result-schemas.js';
import { errorText, type WorkflowDeps } from '../pipeline/sections.js';
import { defineTool, type ToolSpec } from '../pipeline/tool-spec.js';
import { ERROR_META_KEY } from '../render/index.js';
import { refusal, refusalResult } from '../render/refusal.js';

type Json = Record<string, unknown>;

const reviewInput = z.strictObject({
  engagement: id(),
  reviews: z
    .array(z.strictObject({ finding: id(), review_status: z.enum(REVIEW_STATUSES) }))
    .min(1)
    .max(100),
});

export function reviewFindingsTool(deps: WorkflowDeps): ToolSpec {
  const { pipeline } = deps;
  return defineTool({
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
      const answer = { content: [{ type: 'text' as const, text: `${head}\n${lines.join('\n')}` }], structuredContent: { applied, failed, results } };
      // Every review failed: an error, in the tool's own shape (each result says why).
      return failed === results.length ? { ...answer, isError: true, _meta: { [ERROR_META_KEY]: { code: 'reviews_failed' } } } : answer;
    },
  });
}
