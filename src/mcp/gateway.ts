// The catalog gateway of the default surface: every operation (documented or generated from the live
// description) stays reachable without spending a tool definition on each. find_operations ranks
// them, describe_operation shows one in full, call_operation runs one exactly as its own tool would
// (same validation, limiter, read-only and consent checks, results and budget).
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { TOOLSETS, type Operation } from '../operation.js';
import type { RunOperation } from './execute.js';
import { isGenerated } from './live-openapi.js';
import { isRefusal, type ToolRegistry } from './registry.js';
import { RESPONSE_FORMAT_PROPERTY, takesResponseFormat, toolError } from './render/index.js';
import { shownSchema } from './schema.js';
import type { OperationIndex } from './search.js';
import { annotations, withJobArguments, type SurfaceTool } from './tools.js';

export interface GatewayDeps {
  registry: ToolRegistry;
  index: OperationIndex;
  run: RunOperation;
  /** Resolves once the live description has been merged (or given up on). */
  ready: () => Promise<void>;
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

function requiredArgs(op: Operation): string[] {
  return Object.entries(op.input.shape)
    .filter(([, s]) => !(s as z.ZodType).safeParse(undefined).success)
    .map(([k]) => k);
}

function parse<T extends z.ZodType>(schema: T, name: string, raw: unknown): { ok: true; value: z.infer<T> } | { ok: false; result: CallToolResult } {
  const r = schema.safeParse(raw ?? {});
  if (r.success) return { ok: true, value: r.data };
  const lines = r.error.issues.map((i) => `- ${i.path.join('.') || '(arguments)'}: ${i.message}`);
  return { ok: false, result: toolError(`Invalid arguments for ${name}; nothing was sent.\n${lines.join('\n')}`, { error: { code: 'invalid_arguments' } }) };
}

/** What an operation is for, in one line: the first sentence of its description. */
export function purposeOf(op: Pick<Operation, 'description'>): string {
  return op.description.split(/(?<=[.!?])(?<!e\.g\.)(?<!i\.e\.)\s+/)[0]!.replace(/\s+\(generated\)$/, '');
}

/** A required argument as find_operations shows it: its name, and its values when a few words say them all. */
function argumentHint(op: Operation, name: string): string {
  let s: unknown = op.input.shape[name];
  for (let i = 0; i < 3 && s && typeof s === 'object' && 'unwrap' in s && typeof (s as { unwrap: unknown }).unwrap === 'function'; i++) s = (s as { unwrap: () => unknown }).unwrap();
  const options = (s as { options?: unknown } | undefined)?.options;
  return Array.isArray(options) && options.length <= 6 && options.every((o) => typeof o === 'string') ? `${name} (${options.join('|')})` : name;
}

/**
 * The line find_operations shows per operation: its name, what it is for, what it needs, and what
 * kind of call it is; enough to call it, or to ask describe_operation for the rest.
 */
function summaryLine(op: Operation): string {
  const req = requiredArgs(op).map((a) => argumentHint(op, a));
  const flags = [op.scope, op.paginated ? 'list' : '', op.response === 'file' ? 'file' : '', op.annotations.destructiveHint ? 'destructive' : '', isGenerated(op) ? 'generated' : '']
    .filter(Boolean)
    .join(', ');
  return `${op.name}: ${purposeOf(op)} Needs ${req.length ? req.join(', ') : 'nothing'}. [${flags}]`;
}

export function gatewayTools(deps: GatewayDeps): SurfaceTool[] {
  const { registry, index } = deps;
  const writes = registry.writesAllowed();

  const find: SurfaceTool = {
    scope: 'read',
    definition: {
      name: 'find_operations',
      description:
        'Search every Workspace Consulting operation (over 140, beyond the tools listed here) by what you want to do, in English or French. Returns the best matches with their arguments; then call one with call_operation.',
      inputSchema: shownSchema(findInput),
      annotations: annotations({ readOnlyHint: true }),
    },
    async run(raw) {
      const p = parse(findInput, 'find_operations', raw);
      if (!p.ok) return p.result;
      await deps.ready();
      const { query, area, limit } = p.value;
      const matches = index.search(query, {
        limit: limit ?? 8,
        filter: (op) => registry.permitted(op) && (!area || op.toolset === area) && registry.get(op.name) === op,
      });
      if (!matches.length) {
        return { content: [{ type: 'text', text: `No operation matches "${query}". Try other words, or an area: ${TOOLSETS.join(', ')}.` }], structuredContent: { operations: [] } };
      }
      return {
        content: [{ type: 'text', text: matches.map((m) => summaryLine(m.op)).join('\n') }],
        structuredContent: {
          operations: matches.map((m) => ({
            name: m.op.name,
            method: m.op.method,
            path: m.op.path,
            scope: m.op.scope,
            area: m.op.toolset,
            purpose: purposeOf(m.op),
            description: m.op.description,
            required: requiredArgs(m.op),
            ...(isGenerated(m.op) ? { generated: true } : {}),
          })),
        },
      };
    },
  };

  const describe: SurfaceTool = {
    scope: 'read',
    definition: {
      name: 'describe_operation',
      description: 'The full input schema and notes of one operation found with find_operations, before calling it with call_operation.',
      inputSchema: shownSchema(describeInput),
      annotations: annotations({ readOnlyHint: true }),
    },
    async run(raw) {
      const p = parse(describeInput, 'describe_operation', raw);
      if (!p.ok) return p.result;
      await deps.ready();
      const op = registry.get(p.value.operation);
      if (!op) return toolError(`Unknown operation "${p.value.operation}". Use find_operations to search by what you want to do.`, { error: { code: 'unknown' } });
      // The full schema (id patterns included): this is where the assistant reads the exact rules.
      const full = isGenerated(op) ? op.shownInput : (z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>);
      delete full.$schema;
      const schema = withJobArguments(op, (op.response === 'json' && !('fields' in op.input.shape)
        ? { ...full, properties: { ...(full.properties as object), fields: { type: 'array', items: { type: 'string' }, description: 'keep only these fields of each record' }, ...(takesResponseFormat(op) ? { response_format: RESPONSE_FORMAT_PROPERTY } : {}) } }
        : full) as Tool['inputSchema']) as Record<string, unknown>;
      const notes: string[] = [];
      if (op.paginated) notes.push('Paginated: pass cursor = meta.next_cursor of the previous page; limit up to 200.');
      if (op.response === 'file') notes.push('Answers a file: it is saved to the download folder and returned as a link.');
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
        input_schema: schema,
        notes,
      };
      return { content: [{ type: 'text', text: JSON.stringify(info) }], structuredContent: info };
    },
  };

