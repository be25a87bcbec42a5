// completion/complete for prompt arguments and resource template variables. An id is what the
// argument takes, but a person types a name: engagements match on their name as well as their id,
// findings on their statement. Enumerations complete from the catalog's own lists (an enumerated path parameter of the same name).

import { type Operation, pathParams } from '../../operation.js';
import { terms } from '../operations/search.js';
import type { Pipeline } from '../pipeline/pipeline.js';

/** Lookups go through the pipeline: the session's policy, the operation's validation, the token's limiter. */
interface CompletionDeps {
  pipeline: Pipeline;
}

/**
 * An argument named like a path parameter whose schema is an enumeration (a document's `kind`)
 * completes from that enumeration, read off the catalog's entries: no list of values kept here.
 */
function enumerationOf(ops: readonly Operation[], name: string): readonly string[] | undefined {
  for (const op of ops) {
    if (!pathParams(op.path).includes(name)) continue;
    const options = (op.input.shape[name] as { options?: unknown } | undefined)?.options;
    if (Array.isArray(options) && options.every((o) => typeof o === 'string')) return options as string[];
  }
  return undefined;
}

const MAX = 100;

function fold(s: string): string {
  return terms(s).join(' ');
}

/** Records whose id starts with the typed value or whose label contains it, best first. */
function rank(records: Record<string, unknown>[], value: string, label: string): string[] {
  const v = value.trim();
  const fv = fold(v);
  const scored: { id: string; score: number }[] = [];
  for (const r of records) {
    if (typeof r.id !== 'string') continue;
    const text = fold(String(r[label] ?? ''));
    let score = 0;
    if (!v) score = 1;
    else if (r.id.toUpperCase().startsWith(v.toUpperCase())) score = 3;
    else if (fv && text.startsWith(fv)) score = 2;
    else if (fv && text.includes(fv)) score = 1;
    if (score) scored.push({ id: r.id, score });
  }
  scored.sort((a, b) => b.score - a.score);
  return scored.map((s) => s.id);
}

async function records(
  deps: CompletionDeps,
  op: Operation | undefined,
  args: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<Record<string, unknown>[]> {
  if (!op) return [];
  try {
    // A context argument the operation refuses (an id that is not one) sends nothing.
    const res = await deps.pipeline.invoke(op.name, { ...args, limit: 200 }, { signal: signal ?? new AbortController().signal });
    return Array.isArray(res.data) ? (res.data as Record<string, unknown>[]) : [];
  } catch {
    return []; // completion is a convenience: a failed or refused lookup offers nothing rather than an error
  }
}

/** The list that completes an argument (its catalog entry's completes facet), when this session may call it. */
const lister = (deps: CompletionDeps, argument: string) => deps.pipeline.registry.callable().find((o) => o.completes?.argument === argument);

export async function complete(
  deps: CompletionDeps,
  argument: { name: string; value: string },
  context: Record<string, string> = {},
): Promise<{ values: string[]; total: number; hasMore: boolean }> {
  const { name, value } = argument;
  let values: string[] = [];
  const enumValues = enumerationOf(deps.pipeline.registry.operations.all(), name);
  if (enumValues) {
    const v = value.toLowerCase();
    values = enumValues.filter((e) => e.startsWith(v));
    if (!values.length) values = enumValues.filter((e) => e.includes(v));
  } else {
    await deps.pipeline.registry.operations.ready();
    const op = lister(deps, name);
    // The list's path parameters (the engagement of a finding) come from the context, or nothing is offered.
    const params = op ? pathParams(op.path) : [];
    if (op?.completes && params.every((p) => context[p])) {
      const args = Object.fromEntries(params.map((p) => [p, context[p]]));
      values = rank(await records(deps, op, args), value, op.completes.label);
    }
  }
  return { values: values.slice(0, MAX), total: values.length, hasMore: values.length > MAX };
}
