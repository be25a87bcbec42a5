// The default surface (WORKSPACE_TOOLSETS unset): a few tools chosen for the three jobs this server
// serves best (querying engagements from a desktop assistant, chat-driven finding review, agents
// drafting deliverables), the workflow tools, and the gateway that reaches every other operation.
// Kept at most 25 tools and under 6,000 tokens of tools/list (test/mcp/surface.test.ts).
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ApiClient } from '../api/client.js';
import type { HttpMethod, Operation } from '../operation.js';
import type { RunOperation } from './execute.js';
import { gatewayTools } from './gateway.js';
import type { ToolRegistry } from './registry.js';
import { expand, TEMPLATES } from './resources.js';
import type { OperationIndex } from './search.js';
import { FIELDS_PROPERTY, RESPONSE_FORMAT_PROPERTY, takesResponseFormat } from './render/index.js';
import { toolDefinition, type SurfaceTool } from './tools.js';
import { workflowTools } from './workflows.js';

/**
 * Operations shown as their own tool, by method and path (stable across a live description's naming).
 * Those only the live description has (engagement listing, the audit chat) appear when it has them.
 */
export const DIRECT_OPERATIONS: ReadonlyArray<{ method: HttpMethod; path: string; job: string }> = [
  // Querying engagements
  { method: 'GET', path: '/engagements', job: 'query' },
  { method: 'GET', path: '/engagements/{engagement}/interviews', job: 'query' },
  { method: 'GET', path: '/sessions/{session}/transcript', job: 'query' },
  { method: 'POST', path: '/engagements/{engagement}/chat/ask', job: 'query' },
  // Finding review
  { method: 'GET', path: '/engagements/{engagement}/findings', job: 'review' },
  { method: 'GET', path: '/engagements/{engagement}/findings/{finding}', job: 'review' },
  { method: 'POST', path: '/engagements/{engagement}/findings', job: 'review' },
  { method: 'PATCH', path: '/engagements/{engagement}/findings/{finding}', job: 'review' },
  { method: 'GET', path: '/engagements/{engagement}/contradictions', job: 'review' },
  { method: 'POST', path: '/engagements/{engagement}/contradictions/{contradiction}/resolve', job: 'review' },
  { method: 'POST', path: '/engagements/{engagement}/analysis/runs', job: 'review' },
  { method: 'GET', path: '/engagements/{engagement}/analysis/runs/{run}', job: 'review' },
  // Drafting deliverables
  { method: 'GET', path: '/engagements/{engagement}/deliverable/documents', job: 'draft' },
  { method: 'PATCH', path: '/engagements/{engagement}/deliverable/documents/{kind}', job: 'draft' },
  { method: 'POST', path: '/engagements/{engagement}/deliverable/documents/{kind}/generate', job: 'draft' },
  { method: 'POST', path: '/engagements/{engagement}/deliverable/publish', job: 'draft' },
  { method: 'POST', path: '/engagements/{engagement}/exports', job: 'draft' },
  { method: 'GET', path: '/engagements/{engagement}/exports/{export}', job: 'draft' },
  { method: 'GET', path: '/engagements/{engagement}/exports/{export}/download', job: 'draft' },
];

/**
 * A list tool of the default surface also shows `fields`, and every read of it `response_format`
 * (the gateway explains them for the others).
 */
function directDefinition(op: Operation): Tool {
  const t = toolDefinition(op);
  const extra = { ...(op.paginated ? { fields: FIELDS_PROPERTY } : {}), ...(takesResponseFormat(op) ? { response_format: RESPONSE_FORMAT_PROPERTY } : {}) };
  if (!Object.keys(extra).length) return t;
  const props = (t.inputSchema.properties ?? {}) as Record<string, object>;
  return { ...t, inputSchema: { ...t.inputSchema, properties: { ...props, ...extra } } };
}

/** The direct tools present in this session (the registry knows the live operations once merged). */
export function directTools(registry: ToolRegistry, run: RunOperation): SurfaceTool[] {
  const out: SurfaceTool[] = [];
  const callable = registry.callable();
  for (const d of DIRECT_OPERATIONS) {
    const op = callable.find((o) => o.method === d.method && o.path === d.path);
    if (!op) continue;
    out.push({
      scope: op.scope,
      definition: directDefinition(op),
      run: (args, extra) => run(op, args ?? {}, { signal: extra.signal, ...(extra.progress ? { progress: extra.progress } : {}) }),
    });
  }
  return out;
}

export interface SurfaceDeps {
  registry: ToolRegistry;
  client: ApiClient;
  run: RunOperation;
  index: OperationIndex;
  /** WORKSPACE_RESPONSE_BUDGET, for the workflow tools' own answers. */
  budget: number;
  ready: () => Promise<void>;
}

/** Every tool of the default surface, in the order listed: direct tools, workflows, the gateway. */
export function defaultSurface(d: SurfaceDeps): SurfaceTool[] {
  return [
    ...directTools(d.registry, d.run),
    ...workflowTools({ registry: d.registry, client: d.client, budget: d.budget, ready: d.ready, engagementUri: (e) => expand(TEMPLATES[0]!.uriTemplate, { engagement: e }) }),
    ...gatewayTools({ registry: d.registry, index: d.index, run: d.run, ready: d.ready }),
  ];
}

/** What tools/list answers: the surface's tools this session may call, or one tool per listed operation. */
export function listedTools(registry: ToolRegistry, surface: readonly SurfaceTool[] | undefined): Tool[] {
  if (!surface) return registry.listed().map(toolDefinition);
  return surface.filter((t) => t.scope === 'read' || registry.writesAllowed()).map((t) => t.definition);
}