  const call: SurfaceTool = {
    // Under read-only mode or read consent it can only read, and says so.
    scope: 'read',
    definition: {
      name: 'call_operation',
      description: writes
        ? 'Run any operation by name (from find_operations) with its arguments, validated as its own tool would be. Operations marked destructive delete or irreversibly commit: confirm with the user first.'
        : 'Run any read operation by name (from find_operations) with its arguments. This session is read-only: operations that change data are refused.',
      inputSchema: shownSchema(callInput),
      annotations: annotations({ readOnlyHint: !writes, destructiveHint: writes, idempotentHint: !writes, openWorldHint: writes }),
    },
    async run(raw, extra) {
      const p = parse(callInput, 'call_operation', raw);
      if (!p.ok) return p.result;
      await deps.ready();
      const resolved = registry.resolve(p.value.operation);
      if (isRefusal(resolved)) {
        const msg = resolved.reason === 'unknown' ? `Unknown operation "${p.value.operation}". Use find_operations to search by what you want to do.` : resolved.message;
        return toolError(msg, { error: { code: resolved.reason } });
      }
      return deps.run(resolved, p.value.arguments ?? {}, {
        signal: extra.signal,
        via: `call_operation (operation "${resolved.name}")`,
        ...(extra.progress ? { progress: extra.progress } : {}),
      });
    },
  };

  return [find, describe, call];
}
