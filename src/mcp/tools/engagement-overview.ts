// engagement_overview: everything about one engagement in one call.
// A workflow: its inner operations go through the pipeline (src/mcp/pipeline/sections.ts says how).
import { z } from 'zod';
import { id } from '../../../catalog/shared.js';
import { viewMeta } from '../apps/views.js';
import { resourceUri } from '../operations/resources.js';
import { sectionsResult } from '../pipeline/result-schemas.js';
import { allPages, countBy, OPEN, section, sectionsFailed, type WorkflowDeps } from '../pipeline/sections.js';
import { type CallContext, defineTool, type ToolSpec } from '../pipeline/tool-spec.js';
import { renderWorkflow } from '../render/index.js';

type Json = Record<string, unknown>;

const overviewInput = z.strictObject({ engagement: id() });

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

export function engagementOverviewTool(deps: WorkflowDeps): ToolSpec {
  const { pipeline } = deps;
  return defineTool({
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
      const unknown = sectionsFailed(engagement, [eng, summary, contradictions, draft]);
      if (unknown) return unknown;
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
}
