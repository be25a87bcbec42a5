// What a tool is to the pipeline (ToolSpec: its listing, its input, its handler) and what it looks
// like to the assistant (its definition in tools/list). Catalog operations, workflows and the gateway
// are all ToolSpecs, so they list, validate, run and render through the same four steps. A catalog
// operation's ToolSpec is built from its entry (Pipeline.operationTool); every other tool is declared
// once with defineTool.
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { OPERATION_META_KEY, type Operation, operationMeta, type Scope, type ToolAnnotations } from '../../operation.js';
import type { CallOrigin } from '../render/call-origin.js';
import type { ReadResult } from './arguments.js';
import type { Confirm } from './confirmation.js';
import { type OutputSchema, operationOutputSchema } from './result-schemas.js';
import { operationSchema, shownSchema } from './shown-schema.js';

/** What a tool handler gets besides its arguments. */
export interface CallContext {
  /** The request's cancellation: aborts the API calls and any wait. */
  signal: AbortSignal;
  /** MCP progress, when the client gave a progress token (values that do not increase are not sent). */
  progress?: (done: number, total?: number, message?: string) => void;
  /** Tells a client that gave a progress token the call is waiting for the rate budget, and how long. */
  waiting?: (waitMs: number) => void;
  /** The longest its API calls may wait for the rate budget, when the caller's own limit is shorter (a script's time). */
  budgetWaitMs?: number;
  /** Who called, for "call again" hints and logs: the operation's own tool (absent), call_operation or a script. */
  via?: CallOrigin;
  /** Folders uploads may read files from (the configured ones and the connection's roots). */
  uploadDirs?: () => Promise<string[]>;
  /**
   * Tokens of text the result may carry, instead of the response budget: a script's calls, whose
   * text no model reads, lift it so their structuredContent is the whole answer, not a cut page.
   */
  budget?: number;
  /**
   * Asks the user to confirm a destructive operation before it is sent, where the client can show a
   * form (pipeline/confirmation.ts); absent, the client's own approval is the confirmation.
   */
  confirm?: Confirm;
  /**
   * Why the client's form is not used though it has one (the remote mode's 2026 scripts, which cannot
   * be resumed on another replica): said where a script's destructive call is refused for want of allow.
   */
  unconfirmedWhy?: string;
}

/**
 * A tool as tools/list shows it. The output schema is required: every tool declares what its
 * structuredContent holds (docs/tool-results.md), and clients validate each result against it.
 */
type ToolDefinition = Tool & { outputSchema: OutputSchema };

export interface ToolSpec {
  name: string;
  /** What tools/list shows. */
  definition: ToolDefinition;
  /** 'write' tools are neither listed nor callable in read-only mode or under read consent. */
  scope: Scope;
  /** Every argument the tool accepts: a strict object (unknown keys are refused, not dropped). */
  input: z.ZodObject;
  /** Its results quote text people wrote: the pipeline adds the workspace-content note. */
  quotesContent: boolean;
  /** Reads and validates the arguments itself (an operation's extras; the gateway's call, whose arguments may sit beside). */
  read?(raw: unknown): ReadResult<Record<string, unknown>>;
  /** Runs with validated arguments. */
  run(args: Record<string, unknown>, ctx: CallContext): Promise<CallToolResult>;
}

/**
 * The hints a declared tool states: readOnlyHint always (a tool without it does not compile); the
 * others default as `annotations()` says (not destructive, idempotent when it only reads, closed world).
 */
type DeclaredAnnotations = Partial<ToolAnnotations> & { readOnlyHint: boolean };

/**
 * A tool that is not a catalog operation (workflows, the gateway, the apps, code mode, block edits),
 * declared once: its name written once, its hints, its input and output schemas, its handler. Its
 * scope follows from its hints (a tool that only reads is a 'read' tool, which read-only mode and read
 * consent leave callable; any other is refused there).
 */
