// Seeds the demo workspaces in a fixed order, so generated ids are the same on every start.
import type { WorkspaceState } from '../types.js';
import { seedAi } from './ai.js';
import { seedAnalysis } from './analysis.js';
import { seedDeliverables } from './deliverables.js';
import { seedInterviews } from './interviews.js';
import { seedMethods } from './methods.js';
import { seedPrivacy } from './privacy.js';
import { seedSources } from './sources.js';
import { seedUsage } from './usage.js';
import { seedGlobex, seedWorkspace } from './workspace.js';

/** The main demo workspace: an accounts-payable audit of Maison Berthier SA. */
export function seedAtelier(ws: WorkspaceState): void {
  seedWorkspace(ws); // members, tokens, invitations, client company, engagement
  seedMethods(ws);
  seedAi(ws);
  seedInterviews(ws);
  seedSources(ws);
  seedAnalysis(ws);
  seedDeliverables(ws);
  seedUsage(ws);
  seedPrivacy(ws);
}

/** A second, smaller workspace: proves that ids of one workspace answer 404 in the other. */
export { seedGlobex };
