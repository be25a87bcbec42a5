// What a tool looks like to the assistant, and the shape every non-catalog tool (gateway, workflows,
// default-surface entries) is declared with.
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { OPERATION_META_KEY, operationMeta, type Operation, type Scope, type ToolAnnotations } from '../operation.js';
import { jobArgumentProperties, jobKindOf } from './jobs.js';
import { operationSchema } from './schema.js';

/** The title is shown only when it says more than the name ("list_findings" reads as "List findings"). */
function titleAddsSomething(name: string, title: string): boolean {
  return title.toLowerCase() !== name.replace(/_/g, ' ').toLowerCase();
}

const definitions = new WeakMap<Operation, Tool>();

/** Tools that start a job also take the MCP layer's own `wait` (and `cancel_on_abort`), never sent to the API. */
export function withJobArguments(op: Operation, schema: Tool['inputSchema']): Tool['inputSchema'] {
  const extra = jobArgumentProperties(op);
  return extra ? { ...schema, properties: { ...(schema.properties ?? {}), ...extra } } : schema;
}

/** One catalog (or generated) operation as a tool, built once per operation. */
export function toolDefinition(op: Operation): Tool {
  let t = definitions.get(op);
  if (!t) {
    t = {
      name: op.name,
      ...(titleAddsSomething(op.name, op.title) ? { title: op.title } : {}),
      description: op.description,
      inputSchema: withJobArguments(op, operationSchema(op)),
      annotations: listedAnnotations(op.annotations),
      // A client that supports MCP tasks may run a job tool as a task rather than hold the call open.
      ...(jobKindOf(op) ? { execution: { taskSupport: 'optional' as const } } : {}),
      _meta: { [OPERATION_META_KEY]: operationMeta(op) },
    };
    definitions.set(op, t);
  }
  return t;
}

export interface CallExtra {
  signal: AbortSignal;
  /** Progress for long workflows, when the client asked for it. */
  progress?: (done: number, total: number, message?: string) => void;
}

/** A tool that is not one catalog operation: its own schema, annotations and handler. */
export interface SurfaceTool {
  definition: Tool;
  /** 'write' tools are neither listed nor callable in read-only mode or under read consent. */
  scope: Scope;
  /** `args` as the call carried them (read by src/mcp/arguments.ts, never trusted to be an object). */
  run(args: unknown, extra: CallExtra): Promise<CallToolResult>;
}

export function annotations(a: Partial<ToolAnnotations> & { readOnlyHint: boolean }): ListedAnnotations {
  return listedAnnotations({
    readOnlyHint: a.readOnlyHint,
    destructiveHint: a.destructiveHint ?? false,
    idempotentHint: a.idempotentHint ?? a.readOnlyHint,
    openWorldHint: a.openWorldHint ?? false,
  });
}

export type ListedAnnotations = NonNullable<Tool['annotations']>;

/**
 * The hints as a tool lists them: each one that tells a client something, once. A read tool says
 * readOnlyHint (the spec gives destructiveHint and idempotentHint meaning only when readOnlyHint is
 * false); a write tool says destructiveHint either way (the hint a client confirms on, stated even
 * where it equals the default) and idempotentHint when true; readOnlyHint false and idempotentHint
 * false are the spec's defaults. openWorldHint defaults to true, so the closed-world tools (all but
 * the AI provider tests) say false. A client applying the spec's defaults reads exactly the catalog's
 * four values, for about 1,800 fewer tokens over all tools.
 */
export function listedAnnotations(a: ToolAnnotations): ListedAnnotations {
  const openWorld = a.openWorldHint ? {} : { openWorldHint: false };
  if (a.readOnlyHint) return { readOnlyHint: true, ...openWorld };
  return { destructiveHint: a.destructiveHint, ...(a.idempotentHint ? { idempotentHint: true } : {}), ...openWorld };
}
