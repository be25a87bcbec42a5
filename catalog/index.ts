// The operation catalog: every documented operation of the Workspace Consulting API, by area.
import type { Operation } from '../src/operation.js';
import { ai } from './ai.js';
import { analysis } from './analysis.js';
import { chat } from './chat.js';
import { deliverables } from './deliverables.js';
import { engagements } from './engagements.js';
import { integrations } from './integrations.js';
import { interviews } from './interviews.js';
import { methods } from './methods.js';
import { privacy } from './privacy.js';
import { catalogProblems } from './shared.js';
import { sources } from './sources.js';
import { usage } from './usage.js';
import { workspace } from './workspace.js';

export const catalog: readonly Operation[] = [
  ...ai,
  ...engagements,
  ...methods,
  ...analysis,
  ...interviews,
  ...sources,
  ...deliverables,
  ...chat,
  ...usage,
  ...workspace,
  ...privacy,
  ...integrations,
];

// A facet naming an operation that does not exist fails here, at start, not at the first job followed.
const problems = catalogProblems(catalog);
if (problems.length) throw new Error(`The operation catalog is inconsistent:\n${problems.join('\n')}`);

const byName = new Map(catalog.map((o) => [o.name, o]));

export function findOperation(name: string): Operation | undefined {
  return byName.get(name);
}
