// The one call pipeline. Every tool, direct, gateway or workflow, goes through the same four steps:
//   resolve  the tool (or operation) by name under the session's policy (toolsets, read-only, consent)
//   parse    its arguments against its whole input (API arguments and the MCP layer's extras)
//   run      the handler: for an operation, the API request (uploads, jobs followed, files saved)
//   render   bounded, linked, and marked when it quotes workspace content
// A refusal at any step is a tool result saying what to send instead, and no request is made.
// Workflows run their inner operations through `invoke`, which is resolve + parse + run without
// rendering, so an inner call is held to the same policy and validation as a direct one.
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ApiClient, ApiFile, ApiResponse } from '../../api/client.js';
import { abortError } from '../../api/errors.js';
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';
import { type Operation, pathParams, purposeOf } from '../../operation.js';
import type { MemberFileLinks } from '../files/file-links.js';
import type { ToolRegistry } from '../operations/registry.js';
import { linksFor } from '../operations/resources.js';
import { type CallOrigin, originLabel } from '../render/call-origin.js';
import {
  callHint,
  type JobReport,
  markWorkspaceContent,
  renderError,
  renderFile,
  renderJob,
  renderSuccess,
  type ToolResult,
  toolError,
} from '../render/index.js';
import { EMBED_MAX_BYTES, renderMemberFile } from '../render/member-file.js';
import { isRefusal, type Refusal, refusalResult } from '../render/refusal.js';
import { readArguments, readOperationArguments } from './arguments.js';
import { type BlocksBasis, citationRefusal } from './citations.js';
import { questionText } from './confirmation.js';
import { type Extras, splitExtras, toolInput } from './extras.js';
import { type FollowOutcome, followJob, type JobKind, type JobRef, jobFromStart, jobKindOf } from './follow-jobs.js';
import { InvocationRefused } from './invocation-refused.js';
import { type CallContext, type ToolSpec, toolDefinition } from './tool-spec.js';
import { remoteUploadDefinition, remoteUploadSchema, remoteUploadWords, toMultipart, type UploadChecks } from './uploads.js';

interface PipelineDeps {
  config: Config;
  client: ApiClient;
  logger: Logger;
  registry: ToolRegistry;
  /** Remote mode: the member's file links, for files too large to embed (nothing is saved to disk there). */
  files?: MemberFileLinks;
}

