// The sandbox's areas, one file each (handlers, demo records, demo ids), checked at load against the
// operations the sandbox serves: an operation without a handler, a handler naming no operation, or a
// handler in another area's file stops the sandbox (and the server embedding it) from starting.
import type { Toolset } from '../../operation.js';
import { sandboxOperations } from '../server.js';
import type { Handler, SandboxArea, SandboxOperation, WorkspaceState } from '../types.js';
import { area as ai } from './ai.js';
import { area as analysis } from './analysis.js';
import { area as chat } from './chat.js';
import { area as deliverables } from './deliverables.js';
import { area as engagements } from './engagements.js';
import { area as integrations } from './integrations.js';
import { area as interviews } from './interviews.js';
import { area as methods } from './methods.js';
import { area as privacy } from './privacy.js';
import { area as sources } from './sources.js';
import { area as usage } from './usage.js';
import { area as workspace } from './workspace.js';

export const areas: readonly SandboxArea[] = [
  ai,
  analysis,
  chat,
  deliverables,
  engagements,
  integrations,
  interviews,
  methods,
  privacy,
  sources,
  usage,
  workspace,
];

/**
 * What keeps `areas` from serving `operations` one to one: each operation answered by exactly one
 * handler, in the file of the operation's area; each handler named for an operation; each area once;
 * each `$demo` kind declared once; `after` naming areas that exist, without a cycle.
 */
export function areaProblems(list: readonly SandboxArea[], operations: readonly SandboxOperation[]): string[] {
  const problems: string[] = [];
  const byName = new Map(operations.map((o) => [o.name, o]));
  const areaOf = new Map<string, Toolset>();
  const seen = new Set<Toolset>();
  const kinds = new Map<string, Toolset>();
  for (const a of list) {
    if (seen.has(a.toolset)) problems.push(`area ${a.toolset} is declared twice`);
    seen.add(a.toolset);
    for (const name of Object.keys(a.handlers)) {
      const op = byName.get(name);
      if (!op) problems.push(`handlers/${a.toolset}.ts: ${name} answers no operation of the catalog (nor an assumed one)`);
      else if (op.toolset !== a.toolset)
        problems.push(`handlers/${a.toolset}.ts: ${name} is an operation of ${op.toolset}: its handler belongs in handlers/${op.toolset}.ts`);
      const other = areaOf.get(name);
      if (other !== undefined) problems.push(`${name} has handlers in both ${other} and ${a.toolset}`);
      areaOf.set(name, a.toolset);
    }
    for (const kind of Object.keys(a.demo ?? {})) {
      const other = kinds.get(kind);
      if (other !== undefined) problems.push(`$demo.${kind} is declared by both ${other} and ${a.toolset}`);
      kinds.set(kind, a.toolset);
    }
  }
  for (const op of operations) {
    if (!areaOf.has(op.name)) problems.push(`${op.name} (${op.method} ${op.path}) has no handler: add one to handlers/${op.toolset}.ts`);
  }
  try {
    seedOrder(list);
  } catch (e) {
    problems.push((e as Error).message);
  }
  return problems;
}

/**
 * The areas in an order that seeds each after the areas it reads (`after`), the others in the order
 * given. The order decides nothing else: ids derive from the records, not from their rank.
 */
export function seedOrder(list: readonly SandboxArea[]): SandboxArea[] {
  const byToolset = new Map(list.map((a) => [a.toolset, a]));
  const out: SandboxArea[] = [];
  const state = new Map<Toolset, 'visiting' | 'done'>();
  const visit = (a: SandboxArea, path: Toolset[]) => {
    if (state.get(a.toolset) === 'done') return;
    if (state.get(a.toolset) === 'visiting') throw new Error(`areas seed in a cycle: ${[...path, a.toolset].join(' -> ')}`);
    state.set(a.toolset, 'visiting');
    for (const t of a.after ?? []) {
      const dep = byToolset.get(t);
      if (!dep) throw new Error(`area ${a.toolset} seeds after ${t}, which is not an area`);
      visit(dep, [...path, a.toolset]);
    }
    state.set(a.toolset, 'done');
    out.push(a);
  };
  for (const a of list) visit(a, []);
  return out;
}

/** Seeds the main demo workspace (atelier, an accounts-payable audit of Maison Berthier SA) from every area. */
export function seedAreas(ws: WorkspaceState, list: readonly SandboxArea[] = areas): void {
  for (const a of seedOrder(list)) for (const seed of a.seeds ?? []) seed(ws);
}

/** `$demo.<kind>` -> the value it names in the freshly seeded workspace `ws`; a kind naming nothing is an error. */
export function demoValues(ws: WorkspaceState, list: readonly SandboxArea[] = areas): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of list) {
    for (const [kind, pick] of Object.entries(a.demo ?? {})) {
      const v = pick(ws);
      if (v === undefined) throw new Error(`$demo.${kind} (handlers/${a.toolset}.ts) names nothing in the demo data`);
      out[kind] = v;
    }
  }
  return out;
}

const problems = areaProblems(areas, sandboxOperations);
if (problems.length) throw new Error(`The sandbox does not match the catalog:\n${problems.join('\n')}`);

/** Every handler, by the catalog name of its operation. */
export const handlers: ReadonlyMap<string, Handler> = new Map(areas.flatMap((a) => Object.entries(a.handlers)));