interface ToolDeclaration<I extends z.ZodObject> {
  name: string;
  description: string;
  annotations: DeclaredAnnotations;
  /** Every argument the tool accepts: a strict object (unknown keys are refused, not dropped). */
  input: I;
  /** What tools/list shows of the input: the input's own JSON Schema unless said otherwise. */
  inputSchema?: Tool['inputSchema'];
  /** What structuredContent holds (docs/tool-results.md). */
  outputSchema: OutputSchema;
  /** Listed under the tool's _meta (an app's view). */
  _meta?: Record<string, unknown>;
  /** Its results quote text people wrote: the pipeline adds the workspace-content note (default false). */
  quotesContent?: boolean;
  /** Reads and validates the arguments itself, instead of the pipeline's reading against `input`. */
  read?(raw: unknown): ReadResult<Record<string, unknown>>;
  /** Runs with arguments validated against `input`. */
  run(args: z.infer<I>, ctx: CallContext): Promise<CallToolResult>;
}

/** The one way to declare a tool that is not a catalog operation: builds the ToolSpec the pipeline runs. */
export function defineTool<I extends z.ZodObject>(d: ToolDeclaration<I>): ToolSpec {
  return {
    name: d.name,
    scope: d.annotations.readOnlyHint ? 'read' : 'write',
    input: d.input,
    quotesContent: d.quotesContent ?? false,
    ...(d.read ? { read: d.read } : {}),
    definition: {
      name: d.name,
      description: d.description,
      inputSchema: d.inputSchema ?? shownSchema(d.input),
      annotations: annotations(d.annotations),
      ...(d._meta ? { _meta: d._meta } : {}),
      outputSchema: d.outputSchema,
    },
    // The pipeline validated the arguments against `input` (or `read`, which validates against it too).
    run: (args, ctx) => d.run(args as z.infer<I>, ctx),
  };
}

/** The title is shown only when it says more than the name ("list_findings" reads as "List findings"). */
function titleAddsSomething(name: string, title: string): boolean {
  return title.toLowerCase() !== name.replace(/_/g, ' ').toLowerCase();
}

const definitions = new WeakMap<Operation, ToolDefinition>();

/** One catalog (or generated) operation as a tool, built once per operation. */
export function toolDefinition(op: Operation): ToolDefinition {
  let t = definitions.get(op);
  if (!t) {
    t = {
      name: op.name,
      ...(titleAddsSomething(op.name, op.title) ? { title: op.title } : {}),
      description: op.description,
      inputSchema: operationSchema(op),
      annotations: listedAnnotations(op.annotations),
      outputSchema: operationOutputSchema(op),
      _meta: { [OPERATION_META_KEY]: operationMeta(op) },
    };
    definitions.set(op, t);
  }
  return t;
}

export function annotations(a: Partial<ToolAnnotations> & { readOnlyHint: boolean }): ListedAnnotations {
  return listedAnnotations({
    readOnlyHint: a.readOnlyHint,
    destructiveHint: a.destructiveHint ?? false,
    idempotentHint: a.idempotentHint ?? a.readOnlyHint,
    openWorldHint: a.openWorldHint ?? false,
  });
}

type ListedAnnotations = NonNullable<Tool['annotations']>;

/**
 * The hints as a tool lists them: each one that tells a client something, once. A read tool says
 * readOnlyHint (the spec gives destructiveHint and idempotentHint meaning only when readOnlyHint is
 * false); a write tool says destructiveHint either way (the hint a client confirms on, stated even
 * where it equals the default) and idempotentHint when true; readOnlyHint false and idempotentHint
 * false are the spec's defaults. openWorldHint defaults to true, so the closed-world tools (all but
 * the AI provider tests) say false. A client applying the spec's defaults reads exactly the catalog's
 * four values, for about 1,800 fewer tokens over all tools.
 */
function listedAnnotations(a: ToolAnnotations): ListedAnnotations {
  const openWorld = a.openWorldHint ? {} : { openWorldHint: false };
  if (a.readOnlyHint) return { readOnlyHint: true, ...openWorld };
  return { destructiveHint: a.destructiveHint, ...(a.idempotentHint ? { idempotentHint: true } : {}), ...openWorld };
}
