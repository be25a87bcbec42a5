// The one call pipeline. Every tool, direct, gateway or workflow, goes through the same four steps:
//   resolve  the tool (or operation) by name under the session's policy (toolsets, read-only, consent)
//   parse    its arguments against its whole input (API arguments and the MCP layer's extras)
//   run      the handler: for an operation, the API request (uploads, jobs followed, files saved)
//   render   bounded, linked, and marked when it quotes workspace content
// A refusal at any step is a tool result saying what to send instead, and no request is made.
// Workflows run their inner operations through `invoke`, which is resolve + parse + run without
// rendering, so an inner call is held to the same policy and validation as a direct one.
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ApiClient, ApiResponse } from '../api/client.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { type Operation, pathParams } from '../operation.js';
import { refusalResult as argumentsRefusal, type ReadResult, readArguments } from './arguments.js';
import { type Extras, extrasNotTaken, readExtrasAsSent, splitExtras } from './extras.js';
import { type FollowOutcome, followJob, type JobKind, type JobRef, jobFromStart, jobKindOf, pollBudgetFor } from './jobs.js';
import { isRefusal, type Refusal, type ToolRegistry, writeRefusal } from './registry.js';
import { callHint, type JobReport, markWorkspaceContent, renderError, renderFile, renderJob, renderSuccess, toolError } from './render/index.js';
import { linksFor } from './resources.js';
import { type CallContext, operationInput, type ToolSpec, toolDefinition } from './tools.js';
import { toMultipart, type UploadChecks } from './uploads.js';

export interface PipelineDeps {
  config: Config;
  client: ApiClient;
  logger: Logger;
  registry: ToolRegistry;
}

/** A refusal as a tool result: the same words for every tool, nothing sent. */
export function refusalResult(r: Refusal): CallToolResult {
  return toolError(r.message, { error: { code: r.reason } });
}

/** Thrown by `invoke` when an inner operation of a workflow may not run or its arguments are wrong. */
export class InvocationRefused extends Error {
  constructor(readonly result: CallToolResult) {
    const first = result.content[0];
    super(first && first.type === 'text' ? first.text : 'refused');
  }
}

export class Pipeline {
  readonly #deps: PipelineDeps;
  readonly #opTools = new WeakMap<Operation, ToolSpec>();
  /** The session's own tools (default surface: workflows and gateway), by name. */
  #own = new Map<string, ToolSpec>();
  /** Whether a tool of this name is listed in this session (hints go through call_operation otherwise). */
  #listed: (name: string) => boolean = () => true;
  readonly #uploadChecks: UploadChecks;

