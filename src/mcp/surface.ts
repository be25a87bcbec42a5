// The default surface (WORKSPACE_TOOLSETS unset): a few tools chosen for the three jobs this server
// serves best (querying engagements from a desktop assistant, chat-driven finding review, agents
// drafting deliverables), the workflow tools, and the gateway that reaches every other operation.
// Kept at most 25 tools and under 6,000 tokens of tools/list (test/mcp/surface.test.ts).
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ApiClient } from '../api/client.js';
import { SURFACE_JOBS, type Operation } from '../operation.js';
import type { RunOperation } from './execute.js';
import { gatewayTools } from './gateway.js';
import type { ToolRegistry } from './registry.js';
import { resourceUri } from './resources.js';
import type { OperationIndex } from './search.js';
import { toolDefinition, type SurfaceTool } from './tools.js';
import { workflowTools } from './workflows.js';

/** The catalog's operations shown as their own tool (their surface facet), by job, then in catalog order. */
export function surfaceOperations(ops: readonly Operation[]): Operation[] {
  return SURFACE_JOBS.flatMap((job) => ops.filter((o) => o.surface === job));
}

const FIELDS_PROP = { type: 'array', items: { type: 'string' } } as const;

/** A list tool of the default surface also shows `fields` (the gateway explains it for the others). */
function directDefinition(op: Operation): Tool {
  const t = toolDefinition(op);
  if (!op.paginated) return t;
  const props = (t.inputSchema.properties ?? {}) as Record<string, object>;
  return { ...t, inputSchema: { ...t.inputSchema, properties: { ...props, fields: FIELDS_PROP } } };
}

/** The direct tools present in this session (the registry knows the live operations once merged). */
export function directTools(registry: ToolRegistry, run: RunOperation): SurfaceTool[] {
  const out: SurfaceTool[] = [];
  for (const op of surfaceOperations(registry.callable())) {
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
    ...workflowTools({ registry: d.registry, client: d.client, budget: d.budget, ready: d.ready, engagementUri: (e) => resourceUri('engagement', { engagement: e }) }),
    ...gatewayTools({ registry: d.registry, index: d.index, run: d.run, ready: d.ready }),
  ];
}

/** What tools/list answers: the surface's tools this session may call, or one tool per listed operation. */
export function listedTools(registry: ToolRegistry, surface: readonly SurfaceTool[] | undefined): Tool[] {
  if (!surface) return registry.listed().map(toolDefinition);
  return surface.filter((t) => t.scope === 'read' || registry.writesAllowed()).map((t) => t.definition);
}
