// The catalog gateway of the default surface: every operation (documented or generated from the live
// description) stays reachable without spending a tool definition on each. find_operations ranks
// them, describe_operation shows one in full, call_operation runs one exactly as its own tool would
// (the pipeline's same validation, limiter, read-only and consent checks, results and budget).
import { z } from 'zod';
import { catalog } from '../../../catalog/index.js';
import { vocabulary } from '../../../catalog/vocabulary.js';
import { type Operation, TOOLSETS } from '../../operation.js';
import { isGenerated } from '../operations/live-openapi.js';
import { shownName } from '../operations/registry.js';
import { terms } from '../operations/search.js';
import { readCallOperation } from '../pipeline/arguments.js';
import type { Pipeline } from '../pipeline/pipeline.js';
import { DESCRIBE_RESULT, FIND_RESULT, operationOutputSchema, RECORD_RESULT } from '../pipeline/result-schemas.js';
import { defineTool, operationInput, type ToolSpec, toolDefinition } from '../pipeline/tool-spec.js';
import { toolError } from '../render/index.js';
import { isRefusal, refusalResult } from '../render/refusal.js';
import { NOT_IN_API } from '../scripts/script-tools.js';
import { signatureOf, toolSignature } from '../scripts/signatures.js';

interface GatewayDeps {
  pipeline: Pipeline;
  /** Code mode (WORKSPACE_TOOLSETS=code): operations are for scripts, shown by their signature, and call_operation is not listed. */
  codeMode?: boolean;
}

const findInput = z.strictObject({
  query: z.string().min(1).max(500).describe('what you want to do, in plain words (English or French)'),
  area: z.enum(TOOLSETS).optional(),
  limit: z.number().int().min(1).max(20).optional().describe('default 8'),
});
const describeInput = z.strictObject({ operation: z.string().min(1).max(100) });
const callInput = z.strictObject({
  operation: z.string().min(1).max(100).describe('name from find_operations'),
  arguments: z.record(z.string(), z.unknown()).optional().describe('as describe_operation shows; list operations also take fields: [names]'),
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

/** What an operation is for, in one line: the first sentence of its description. */
export function purposeOf(op: Pick<Operation, 'description'>): string {
  // split() always gives at least one part: the default is never taken.
  const [first = ''] = op.description.split(/(?<=[.!?])(?<!e\.g\.)(?<!i\.e\.)\s+/);
  return first.replace(/\s+\(generated\)$/, '');
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

export function gatewayTools(deps: GatewayDeps): ToolSpec[] {
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
  const writes = registry.writesAllowed();

  const find = defineTool({
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

  /** One of the session's own tools (a workflow, block edits, an app's data tool), as a script calls it. */
  function describeTool(tool: ToolSpec) {
    const def = tool.definition;
    const scripted = !NOT_IN_API.has(tool.name);
    const info = {
      name: tool.name,
      title: def.title ?? tool.name.replace(/_/g, ' '),
      description: def.description ?? '',
      scope: tool.scope,
      annotations: def.annotations ?? {},
      signature: scripted ? toolSignature(tool.name, def.inputSchema as Record<string, unknown>, def.outputSchema as Record<string, unknown>) : '',
      input_schema: def.inputSchema,
      output_schema: def.outputSchema,
      notes: [
        scripted ? `A tool of this server: call it directly, or as api.${tool.name}(args) in a script.` : 'A tool of this server; scripts do not call it.',
      ],
    };
    return { content: [{ type: 'text' as const, text: JSON.stringify(info) }], structuredContent: info };
  }

  const describe = defineTool({
    name: 'describe_operation',
    input: describeInput,
    quotesContent: false,
    description: codeMode
      ? "The full input schema, notes and script signature of one operation, or of a tool of this server that scripts call (run_read_script's description names them)."
      : 'The full input schema and notes of one operation found with find_operations, before calling it with call_operation, and its signature for scripts.',
    annotations: { readOnlyHint: true },
    outputSchema: DESCRIBE_RESULT,
    async run(args) {
      await registry.operations.ready();
      const { operation } = args;
      const op = registry.get(operation);
      const tool = op ? undefined : pipeline.ownTool(operation);
      if (tool) return describeTool(tool);
      if (!op)
        return toolError(`Unknown operation "${shownName(operation)}". Use find_operations to search by what you want to do.`, { error: { code: 'unknown' } });
      // The full schema (id patterns included): this is where the assistant reads the exact rules.
      // A generated operation shows its description's own schema (with the extras).
      const schema = isGenerated(op)
        ? (toolDefinition(op).inputSchema as Record<string, unknown>)
        : (z.toJSONSchema(operationInput(op), { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>);
      delete schema.$schema;
      const shown = pipeline.shownInputSchema(op, schema);
      const notes: string[] = [];
      if (op.paginated) notes.push('Paginated: pass cursor = meta.next_cursor of the previous page; limit up to 200.');
      notes.push(...pipeline.fileNotes(op));
      if (op.annotations.destructiveHint) notes.push('Destructive: confirm with the user first.');
      if (isGenerated(op)) notes.push("Generated from the workspace's live API description: not curated; the workspace validates the arguments.");
      const refusal = registry.resolve(op.name);
      if (isRefusal(refusal)) notes.push(`Not callable in this session: ${refusal.message}`);
      const info = {
        name: op.name,
        title: op.title,
        description: op.description,
        method: op.method,
        path: op.path,
        scope: op.scope,
        area: op.toolset,
        annotations: op.annotations,
        // How a script calls it (run_read_script, run_write_script): a TypeScript declaration.
        signature: signatureOf(op),
        input_schema: shown,
        // What call_operation's structuredContent holds for it (call_operation itself can only say "an object").
        output_schema: operationOutputSchema(op),
        notes,
      };
      return { content: [{ type: 'text', text: JSON.stringify(info) }], structuredContent: info };
    },
  });

  const call = defineTool({
    name: 'call_operation',
    input: callInput,
    // The operation it runs decides: the pipeline marks its result when that operation quotes.
    quotesContent: false,
    // The operation's arguments under `arguments`, or beside `operation` when `arguments` is absent.
    read: (raw) => readCallOperation(callInput, raw, 'call_operation'),
    description: writes
      ? 'Run any operation by name (from find_operations) with its arguments, validated as its own tool would be. Operations marked destructive delete or irreversibly commit: confirm with the user first.'
      : 'Run any read operation by name (from find_operations) with its arguments. This session is read-only: operations that change data are refused.',
    // Under read-only mode or read consent it can only read (a 'read' tool), and says so.
    annotations: { readOnlyHint: !writes, destructiveHint: writes, idempotentHint: !writes, openWorldHint: writes },
    // Whatever the operation's own tool answers (its outputSchema, which describe_operation shows as
    // output_schema): every one of them is an object.
    outputSchema: RECORD_RESULT,
    async run(args, ctx) {
      const { operation, arguments: inner } = args;
      if (!registry.get(operation)) await registry.operations.ready();
      const resolved = registry.resolve(operation);
      if (isRefusal(resolved)) {
        if (resolved.code !== 'unknown') return refusalResult(resolved);
        return toolError(`Unknown operation "${shownName(operation)}". Use find_operations to search by what you want to do.`, { error: { code: 'unknown' } });
      }
      // Steps 2 to 4 for the operation's own tool: its validation, run and rendering.
      return pipeline.callTool(pipeline.operationTool(resolved), inner ?? {}, { ...ctx, via: { kind: 'gateway', operation: resolved.name } });
    },
  });

  return [find, describe, call];
}
