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
import { shownName } from '../operations/registry.js';
import { readArguments } from '../pipeline/arguments.js';
import type { Pipeline } from '../pipeline/pipeline.js';
import { type CallContext, defineTool, type ToolSpec } from '../pipeline/tool-spec.js';
import { cutText, ERROR_META_KEY, errorDetail, estimateTokens, markWorkspaceContent, type ToolResult } from '../render/index.js';
import { isRefusal, refusal, refusalResult } from '../render/refusal.js';
import { type CallAnswer, DEFAULT_SCRIPT_LIMITS, limitMessages, type ScriptError, type ScriptHost, type ScriptLimits } from './script-engine.js';
import { processScriptSlots, type ScriptSlots } from './script-slots.js';
import { runScriptInWorker } from './script-thread.js';

interface ScriptDeps {
  pipeline: Pipeline;
  /** WORKSPACE_RESPONSE_BUDGET: the text of a script's answer stays within it. */
  budget: number;
  limits?: Partial<ScriptLimits>;
  /** Whose scripts these are on a shared server (the member): they count against that member's cap too. */
  owner?: string;
  /** Where a script takes its slot (the process's by default). */
  slots?: ScriptSlots;
  /** Code mode: the session's tools a script can call that tools/list does not show, named in the description. */
  unlisted?: readonly string[];
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

function readDescription(unlisted: readonly string[] | undefined): string {
  // Scripts and call_operation are not in `api` (NOT_IN_API): a script calls an operation by its name.
  const tools = unlisted?.length ? `the tools ${unlisted.join(', ')}` : 'any tool listed here (but call_operation and the scripts)';
  return (
    'Run JavaScript against the workspace and get back only what it returns: one call instead of many, to count, join or filter. ' +
    `The script is an async function body; \`await api.<name>(args)\` calls ${tools} or any operation (find_operations finds operations, describe_operation gives a signature), here to read only, and resolves to its structuredContent (lists: {items, next_cursor}). ` +
    '`return` JSON; console.log lines come back too. A failed call throws an Error with name and code. No network, files or timers. ' +
    'Example: const {items} = await api.list_findings({engagement: ID, limit: 200}); return items.length;'
  );
}

const WRITE_DESCRIPTION =
  'Like run_read_script, but api may also change data. A destructive operation runs only if allow names it (confirm with the user first) or, where the client can ask, the user accepts when asked. ' +
  'A write whose answer was lost throws OutcomeUnknownError: not sent again; read before retrying.';

/**
 * What a failed call's tool result becomes in the script: an Error by name, with its code and what the
 * code carries (the result's error detail), and the work it reports when it ran (a failed job's shape).
 */
function errorOf(name: string, result: CallToolResult): ScriptError {
  const sc = result.structuredContent as Record<string, unknown> | undefined;
  const e = errorDetail(result);
  const code = e?.code ?? 'failed';
  const kind =
    code === 'outcome_unknown'
      ? 'OutcomeUnknownError'
      : code === 'invalid_arguments' || code === 'invalid_argument' || e?.fields !== undefined
        ? 'ValidationError'
        : code === 'declined' || code === 'not_confirmed'
          ? 'DeclinedError'
          : typeof e?.status === 'number'
            ? 'ApiError'
            : code === 'read_only' || code === 'scope' || code === 'toolset' || code === 'unknown'
              ? 'RefusedError'
              : 'OperationError';
  const text = result.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
  return { ...e, ...(sc ? { result: sc } : {}), name: kind, code, operation: name, message: text };
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
 * Tools a script does not reach through `api`: the scripts themselves (a script runs no script) and
 * call_operation (a script calls the operation by its own name, under its own checks).
 */
export const NOT_IN_API: ReadonlySet<string> = new Set(['run_read_script', 'run_write_script', 'call_operation']);

/** Whether a tool of this name deletes or irreversibly commits (an operation's hint; none of the session's own tools does). */
function isDestructive(pipeline: Pipeline, tool: ToolSpec): boolean {
  const op = pipeline.registry.get(tool.name);
  return op ? op.annotations.destructiveHint : tool.definition.annotations?.destructiveHint === true;
}

/**
 * The script's `api`: everything the model can call in this session, by name (the session's tools,
 * workflows and the apps' data tools among them, and every catalog or live operation), each call
 * through the pipeline like a tool call of that name, under the script tool's own rule. A call waits
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
  const endsAt = performance.now() + wallMs;
  let done = 0;
  const inFlight = { calls: 0, writes: 0, waitingForUser: 0 };
  // The user's confirmation, counted while it is awaited: a write waiting for it has not been sent.
  const ask = ctx.confirm;
  const confirm: CallContext['confirm'] = ask
    ? async (question) => {
        inFlight.waitingForUser++;
        try {
          return await ask(question);
        } finally {
          inFlight.waitingForUser--;
        }
      }
    : undefined;
  return {
    inFlight: () => ({ ...inFlight }),
    async call(name, args, signal) {
      const resolved = NOT_IN_API.has(name) ? undefined : await pipeline.resolve(name);
      if (!resolved || (isRefusal(resolved) && resolved.code === 'unknown')) {
        return refused('unknown', `api.${shownName(name)}: no such tool or operation (find_operations lists operations by what they do). Nothing was sent.`);
      }
      if (isRefusal(resolved)) return refused(resolved.code, resolved.message, name);
      // The one write check: whatever the name (an operation, a workflow that writes), a read script only reads.
      if (mode === 'read' && resolved.scope === 'write') {
        return refused(
          'read_script',
          `api.${resolved.name} changes data and run_read_script only reads: nothing was sent. Use run_write_script.`,
          resolved.name,
        );
      }
      // Where the client can ask its user, the user confirms each destructive call (the pipeline asks);
      // elsewhere the model's allow, after confirming with the user itself, is the confirmation.
      if (isDestructive(pipeline, resolved) && !ctx.confirm && !allow.has(resolved.name)) {
        return refused(
          'not_allowed',
          `api.${resolved.name} is destructive and allow does not name it: nothing was sent.${ctx.unconfirmedWhy ? ` ${ctx.unconfirmedWhy}` : ''} Confirm with the user, then call ${tool} again with allow: ["${resolved.name}"].`,
          resolved.name,
        );
      }
      const writes = resolved.scope === 'write';
      inFlight.calls++;
      if (writes) inFlight.writes++;
      let result: Awaited<ReturnType<Pipeline['callTool']>>;
      try {
        result = await pipeline.callTool(resolved, args, {
          signal,
          via: { kind: 'script', tool, operation: resolved.name },
          budget: UNBOUNDED,
          budgetWaitMs: Math.max(0, endsAt - performance.now()),
          ...(ctx.waiting ? { waiting: ctx.waiting } : {}),
          ...(ctx.uploadDirs ? { uploadDirs: ctx.uploadDirs } : {}),
          ...(confirm ? { confirm } : {}),
        });
      } finally {
        inFlight.calls--;
        if (writes) inFlight.writes--;
      }
      done++;
      ctx.progress?.(done, undefined, `api.${resolved.name} answered (${done} API call${done === 1 ? '' : 's'})`);
      if (resolved.quotesContent) seen.quotes = true;
      if (result.isError) {
        const error = errorOf(resolved.name, result);
        // A write its validation refused, or its user declined, was not sent: it is no write made.
        if (writes && error.name !== 'ValidationError' && error.name !== 'DeclinedError')
          seen.writes.push({ operation: resolved.name, ok: false, code: error.code });
        return { ok: false, error };
      }
      if (writes) seen.writes.push({ operation: resolved.name, ok: true });
      return { ok: true, value: result.structuredContent ?? {} };
    },
  };
}

/**
 * A stopped script's error detail: its code and name. Its answer keeps the whole error in
 * structuredContent (the tool's shape: what ran, its logs and writes), which its outputSchema admits.
 */
function scriptErrorMeta(error: { name: string; code: string }): Record<string, unknown> {
  return { [ERROR_META_KEY]: { code: error.code, name: error.name } };
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

/**
 * The last guard of the output limit, whatever produced the answer (its value, its logs, an error and
 * its fields): past the limit in its text or its structuredContent (as JSON), the answer becomes the
 * output limit's error, keeping only what the writes made.
 */
function withinOutputLimit(result: ToolResult, limits: ScriptLimits, calls: number, writes: { writes?: ScriptCalls['writes'] }): ToolResult {
  const text = result.content.reduce((n, c) => n + (c.type === 'text' ? c.text.length : 0), 0);
  if (text <= limits.maxOutputChars && JSON.stringify(result.structuredContent ?? {}).length <= limits.maxOutputChars) return result;
  const error = limitMessages(limits).output();
  const tail = `${calls} API call${calls === 1 ? '' : 's'} made. ${writesLine(writes.writes ?? [])}`.trim();
  return {
    isError: true,
    content: [{ type: 'text', text: `The script stopped: ${error.name} [${error.code}]: ${error.message}\n${tail}` }],
    structuredContent: { error, logs: [], api_calls: calls, ...writes },
    _meta: scriptErrorMeta(error),
  };
}

/** A script refused for a cap on scripts running at once: nothing ran, nothing was sent; retryable. */
function busy(cap: 'member' | 'process', limit: number): ToolResult {
  const who = cap === 'member' ? `you already have ${limit} scripts running on this server` : `this server is already running ${limit} scripts`;
  const message = `Not run: ${who} (the limit at once). Nothing was sent. Call again once one of them has answered.`;
  const error = { name: 'ScriptLimitError', code: cap === 'member' ? 'member_busy' : 'server_busy', message, retryable: true };
  return { isError: true, content: [{ type: 'text', text: message }], structuredContent: { error, logs: [], api_calls: 0 }, _meta: scriptErrorMeta(error) };
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
      description: mode === 'read' ? readDescription(deps.unlisted) : WRITE_DESCRIPTION,
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
            _meta: scriptErrorMeta(e),
          };
        }
        result = withinOutputLimit(result, limits, out.calls, writes);
        return seen.quotes ? markWorkspaceContent(result) : result;
      },
    });

  return [make('run_read_script', 'read'), make('run_write_script', 'write')];
}