/** The fields that name a record, in the order a confirmation looks for one. */
const NAME_FIELDS = ['title', 'name', 'statement', 'label', 'topic', 'email', 'filename', 'file_name'] as const;

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
    const { registry } = deps;
    // Uploads ask the workspace for the external-source format (a cached reference read) before
    // sending: through `invoke`, like a workflow's inner call (the policy, validation and limiter).
    this.#uploadChecks = {
      externalSourceSchema: async (version, signal) => {
        const op = registry.permittedNamed('get_external_source_schema');
        if (!op) return undefined;
        return (await this.invoke(op.name, { version }, { signal: signal ?? new AbortController().signal })).data;
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

  /** One of the session's own tools (a workflow, block edits, an app's tool, the gateway, code mode) by name. */
  ownTool(name: string): ToolSpec | undefined {
    return this.#own.get(name);
  }

  /** The session's own tools, in the order the surface declared them. */
  ownTools(): ToolSpec[] {
    return [...this.#own.values()];
  }

  /** The tool of one operation: its definition, whole input, and handler. Built once per operation. */
  operationTool(op: Operation): ToolSpec {
    let t = this.#opTools.get(op);
    if (!t) {
      t = {
        name: op.name,
        definition: this.#definition(op),
        scope: op.scope,
        // Built when a call first reads it: listing the tool needs only its definition.
        get input() {
          return toolInput(op);
        },
        quotesContent: op.quotesContent,
        read: (raw) => readOperationArguments(op, raw),
        run: (args, ctx) => this.#checkThenRun(op, args, ctx),
      };
      this.#opTools.set(op, t);
    }
    return t;
  }

  /** What tools/list shows of an operation: on a shared server, uploads say they take content, not paths. */
  #definition(op: Operation): ToolSpec['definition'] {
    const { config } = this.#deps;
    const def = toolDefinition(op);
    return config.remote && op.upload ? remoteUploadDefinition(def, op.upload.maxKib, config.uploadDirs) : def;
  }

  /** The input schema describe_operation shows, as this mode accepts it (no upload path on a shared server). */
  shownInputSchema(op: Operation, schema: Record<string, unknown>): Record<string, unknown> {
    const { config } = this.#deps;
    if (!config.remote || !op.upload) return schema;
    return remoteUploadSchema(schema, op.upload.maxKib, config.uploadDirs);
  }

  /** Notes describe_operation adds about where an operation's files come from and go, in this mode. */
  fileNotes(op: Operation): string[] {
    const { config } = this.#deps;
    const notes: string[] = [];
    if (op.upload) {
      notes.push(
        config.remote
          ? `Upload: file takes ${remoteUploadWords(op.upload.maxKib, config.uploadDirs)}.`
          : "Upload: file takes exactly one of path (an absolute path inside the client's roots or WORKSPACE_UPLOAD_DIRS), text or base64.",
      );
    }
    if (op.response === 'file') {
      notes.push(
        config.remote
          ? `Answers a file: up to ${EMBED_MAX_BYTES / 1024} KiB it comes back in the result; a larger one as a link that only you can open, for ${config.remote.downloadLinkSeconds} s.`
          : 'Answers a file: it is saved to the download folder and returned as a link.',
      );
    }
    return notes;
  }

  /** Step 1: the tool behind a name, or why it cannot be called in this session. */
  async resolve(name: string): Promise<ToolSpec | Refusal> {
    const own = this.#own.get(name);
    if (own) {
      return this.registry.refusal(own) ?? own;
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
    if (!checked.ok) return refusalResult(checked);
    const result = await tool.run(checked.args as Record<string, unknown>, ctx);
    return tool.quotesContent ? markWorkspaceContent(result) : result;
  }

  /**
   * For workflows: one operation by name, resolved under the session's policy and validated like a
   * direct call, then run; answers the API response (not rendered). A refusal throws InvocationRefused.
   * `basis`: for a write of blocks, the document the workflow read and changed (citations.ts).
   */
  async invoke(
    name: string,
    args: Record<string, unknown>,
    ctx: Pick<CallContext, 'signal' | 'waiting' | 'budgetWaitMs'>,
    basis?: BlocksBasis,
  ): Promise<ApiResponse> {
    if (!this.registry.get(name)) await this.registry.operations.ready();
    const op = this.registry.resolve(name);
    if (isRefusal(op)) throw new InvocationRefused(refusalResult(op));
    const checked = readArguments(op.input, args, op.name);
    if (!checked.ok) throw new InvocationRefused(refusalResult(checked));
    const cites = await citationRefusal(this, op, checked.args as Record<string, unknown>, ctx, basis);
    if (cites) throw new InvocationRefused(refusalResult(cites));
    return this.#deps.client.callOperation(op, checked.args as Record<string, unknown>, {
      signal: ctx.signal,
      ...(ctx.waiting ? { onRateWait: ctx.waiting } : {}),
      ...(ctx.budgetWaitMs !== undefined ? { maxBudgetWaitMs: ctx.budgetWaitMs } : {}),
    });
  }

  /** How to make a call again: the operation's own tool when listed here, else call_operation. */
  #hint(op: Operation, args: Record<string, unknown>, via: CallOrigin | undefined) {
    return callHint(op.name, args, via?.kind !== 'gateway' && this.#listed(op.name));
  }

  /**
   * An operation's own tool, whoever calls it (directly, call_operation, a script): what its blocks cite
   * is checked first, as on every path (citations.ts); a failed check is the operation's failure.
   */
  async #checkThenRun(op: Operation, args: Record<string, unknown>, ctx: CallContext): Promise<CallToolResult> {
    try {
      const cites = await citationRefusal(this, op, args, ctx);
      if (cites) return refusalResult(cites);
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      if (err instanceof InvocationRefused) return err.result;
      return renderError(op, err, args);
    }
    return this.#confirmThenRun(op, args, ctx);
  }

  /**
   * A destructive operation, where the client can ask its user: asked first, quoting what it acts on;
   * sent only on a well-formed yes to its own question. Its arguments are valid by now, so a user is
   * never asked about a call that would be refused anyway.
   */
  async #confirmThenRun(op: Operation, args: Record<string, unknown>, ctx: CallContext): Promise<CallToolResult> {
    if (op.annotations.destructiveHint && ctx.confirm) {
      const answer = await ctx.confirm({ message: await this.#question(op, args, ctx), operation: op.name, args, signal: ctx.signal });
      if (ctx.signal.aborted) {
        // Cancelled while its question waited (a script stopped, a request cancelled): nothing sent, no answer.
        this.#deps.logger.debug({ tool: originLabel(ctx.via, op.name), op: op.name }, 'tool call cancelled');
        throw abortError(ctx.signal);
      }
      if (answer.action !== 'accept') {
        const why =
          answer.action === 'unanswered'
            ? `${op.name} was not confirmed: ${answer.why}`
            : `the user ${answer.action === 'decline' ? 'declined' : 'cancelled'} ${op.name} when asked to confirm it`;
        return toolError(`Not run: ${why}. Nothing was sent.`, {
          code: answer.action === 'unanswered' ? 'not_confirmed' : 'declined',
          action: answer.action,
          operation: op.name,
        });
      }
    }
    return this.#runOperation(op, args, ctx);
  }

  /** What the user is asked: the operation, its ids, the record's own text when one read of it says, and what its arguments make of it. */
  async #question(op: Operation, args: Record<string, unknown>, ctx: CallContext): Promise<string> {
    const record = await this.#recordText(op, args, ctx);
    return questionText({
      title: op.title,
      purpose: purposeOf(op),
      ids: pathParams(op.path).map((p) => [p, args[p]] as const),
      args,
      ...(op.consequences ? { consequences: op.consequences } : {}),
      ...(record ? { record } : {}),
    });
  }

  /**
   * The title, name or statement of the record an operation acts on, from one read of it (its own
   * path, or the record an action's path ends in: a publish names its engagement); undefined when
   * none is cheap or it fails.
   */
  async #recordText(op: Operation, args: Record<string, unknown>, ctx: CallContext): Promise<{ kind: string; field: string; text: string } | undefined> {
    let path = op.path;
    while (path && !path.endsWith('}')) path = path.replace(/\/[^/]*$/, '');
    if (!path) return undefined;
    const read = this.registry.operations
      .all()
      .find((o) => o.method === 'GET' && o.path === path && !o.paginated && o.response === 'json' && this.registry.permitted(o));
    if (!read) return undefined;
    const params = pathParams(path);
    const pathArgs = Object.fromEntries(params.map((p) => [p, args[p]]));
    try {
      const data = (await this.invoke(read.name, pathArgs, ctx)).data as Record<string, unknown> | undefined;
      for (const field of NAME_FIELDS) {
        const text = data?.[field];
        if (typeof text === 'string' && text.trim()) return { kind: params.at(-1) ?? 'record', field, text };
      }
    } catch {
      // The ids alone name it.
    }
    return undefined;
  }

  async #runOperation(op: Operation, args: Record<string, unknown>, ctx: CallContext): Promise<CallToolResult> {
    const { config, client, logger } = this.#deps;
    const { api, extras } = splitExtras(op, args);
    const started = performance.now();
    try {
      const multipart =
        op.body === 'multipart'
          ? await toMultipart(
              op,
              api,
              { dirs: ctx.uploadDirs ? await ctx.uploadDirs() : config.uploadDirs, remote: config.remote !== undefined },
              this.#uploadChecks,
              ctx.signal,
            )
          : undefined;
      const res = await client.callOperation(op, api, {
        signal: ctx.signal,
        ...(multipart ? { multipart } : {}),
        ...(ctx.waiting ? { onRateWait: ctx.waiting } : {}),
        ...(ctx.budgetWaitMs !== undefined ? { maxBudgetWaitMs: ctx.budgetWaitMs } : {}),
      });
      // Built only when it is written: this runs on every call.
      if (logger.isLevelEnabled('debug')) {
        logger.debug(
          { tool: originLabel(ctx.via, op.name), op: op.name, status: res.status, ms: Math.round(performance.now() - started), cached: res.fromCache },
          'tool call',
        );
      }
      const budget = ctx.budget ?? config.responseBudget;
      if (res.file) return await this.#fileResult(op, api, res.file, ctx, ctx.progress, budget);
      const kind = jobKindOf(op);
      const ref = kind && res.data !== undefined ? jobFromStart(kind, res.data, api) : undefined;
      if (kind && ref) return await this.#followStarted(op, kind, ref, extras, ctx);
      const rendered = await renderSuccess(op, res, {
        budget,
        known: pathParams(op.path).map((p) => String(api[p])),
        ...(extras.fields ? { fields: extras.fields } : {}),
        ...(extras.format ? { format: extras.format } : {}),
        ...(ctx.via ? { via: ctx.via } : {}),
        links: linksFor(op, api, res.data),
        args: api,
        again: (a) => this.#hint(op, a, ctx.via),
        // After a cut, the cursor right after the last record shown (one more request).
        cursorAfter: async (n) => (await client.callOperation(op, { ...api, limit: n }, { signal: ctx.signal })).meta?.next_cursor as string | null | undefined,
      });
      // A job's start that names no job to follow still answers in a job's shape (its outputSchema):
      // state unknown, never polled, the answer as its record.
      return kind
        ? { ...rendered, structuredContent: { state: 'unknown', waited_seconds: 0, polls: 0, record: rendered.structuredContent ?? null } }
        : rendered;
    } catch (err) {
      if (ctx.signal.aborted) {
        // Cancelled: no answer is sent for a cancelled request. Logged once the call has stopped
        // (a job it followed no longer polled, cancelled on the workspace when asked).
        logger.debug({ tool: originLabel(ctx.via, op.name), op: op.name }, 'tool call cancelled');
        throw err;
      }
      logger.info(
        { tool: originLabel(ctx.via, op.name), op: op.name, err: err instanceof Error ? `${err.name}: ${err.message}` : String(err) },
        'tool call failed',
      );
      return renderError(op, err, api);
    }
  }

  /**
   * A file answer: saved to the download folder on a member's own machine (stdio, --http); on a shared
   * server, never to the replica's disk: embedded when small, else a link for this member only.
   */
  async #fileResult(
    op: Operation,
    args: Record<string, unknown>,
    file: ApiFile,
    ctx: CallContext,
    progress: CallContext['progress'] | undefined,
    budget: number,
  ): Promise<ToolResult> {
    const { config, files } = this.#deps;
    if (config.remote) {
      if (!files) throw new Error('a remote session has no file links: refusing to write a download to disk');
      return renderMemberFile(op, args, file, files, budget);
    }
    return renderFile(op, file, config.downloadDir, ctx.signal, progress, budget);
  }

  async #followStarted(op: Operation, kind: JobKind, ref: JobRef, job: Extras, ctx: CallContext): Promise<CallToolResult> {
    const { config, client, logger, registry } = this.#deps;
    const operationNamed = (name: string) => registry.permittedNamed(name);
    const waitMs = job.wait !== undefined ? job.wait * 1000 : config.jobWaitSeconds * 1000;
    const out: FollowOutcome = await followJob(
      ref,
      { client, operationNamed },
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
    const dlOp = dl && operationNamed(dl.operation);
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
          ? await this.#fileResult(dlOp, dl.args(ref), res.file, ctx, undefined, ctx.budget ?? config.responseBudget)
          : toolError(`${dlOp.name} answered without a file (HTTP ${res.status}).`, { code: 'no_file', status: res.status });
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        report.file = renderError(dlOp, err, dl.args(ref));
      }
    }
    logger.debug({ op: op.name, job: ref.id, state, polls: out.polls, ms: out.waitedMs }, 'job followed');
    return renderJob(report, ctx.budget ?? config.responseBudget);
  }
}