  constructor(deps: PipelineDeps) {
    this.#deps = deps;
    const { client, registry } = deps;
    // Uploads ask the workspace for the external-source format (a cached reference read) before sending.
    this.#uploadChecks = {
      async externalSourceSchema(version, signal) {
        const op = registry.at('GET', '/sources/schema/external-source/{version}');
        if (!op || !registry.permitted(op)) return undefined;
        return (await client.callOperation(op, { version }, signal ? { signal } : {})).data;
      },
    };
  }

  get registry(): ToolRegistry {
    return this.#deps.registry;
  }

  /** The session's own tools and how to tell a listed name (set by the surface that owns them). */
  setSurface(own: readonly ToolSpec[], listed: (name: string) => boolean): void {
    this.#own = new Map(own.map((t) => [t.name, t]));
    this.#listed = listed;
  }

  /** The tool of one operation: its definition, whole input, and handler. Built once per operation. */
  operationTool(op: Operation): ToolSpec {
    let t = this.#opTools.get(op);
    if (!t) {
      t = {
        name: op.name,
        definition: toolDefinition(op),
        scope: op.scope,
        input: operationInput(op),
        quotesContent: op.quotesContent && op.response === 'json',
        read: (raw) => {
          const r = readArguments(operationInput(op), readExtrasAsSent(op, raw), op.name, extrasNotTaken(op));
          return r as ReadResult<Record<string, unknown>>;
        },
        run: (args, ctx) => this.#runOperation(op, args, ctx),
      };
      this.#opTools.set(op, t);
    }
    return t;
  }

  /** Step 1: the tool behind a name, or why it cannot be called in this session. */
  async resolve(name: string): Promise<ToolSpec | Refusal> {
    const own = this.#own.get(name);
    if (own) {
      if (own.scope === 'write' && !this.registry.writesAllowed()) return writeRefusal(this.registry.policy, name) as Refusal;
      return own;
    }
    // Operations not listed are still callable by name (a model that learnt one from find_operations).
    if (!this.registry.get(name)) await this.registry.operations.ready();
    const op = this.registry.resolve(name);
    return isRefusal(op) ? op : this.operationTool(op);
  }

  /** All four steps for a tool call. */
  async call(name: string, raw: unknown, ctx: CallContext): Promise<CallToolResult> {
    const tool = await this.resolve(name);
    if (isRefusal(tool)) return refusalResult(tool);
    return this.callTool(tool, raw, ctx);
  }

  /** Steps 2 to 4 for a resolved tool (the gateway resolves first, to name the operation it runs). */
  async callTool(tool: ToolSpec, raw: unknown, ctx: CallContext): Promise<CallToolResult> {
    // Read as models send them (null is absent, JSON text for an object...), then validated strictly.
    const checked = tool.read ? tool.read(raw) : readArguments(tool.input, raw, tool.name);
    if (!checked.ok) return argumentsRefusal(checked);
    const result = await tool.run(checked.args as Record<string, unknown>, ctx);
    return tool.quotesContent ? markWorkspaceContent({ quotesContent: true, response: 'json' }, result) : result;
  }

  /**
   * For workflows: one operation by name, resolved under the session's policy and validated like a
   * direct call, then run; answers the API response (not rendered). A refusal throws InvocationRefused.
   */
  async invoke(name: string, args: Record<string, unknown>, ctx: Pick<CallContext, 'signal' | 'waiting'>): Promise<ApiResponse> {
    if (!this.registry.get(name)) await this.registry.operations.ready();
    const op = this.registry.resolve(name);
    if (isRefusal(op)) throw new InvocationRefused(refusalResult(op));
    const checked = readArguments(op.input, args, op.name);
    if (!checked.ok) throw new InvocationRefused(argumentsRefusal(checked));
    return this.#deps.client.callOperation(op, checked.args as Record<string, unknown>, {
      signal: ctx.signal,
      ...(ctx.waiting ? { onRateWait: ctx.waiting } : {}),
    });
  }

  /** How to make a call again: the operation's own tool when listed here, else call_operation. */
  #hint(op: Operation, args: Record<string, unknown>, via: string | undefined) {
    return callHint(op.name, args, !via?.startsWith('call_operation') && this.#listed(op.name));
  }

  async #runOperation(op: Operation, args: Record<string, unknown>, ctx: CallContext): Promise<CallToolResult> {
    const { config, client, logger } = this.#deps;
    const { api, extras } = splitExtras(op, args);
    const started = performance.now();
    try {
      const multipart =
        op.body === 'multipart'
          ? await toMultipart(op, api, ctx.uploadDirs ? await ctx.uploadDirs() : config.uploadDirs, this.#uploadChecks, ctx.signal)
          : undefined;
      const res = await client.callOperation(op, api, {
        signal: ctx.signal,
        ...(multipart ? { multipart } : {}),
        ...(ctx.waiting ? { onRateWait: ctx.waiting } : {}),
      });
      logger.debug(
        { tool: ctx.via ?? op.name, op: op.name, status: res.status, ms: Math.round(performance.now() - started), cached: res.fromCache },
        'tool call',
      );
      const budget = ctx.budget ?? config.responseBudget;
      if (res.file) return await renderFile(op, res.file, config.downloadDir, ctx.signal, ctx.progress, budget);
      const kind = jobKindOf(op);
      const ref = kind && res.data !== undefined ? jobFromStart(kind, res.data, api) : undefined;
      if (kind && ref) return await this.#followStarted(op, kind, ref, extras, ctx);
      return await renderSuccess(op, res, {
        budget,
        known: pathParams(op.path).map((p) => String(api[p])),
        ...(extras.fields ? { fields: extras.fields } : {}),
        ...(extras.format ? { format: extras.format } : {}),
        via: ctx.via ?? op.name,
        links: linksFor(op, api, res.data),
        args: api,
        again: (a) => this.#hint(op, a, ctx.via),
        // After a cut, the cursor right after the last record shown (one more request).
        cursorAfter: async (n) => (await client.callOperation(op, { ...api, limit: n }, { signal: ctx.signal })).meta?.next_cursor as string | null | undefined,
      });
    } catch (err) {
      if (ctx.signal.aborted) throw err; // cancelled: no answer is sent for a cancelled request
      logger.info({ tool: ctx.via ?? op.name, op: op.name, err: err instanceof Error ? `${err.name}: ${err.message}` : String(err) }, 'tool call failed');
      return renderError(op, err);
    }
  }

  async #followStarted(op: Operation, kind: JobKind, ref: JobRef, job: Extras, ctx: CallContext): Promise<CallToolResult> {
    const { config, client, logger, registry } = this.#deps;
    const operationAt = (method: string, path: string) => {
      const o = registry.at(method, path);
      return o && registry.permitted(o) ? o : undefined;
    };
    const waitMs = job.wait !== undefined ? job.wait * 1000 : config.jobWaitSeconds * 1000;
    const out: FollowOutcome = await followJob(
      ref,
      { client, operationAt, budget: pollBudgetFor(client, config.rateLimit) },
      {
        waitMs,
        signal: ctx.signal,
        ...(ctx.progress ? { progress: ctx.progress } : {}),
        ...(job.cancelOnAbort ? { cancelOnAbort: true } : {}),
      },
    );
    const last = out.last;
    const state: JobReport['state'] = out.outcome === 'unreadable' ? 'unknown' : last.phase === 'running' ? 'in_progress' : last.phase;
    const dl = kind.download;
    const dlOp = dl && operationAt(dl.method, dl.path);
    const report: JobReport = {
      label: kind.label,
      id: ref.id,
      status: last.status,
      ...(last.progress !== undefined ? { progress: last.progress } : {}),
      ...(last.error ? { error: last.error } : {}),
      state,
      waitedMs: out.waitedMs,
      polls: out.polls,
      record: last.record,
      ...(out.read ? { checkAgain: this.#hint(out.read.op, out.read.args, ctx.via) } : {}),
      ...(dl && dlOp ? { download: this.#hint(dlOp, dl.args(ref), ctx.via) } : {}),
      ...(out.pollError ? { pollError: out.pollError } : {}),
      ...(job.wait === 0 ? { notFollowed: true } : {}),
      known: Object.values(ref.args).filter((v): v is string => typeof v === 'string'),
      // The start's links (an export's file resource) and the read's (the document generated).
      links: [...linksFor(op, ref.args, ref.job), ...(out.read ? linksFor(out.read.op, out.read.args, last.record) : [])],
    };
    if (state === 'succeeded' && dl && dlOp) {
      // The point of an export is its file: fetched in the same call.
      try {
        const res = await client.callOperation(dlOp, dl.args(ref), { signal: ctx.signal });
        report.file = res.file
          ? await renderFile(dlOp, res.file, config.downloadDir, ctx.signal, undefined, ctx.budget ?? config.responseBudget)
          : toolError(`${dlOp.name} answered without a file (HTTP ${res.status}).`);
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        report.file = renderError(dlOp, err);
      }
    }
    logger.debug({ op: op.name, job: ref.id, state, polls: out.polls, ms: out.waitedMs }, 'job followed');
    return renderJob(report, ctx.budget ?? config.responseBudget);
  }
}
