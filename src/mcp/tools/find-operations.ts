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

/** How many entries find_operations answers when the call does not say. */
const DEFAULT_LIMIT = 8;

const findInput = z.strictObject({
  query: z.string().min(1).max(500).describe('what you want to do, in plain words (English or French)'),
  area: z.enum(TOOLSETS).optional(),
  limit: z.number().int().min(1).max(20).optional().describe(`how many matches to answer, default ${DEFAULT_LIMIT}`),
});

/** The gateway's own tools: never a match of find_operations. */
const GATEWAY_TOOLS = new Set(['find_operations', 'describe_operation', 'call_operation']);

let stopped: Set<string> | undefined;
/** The request words that say nothing of what is asked (the search vocabulary's stop words, folded). */
function stopTerms(): Set<string> {
  stopped ??= new Set(terms(`${vocabulary.stopWords.en} ${vocabulary.stopWords.fr}`));
  return stopped;
}

/** When no match is strong: how many likely areas are named, to search within. */
const WEAK_AREAS = 2;
/** A required argument's values are listed when there are at most this many; describe_operation lists longer ones. */
const LISTED_VALUES = 12;

function requiredArgs(op: Operation): string[] {
  return Object.entries(op.input.shape)
    .filter(([, s]) => !(s as z.ZodType).safeParse(undefined).success)
    .map(([k]) => k);
}

/** A required argument as find_operations shows it: its name, and the values it takes when it is an enumeration. */
function argumentHint(op: Operation, name: string): string {
  let s: unknown = op.input.shape[name];
  for (let i = 0; i < 3 && s && typeof s === 'object' && 'unwrap' in s && typeof (s as { unwrap: unknown }).unwrap === 'function'; i++)
    s = (s as { unwrap: () => unknown }).unwrap();
  const options = (s as { options?: unknown } | undefined)?.options;
  if (!Array.isArray(options) || !options.every((o) => typeof o === 'string')) return name;
  return options.length <= LISTED_VALUES ? `${name} (${options.join('|')})` : `${name} (one of ${options.length} values)`;
}

/**
 * The line find_operations shows per operation: its name, what it is for, the arguments it requires
 * with their values, and what kind of call it is; describe_operation shows the optional ones. In
 * code mode, what a script needs: the compact signature it calls (its name says what it is for;
 * structuredContent keeps the purpose) and whether it reads or writes.
 */
function summaryLine(op: Operation, codeMode = false): string {
  if (codeMode) return `${signatureOf(op, true)}${scriptFlags(flagsOf(op, false))}`;
  const req = requiredArgs(op).map((a) => argumentHint(op, a));
  return `${op.name}: ${purposeOf(op)} Needs ${req.length ? req.join(', ') : 'nothing'}. [${flagsOf(op)}]`;
}

/** A field whose type is an enumeration of several values, in a signature: `kind: "a"|"b"|"c"`. */
const ENUM_FIELD = /(\w+)\??: ("[^"]*"(?:\|"[^"]*"){3,})/g;

/**
 * Code mode's lines with each enumeration that more than one of them writes named once: `kind:
 * DocumentKind` in each, and a line `type DocumentKind = "coverage"|...` after them, as TypeScript
 * would declare it (the document kinds would otherwise be written out in every document tool).
 */
function namedEnumerations(lines: readonly string[]): string[] {
  const seen = new Map<string, { field: string; count: number }>();
  for (const l of lines)
    for (const [, field, values] of l.matchAll(ENUM_FIELD)) {
      const e = seen.get(values as string);
      seen.set(values as string, { field: e?.field ?? (field as string), count: (e?.count ?? 0) + 1 });
    }
  const names = new Map<string, string>();
  for (const [values, { field, count }] of seen) {
    if (count < 2) continue;
    const base = field.replace(/(^|_)(\w)/g, (_, __, c: string) => c.toUpperCase());
    let name = base;
    for (let i = 2; [...names.values()].includes(name); i++) name = `${base}${i}`;
    names.set(values, name);
  }
  if (!names.size) return [...lines];
  const out = lines.map((l) =>
    l.replace(ENUM_FIELD, (all, _field: string, values: string) => (names.has(values) ? all.replace(values, names.get(values) as string) : all)),
  );
  return [...out, ...[...names].map(([values, name]) => `type ${name} = ${values}`)];
}

