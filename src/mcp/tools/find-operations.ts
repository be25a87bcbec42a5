// find_operations, a tool of the gateway of the default surface: every operation (documented or
// generated from the live description) stays reachable without spending a tool definition on each.
// find_operations ranks them, describe_operation shows one in full, call_operation runs one.
import { z } from 'zod';
import { catalog } from '../../../catalog/index.js';
import { vocabulary } from '../../../catalog/vocabulary.js';
import { type Operation, purposeOf, TOOLSETS } from '../../operation.js';
import { isGenerated } from '../operations/live-openapi.js';
import { terms } from '../operations/search.js';
import type { Pipeline } from '../pipeline/pipeline.js';
import { FIND_RESULT } from '../pipeline/result-schemas.js';
import { defineTool, type ToolSpec } from '../pipeline/tool-spec.js';
import { NOT_IN_API } from '../scripts/script-tools.js';
import { signatureOf, toolSignature } from '../scripts/signatures.js';

export interface GatewayDeps {
  pipeline: Pipeline;
  /** Code mode (WORKSPACE_TOOLSETS=code): operations are for scripts, shown by their signature, and call_operation is not listed. */
  codeMode?: boolean;
}

const findInput = z.strictObject({
  query: z.string().min(1).max(500).describe('what you want to do, in plain words (English or French)'),
  area: z.enum(TOOLSETS).optional(),
  limit: z.number().int().min(1).max(20).optional().describe('default 8'),
});

/** The gateway's own tools: never a match of find_operations. */
const GATEWAY_TOOLS = new Set(['find_operations', 'describe_operation', 'call_operation']);

let stopped: Set<string> | undefined;
/** The request words that say nothing of what is asked (the search vocabulary's stop words, folded). */
function stopTerms(): Set<string> {
  stopped ??= new Set(terms(`${vocabulary.stopWords.en} ${vocabulary.stopWords.fr}`));
  return stopped;
}

/** When no match is strong: the closest matches shown in full, and how many likely areas are listed whole. */
const WEAK_SHOWN = 3;
const WEAK_AREAS = 2;

function requiredArgs(op: Operation): string[] {
  return Object.entries(op.input.shape)
    .filter(([, s]) => !(s as z.ZodType).safeParse(undefined).success)
    .map(([k]) => k);
}

/** A required argument as find_operations shows it: its name, and its values when a few words say them all. */
function argumentHint(op: Operation, name: string): string {
  let s: unknown = op.input.shape[name];
  for (let i = 0; i < 3 && s && typeof s === 'object' && 'unwrap' in s && typeof (s as { unwrap: unknown }).unwrap === 'function'; i++)
    s = (s as { unwrap: () => unknown }).unwrap();
  const options = (s as { options?: unknown } | undefined)?.options;
  return Array.isArray(options) && options.length <= 6 && options.every((o) => typeof o === 'string') ? `${name} (${options.join('|')})` : name;
}

/**
 * The line find_operations shows per operation: its name, what it is for, what it needs, and what
 * kind of call it is; enough to call it, or to ask describe_operation for the rest.
 */
function summaryLine(op: Operation, codeMode = false): string {
  if (codeMode) return `${signatureOf(op)} ${purposeOf(op)} [${flagsOf(op)}]`;
  const req = requiredArgs(op).map((a) => argumentHint(op, a));
  return `${op.name}: ${purposeOf(op)} Needs ${req.length ? req.join(', ') : 'nothing'}. [${flagsOf(op)}]`;
}

/** What kind of call an operation is, in a few words. */
function flagsOf(op: Operation): string {
  return [
    op.scope,
    op.paginated ? 'list' : '',
    op.response === 'file' ? 'file' : '',
    op.annotations.destructiveHint ? 'destructive' : '',
    isGenerated(op) ? 'generated' : '',
  ]
    .filter(Boolean)
    .join(', ');
}

/**
 * How many operations the gateway reaches, in words that stay true as the count moves a little: the
 * count of the catalog (and the live description's additions) rounded down to ten, "over 140".
 */
export function operationCountWords(count: number): string {
  return `over ${Math.floor((count - 1) / 10) * 10}`;
}

