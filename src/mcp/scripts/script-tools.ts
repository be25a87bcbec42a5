// Code mode: run_read_script and run_write_script. The model sends JavaScript (an async function
// body) that calls `api.<operation>(args)`; only what the script returns reaches its context, not
// every intermediate answer. Each api call is a tool call of that operation in every respect but the
// rendering: the pipeline resolves it under the session's policy (read-only mode, consent),
// reads and validates its arguments, runs it through the API client (the exact shared rate budget,
// read retries, never a retried write) and answers the operation tool's structuredContent; a failure
// (a refusal, an API error, an outcome unknown) is an Error the script can catch, by name and code.
// The script itself runs in the WebAssembly isolate of script-engine.ts, on a worker thread
// (script-thread.ts).
import type { CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { abortError } from '../../api/errors.js';
import type { Operation } from '../../operation.js';
import { readArguments } from '../pipeline/arguments.js';
import type { Pipeline } from '../pipeline/pipeline.js';
import { isRefusal, refusal, refusalResult } from '../pipeline/refusal.js';
import { shownName } from '../registry.js';
import { cutText, estimateTokens, markWorkspaceContent, type ToolResult } from '../render/index.js';
import { type CallContext, defineTool, type ToolSpec } from '../tools/tool-spec.js';
import { type CallAnswer, DEFAULT_SCRIPT_LIMITS, type ScriptError, type ScriptHost, type ScriptLimits } from './script-engine.js';
import { processScriptSlots, type ScriptSlots } from './script-slots.js';
import { runScriptInWorker } from './script-thread.js';

export interface ScriptDeps {
  pipeline: Pipeline;
  /** WORKSPACE_RESPONSE_BUDGET: the text of a script's answer stays within it. */
  budget: number;
  limits?: Partial<ScriptLimits>;
  /** Whose scripts these are on a shared server (the member): they count against that member's cap too. */
  owner?: string;
  /** Where a script takes its slot (the process's by default). */
  slots?: ScriptSlots;
}

const MAX_SCRIPT_CHARS = 50_000;
/** A script's calls are rendered whole: their text is never read, their structuredContent is. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

const script = z.string().min(1).max(MAX_SCRIPT_CHARS);
const writeInput = z.strictObject({
  script,
  allow: z.array(z.string().min(1).max(100)).max(50).optional().describe('destructive operations the script may run'),
});
// The read script takes the same {script, allow?} (callers may send both tools one shape), but a read
// allows nothing: its listing leaves allow out, and an empty one is read as absent.
const readInput = z.strictObject({ script });
type ScriptArgs = z.infer<typeof writeInput>;

function withoutEmptyAllow(raw: unknown): unknown {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw) || !('allow' in raw)) return raw;
  const { allow, ...rest } = raw as Record<string, unknown>;
  const empty = allow === null || allow === undefined || (Array.isArray(allow) && !allow.length) || allow === '[]';
  return empty ? rest : raw;
}

const OUTPUT_SCHEMA = {
  type: 'object',
  properties: {
    result: {},
    logs: { type: 'array', items: { type: 'string' } },
    api_calls: { type: 'integer' },
  },
  required: ['logs', 'api_calls'],
} as const;

const READ_DESCRIPTION =
  'Run JavaScript against the workspace and get back only what it returns: one call instead of many, to count, join or filter. ' +
  'The script is an async function body; `await api.<operation>(args)` runs a read operation (find_operations finds them, describe_operation gives the signature) and resolves to its structuredContent (lists: {items, next_cursor}). ' +
  '`return` JSON; console.log lines come back too. A failed call throws an Error with name and code. No network, files or timers. ' +
  'Example: const {items} = await api.list_findings({engagement: ID, limit: 200}); return items.length;';

const WRITE_DESCRIPTION =
  'Like run_read_script, but api may also change data. A destructive operation runs only if allow names it: confirm with the user first. ' +
  'A write whose answer was lost throws OutcomeUnknownError: not sent again; read before retrying.';

/** What a failed call's tool result becomes in the script: an Error by name, with its code. */
function errorOf(op: Operation, result: CallToolResult): ScriptError {
  const sc = result.structuredContent as Record<string, unknown> | undefined;
  const e = sc?.error && typeof sc.error === 'object' ? (sc.error as Record<string, unknown>) : undefined;
  const code = typeof e?.code === 'string' ? e.code : sc?.state === 'failed' ? 'job_failed' : 'failed';
  const name =
    code === 'outcome_unknown'
      ? 'OutcomeUnknownError'
      : code === 'invalid_arguments' || code === 'invalid_argument'
        ? 'ValidationError'
        : typeof e?.status === 'number'
          ? 'ApiError'
          : code === 'read_only' || code === 'scope' || code === 'toolset' || code === 'unknown'
            ? 'RefusedError'
            : 'OperationError';
  const text = result.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
  return { ...e, ...(e ? {} : sc ? { result: sc } : {}), name, code, operation: op.name, message: text };
}

function refused(code: string, message: string, operation?: string): CallAnswer {
  return { ok: false, error: { name: 'RefusedError', code, message, ...(operation ? { operation } : {}) } };
}

/** What a run's calls did, for its answer: whether one quoted workspace content, and its writes. */
interface ScriptCalls {
  quotes: boolean;
  writes: { operation: string; ok: boolean; code?: string }[];
}

/**
 * The script's `api`: each call through the pipeline, under the script tool's own rule. A call waits
 * for the rate budget within the script's time (`wallMs` from now), never past it: one whose slot
 * opens later is refused at once, saying when, and the script decides.
 */
function apiHost(
  tool: string,
  mode: 'read' | 'write',
  allow: ReadonlySet<string>,
  pipeline: Pipeline,
  ctx: CallContext,
  seen: ScriptCalls,
  wallMs: number,
): ScriptHost {
  const registry = pipeline.registry;
  const endsAt = performance.now() + wallMs;
  let done = 0;
  return {
    async call(name, args, signal) {
      if (!registry.get(name)) await registry.operations.ready();
      const op = registry.get(name);
      if (!op) return refused('unknown', `api.${shownName(name)}: no such operation (find_operations lists them by what they do). Nothing was sent.`);
      const resolved = registry.resolve(op.name);
      if (isRefusal(resolved)) return refused(resolved.code, resolved.message, op.name);
      if (mode === 'read' && op.scope === 'write') {
        return refused('read_script', `api.${op.name} changes data and run_read_script only reads: nothing was sent. Use run_write_script.`, op.name);
      }
      if (op.annotations.destructiveHint && !allow.has(op.name)) {
        return refused(
          'not_allowed',
          `api.${op.name} is destructive and allow does not name it: nothing was sent. Confirm with the user, then call ${tool} again with allow: ["${op.name}"].`,
          op.name,
        );
      }
      const result = await pipeline.callTool(pipeline.operationTool(resolved), args, {
        signal,
        via: { kind: 'script', tool, operation: op.name },
        budget: UNBOUNDED,
        budgetWaitMs: Math.max(0, endsAt - performance.now()),
        ...(ctx.waiting ? { waiting: ctx.waiting } : {}),
        ...(ctx.uploadDirs ? { uploadDirs: ctx.uploadDirs } : {}),
      });
      done++;
      ctx.progress?.(done, undefined, `api.${op.name} answered (${done} API call${done === 1 ? '' : 's'})`);
      if (op.quotesContent) seen.quotes = true;
      if (result.isError) {
        const error = errorOf(op, result);
        // A write its validation refused was not sent: it is no write made.
        if (op.scope === 'write' && error.name !== 'ValidationError') seen.writes.push({ operation: op.name, ok: false, code: error.code });
        return { ok: false, error };
      }
      if (op.scope === 'write') seen.writes.push({ operation: op.name, ok: true });
      return { ok: true, value: result.structuredContent ?? {} };
    },
  };
}

/** The answer's text: what the script returned and logged, within the response budget. */
function answerText(head: string, body: string, logs: readonly string[], budget: number): string {
  const text = [head, body, ...(logs.length ? ['console.log:', ...logs] : [])].filter(Boolean).join('\n');
  if (estimateTokens(text) <= budget) return text;
  return `${cutText(text, budget)}\n(Cut to stay within the response budget of ${budget} tokens; all of it is in structuredContent. Return less, or a summary.)`;
}

function writesLine(writes: ScriptCalls['writes']): string {
  if (!writes.length) return '';
  return `Writes made: ${writes.map((w) => `${w.operation} (${w.ok ? 'done' : w.code === 'outcome_unknown' ? 'outcome unknown' : 'failed'})`).join(', ')}.`;
}

/** A script refused for a cap on scripts running at once: nothing ran, nothing was sent; retryable. */
function busy(cap: 'member' | 'process', limit: number): ToolResult {
  const who = cap === 'member' ? `you already have ${limit} scripts running on this server` : `this server is already running ${limit} scripts`;
  const message = `Not run: ${who} (the limit at once). Nothing was sent. Call again once one of them has answered.`;
  return {
    isError: true,
    content: [{ type: 'text', text: message }],
    structuredContent: {
      error: { name: 'ScriptLimitError', code: cap === 'member' ? 'member_busy' : 'server_busy', message, retryable: true },
      logs: [],
      api_calls: 0,
    },
  };
}

export function scriptTools(deps: ScriptDeps): ToolSpec[] {
  const { pipeline, budget, owner } = deps;
  const limits: ScriptLimits = { ...DEFAULT_SCRIPT_LIMITS, ...deps.limits };
  const slots = deps.slots ?? processScriptSlots;

  const make = (name: string, mode: 'read' | 'write'): ToolSpec =>
    defineTool({
      name,
      input: mode === 'read' ? readInput : writeInput,
      ...(mode === 'read' ? { read: (raw: unknown) => readArguments(readInput, withoutEmptyAllow(raw), name) } : {}),
      // Marked by the run itself, when one of its calls quoted workspace content.
      quotesContent: false,
      description: mode === 'read' ? READ_DESCRIPTION : WRITE_DESCRIPTION,
      outputSchema: OUTPUT_SCHEMA as unknown as { type: 'object' },
      annotations: mode === 'read' ? { readOnlyHint: true } : { readOnlyHint: false, destructiveHint: true },
      async run(args, ctx) {
        const { script, allow = [] } = args as ScriptArgs;
        if (allow.length) {
          if (allow.some((a) => !pipeline.registry.get(a))) await pipeline.registry.operations.ready();
          const unknown = allow.filter((a) => !pipeline.registry.get(a));
          if (unknown.length) {
            return refusalResult(
              refusal(name, [
                { path: ['allow'], rule: 'names operations (from find_operations) the script may run though destructive', given: JSON.stringify(unknown) },
              ]),
            );
          }
        }
        const slot = slots.take(owner);
        if (!slot.ok) return busy(slot.cap, slot.limit);
        const seen: ScriptCalls = { quotes: false, writes: [] };
        const host = apiHost(name, mode, new Set(allow), pipeline, ctx, seen, limits.wallMs);
        let out: Awaited<ReturnType<typeof runScriptInWorker>>;
        try {
          out = await runScriptInWorker(script, host, limits, ctx.signal);
        } finally {
          slot.release();
        }
        // Cancelled: no answer is sent for a cancelled request.
        if (ctx.signal.aborted) throw abortError(ctx.signal);
        const writes = mode === 'write' ? { writes: seen.writes } : {};
        let result: ToolResult;
        if (out.ok) {
          const json = out.result === undefined ? '' : JSON.stringify(out.result);
          const calls = `${out.calls} API call${out.calls === 1 ? '' : 's'}`;
          const head = `${out.result === undefined ? 'The script returned nothing' : 'The script returned'} (${calls}). ${writesLine(seen.writes)}`.trim();
          result = {
            content: [{ type: 'text', text: answerText(head, json, out.logs, budget) }],
            structuredContent: { ...(out.result === undefined ? {} : { result: out.result }), logs: out.logs, api_calls: out.calls, ...writes },
          };
        } else {
          const e = out.error;
          const at = typeof e.line === 'number' ? ` (line ${e.line})` : '';
          const head = `The script stopped: ${e.name} [${e.code}]${at}: ${e.message}`;
          const tail = `${out.calls} API call${out.calls === 1 ? '' : 's'} made. ${writesLine(seen.writes)}`.trim();
          result = {
            isError: true,
            content: [{ type: 'text', text: answerText(head, tail, out.logs, budget) }],
            structuredContent: { error: e, logs: out.logs, api_calls: out.calls, ...writes },
          };
        }
        return seen.quotes ? markWorkspaceContent(result) : result;
      },
    });

  return [make('run_read_script', 'read'), make('run_write_script', 'write')];
}