/** Code mode's flags after a signature: none for a plain read (run_read_script refuses what says write). */
const scriptFlags = (flags: string) => (flags ? ` [${flags}]` : '');

/** What kind of call an operation is, in a few words; `withReads` false leaves "read" unsaid. */
function flagsOf(op: Operation, withReads = true): string {
  return [
    withReads || op.scope === 'write' ? op.scope : '',
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
    toolSignature(t.name, t.definition.inputSchema as Record<string, unknown>, t.definition.outputSchema as Record<string, unknown>, true);
  const toolLine = (t: ToolSpec) => `${toolSig(t)}${scriptFlags(t.scope === 'write' ? 'write' : '')}`;
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
      ? `Search every Workspace Consulting operation (${operationCountWords(catalog.length)}) by what you want to do, in English or French. Returns up to limit matches as the api.<name>(args) signatures scripts call (long optional arguments by name; describe_operation gives the whole), or says no match is strong.`
      : `Search every Workspace Consulting operation (${operationCountWords(catalog.length)}, beyond the tools listed here) by what you want to do, in English or French. Returns up to limit matches with the arguments they require (describe_operation shows the rest), or says no match is strong; then call one with call_operation.`,
    annotations: { readOnlyHint: true },
    outputSchema: FIND_RESULT,
    async run(args) {
      await registry.operations.ready();
      const { query, area } = args;
      const limit = args.limit ?? DEFAULT_LIMIT;
      const shown = (op: Operation) => registry.permitted(op) && registry.get(op.name) === op;
      // The limit counts every entry answered: the server's tools first (code mode), then operations.
      const tools = area ? [] : matchingTools(query).slice(0, limit);
      const found = index.find(query, { limit: Math.max(1, limit - tools.length), filter: (op) => shown(op) && (!area || op.toolset === area) });
      const matches = found.matches.slice(0, limit - tools.length);
      const toolsFound = tools.length ? { tools: tools.map(toolEntry) } : {};
      const listed = [...tools.map(toolLine), ...matches.map((m) => line(m.op))];
      const lines = codeMode ? namedEnumerations(listed) : listed;
      if (!listed.length) {
        return {
          content: [{ type: 'text', text: `No operation matches "${query}". Try other words, or an area: ${TOOLSETS.join(', ')}.` }],
          structuredContent: { operations: [], weak: true, areas: [] },
        };
      }
      const operations = matches.map((m) => ({
        name: m.op.name,
        method: m.op.method,
        path: m.op.path,
        scope: m.op.scope,
        area: m.op.toolset,
        purpose: purposeOf(m.op),
        required: requiredArgs(m.op),
        signature: signatureOf(m.op, codeMode),
        ...(isGenerated(m.op) ? { generated: true } : {}),
      }));
      // A tool the request names in full is a strong match of its own. What describe_operation adds
      // is said by this tool's description, not in every answer.
      if (found.strong || tools.length) return { content: [{ type: 'text', text: lines.join('\n') }], structuredContent: { operations, ...toolsFound } };
      // No match accounts for most of the request: the closest are said to be unsure, rather than a
      // confident-looking list of near misses, with the likeliest areas to search within.
      const likely = area ? [area] : found.areas.slice(0, WEAK_AREAS);
      const text = [
        `No strong match for "${query}"; the closest, none sure:`,
        ...lines,
        `Likeliest ${likely.length > 1 ? 'areas' : 'area'}: ${likely.join(', ')}. Other words, or an area, narrow the search.`,
      ].join('\n');
      return { content: [{ type: 'text', text }], structuredContent: { operations, weak: true, areas: likely, ...toolsFound } };
    },
  });
}
