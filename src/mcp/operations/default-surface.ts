// The default surface (WORKSPACE_TOOLSETS unset): the operations chosen for the three jobs this server
// serves best (briefing on an engagement, chat-driven finding review, drafting deliverables: the
// catalog's `surface` facet), the workflow tools, and the gateway that reaches every other operation.
// Kept at most 30 tools and under 5,000 tokens of what the model sees of tools/list (test/mcp/tools/surface.test.ts).
// Direct tools that the workflows, the gateway and code mode make redundant are left to them (their
// catalog entries say why).
import { type Operation, SURFACE_JOBS } from '../../operation.js';

/** The catalog's operations shown as their own tool (their surface facet), by job, then in catalog order. */
export function surfaceOperations(ops: readonly Operation[]): Operation[] {
  return SURFACE_JOBS.flatMap((job) => ops.filter((o) => o.surface === job));
}