export function findOperationsTool(deps: GatewayDeps): ToolSpec {
  const { pipeline, codeMode = false } = deps;
  const registry = pipeline.registry;
  const line = (op: Operation) => summaryLine(op, codeMode);

  /**
   * Code mode: the session's tools a script calls (not listed there) whose name and description say
   * most of the request's words, at most two, shown before the operations by their signature.
   */
  function matchingTools(query: string): ToolSpec[] {
    if (!codeMode) return [];
    const stop = stopTerms();
    const asked = [...new Set(terms(query))].filter((w) => !stop.has(w));
    if (!asked.length) return [];
    const needed = Math.max(2, Math.ceil(asked.length / 2));
    return pipeline
      .ownTools()
      .filter((t) => !NOT_IN_API.has(t.name) && !GATEWAY_TOOLS.has(t.name) && !registry.refusal(t))
      .map((t) => {
        const words = new Set(terms(`${t.name.replace(/_/g, ' ')} ${t.definition.description ?? ''}`));
        return { t, hits: asked.filter((w) => words.has(w)).length };
      })
      .filter((s) => s.hits >= needed)
      .sort((a, b) => b.hits - a.hits)
      .slice(0, 2)
      .map((s) => s.t);
  }
  const toolSig = (t: ToolSpec) =>
    toolSignature(t.name, t.definition.inputSchema as Record<string, unknown>, t.definition.outputSchema as Record<string, unknown>);
  const toolLine = (t: ToolSpec) => `${toolSig(t)} ${purposeOf({ description: t.definition.description ?? '' })} [tool, ${t.scope}]`;
  const toolEntry = (t: ToolSpec) => ({
    name: t.name,
    signature: toolSig(t),
    scope: t.scope,
    purpose: purposeOf({ description: t.definition.description ?? '' }),
  });
  const index = registry.operations.index;

  return defineTool({
    name: 'find_operations',
    input: findInput,
    quotesContent: false,
    description: codeMode
      ? `Search every Workspace Consulting operation (${operationCountWords(catalog.length)}) by what you want to do, in English or French. Returns the best matches as the api.<name>(args) signatures scripts call.`
      : `Search every Workspace Consulting operation (${operationCountWords(catalog.length)}, beyond the tools listed here) by what you want to do, in English or French. Returns the best matches with their arguments; then call one with call_operation.`,
    annotations: { readOnlyHint: true },
    outputSchema: FIND_RESULT,
    async run(args) {
      await registry.operations.ready();
      const { query, area, limit } = args;
      const shown = (op: Operation) => registry.permitted(op) && registry.get(op.name) === op;
      const { matches, strong, areas } = index.find(query, {
        limit: limit ?? 8,
        filter: (op) => shown(op) && (!area || op.toolset === area),
      });
      const tools = area ? [] : matchingTools(query);
      const toolsFound = tools.length ? { tools: tools.map(toolEntry) } : {};
      const toolLines = tools.map(toolLine);
      if (!matches.length) {
        return {
          content: [{ type: 'text', text: [...toolLines, `No operation matches "${query}". Try other words, or an area: ${TOOLSETS.join(', ')}.`].join('\n') }],
          structuredContent: { operations: [], ...toolsFound },
        };
      }
      const operations = matches.map((m) => ({
        name: m.op.name,
        method: m.op.method,
        path: m.op.path,
        scope: m.op.scope,
        area: m.op.toolset,
        purpose: purposeOf(m.op),
        description: m.op.description,
        required: requiredArgs(m.op),
        signature: signatureOf(m.op),
        ...(isGenerated(m.op) ? { generated: true } : {}),
      }));
      if (strong)
        return {
          content: [{ type: 'text', text: [...toolLines, ...matches.map((m) => line(m.op))].join('\n') }],
          structuredContent: { operations, ...toolsFound },
        };
      // No match accounts for most of the request: rather than a confident-looking list of near
      // misses, every operation of the likeliest areas by name, so the model chooses (names say
      // verb and object; describe_operation shows one in full).
      const likely = (area ? [area] : areas.slice(0, WEAK_AREAS)).map((a) => ({
        area: a,
        operations: registry.operations
          .all()
          .filter((op) => op.toolset === a && shown(op))
          .map((op) => op.name),
      }));
      const text = [
        ...toolLines,
        `No strong match for "${query}". Closest:`,
        ...matches.slice(0, WEAK_SHOWN).map((m) => line(m.op)),
        `Every operation of the likeliest ${likely.length > 1 ? 'areas' : 'area'}; choose one, describe_operation shows it:`,
        ...likely.map((l) => `${l.area}: ${l.operations.join(', ')}`),
      ].join('\n');
      return { content: [{ type: 'text', text }], structuredContent: { operations, weak: true, areas: likely, ...toolsFound } };
    },
  });
}
