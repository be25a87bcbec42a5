// Running one operation for a tool call: the same path for a direct tool, a surface tool and
// call_operation, so validation, the rate limiter, retries, downloads and the response budget behave
// identically however the operation is reached.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ApiClient } from '../api/client.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { ApiResponse } from '../api/client.js';
import { pathParams, type HttpMethod, type Operation } from '../operation.js';
import { readOperationArguments, refusalResult } from './arguments.js';
import { renderFile } from './files.js';
import { followJob, jobFromStart, jobKindOf, pollBudgetFor, type FollowOutcome, type JobKind, type JobRef } from './jobs.js';
import { callHint, renderError, renderJob, renderSuccess, toolError, type JobReport, type ResourceLink } from './results.js';
import { markWorkspaceContent } from './untrusted.js';
import { toMultipart, type UploadChecks } from './uploads.js';

export interface ExecuteDeps {
  config: Config;
  client: ApiClient;
  logger: Logger;
  allowedUploadDirs: () => Promise<string[]>;
  /** Resource links for a result (src/mcp/resources.ts), given the operation, its arguments and data. */
  linksFor?: (op: Operation, args: Record<string, unknown>, data: unknown) => ResourceLink[];
  /** This workspace's operation at a method and path, whatever its name (catalog or live description). */
  operationAt?: (method: HttpMethod, path: string) => Operation | undefined;
  /** Whether a tool of this name is listed in this session; hints go through call_operation otherwise. */
  toolListed?: (name: string) => boolean;
}

export interface RunOptions {
  signal: AbortSignal;
  /** The tool the assistant called, for hints ("call X again with ..."). */
  via?: string;
  /** MCP progress, when the client gave a progress token: jobs followed and files downloaded report it. */
  progress?: (done: number, total: number, message?: string) => void;
}

/** Tool-level arguments of job tools, read with the operation's (src/mcp/arguments.ts): they never reach the API. */
interface JobArgs {
  /** false: answer at once; a number: seconds to follow instead of WORKSPACE_JOB_WAIT_SECONDS. */
  wait?: boolean | number;
  cancelOnAbort?: boolean;
}

export function createExecutor(deps: ExecuteDeps) {
  const { config, client, logger } = deps;
  const operationAt = deps.operationAt ?? (() => undefined);
  const listed = deps.toolListed ?? (() => true);
  const hint = (op: Operation, args: Record<string, unknown>, via: string | undefined) =>
    callHint(op.name, args, !via?.startsWith('call_operation') && listed(op.name));

  // Uploads ask the workspace for the external-source format (a cached reference read) before sending.
  const uploadChecks: UploadChecks = {
    async externalSourceSchema(version, signal) {
      const op = operationAt('GET', '/sources/schema/external-source/{version}');
      if (!op) return undefined;
      return (await client.callOperation(op, { version }, { signal })).data;
    },
  };

  async function followStarted(op: Operation, ref: JobRef, job: JobArgs, opts: RunOptions): Promise<CallToolResult> {
    const waitMs = job.wait === false ? 0 : typeof job.wait === 'number' ? job.wait * 1000 : config.jobWaitSeconds * 1000;
    const follow = { client, operationAt, budget: pollBudgetFor(client, config.rateLimit) };
    const out: FollowOutcome = await followJob(ref, follow, {
      waitMs,
      signal: opts.signal,
      ...(opts.progress ? { progress: opts.progress } : {}),
      ...(job.cancelOnAbort ? { cancelOnAbort: true } : {}),
    });
    const last = out.last;
    const state: JobReport['state'] = out.outcome === 'unreadable' ? 'unknown' : last.phase === 'running' ? 'in_progress' : last.phase;
    const dl = ref.kind.download;
    const dlOp = dl && operationAt(dl.method, dl.path);
    const report: JobReport = {
      label: ref.kind.label,
      id: ref.id,
      status: last.status,
      ...(last.progress !== undefined ? { progress: last.progress } : {}),
      ...(last.error ? { error: last.error } : {}),
      state,
      waitedMs: out.waitedMs,
      polls: out.polls,
      record: last.record,
      ...(out.read ? { checkAgain: hint(out.read.op, out.read.args, opts.via) } : {}),
      ...(dl && dlOp ? { download: hint(dlOp, dl.args(ref), opts.via) } : {}),
      ...(out.pollError ? { pollError: out.pollError } : {}),
      ...(job.wait === false ? { notFollowed: true } : {}),
      // The start's links (an export's file resource) and the read's (the document generated).
      links: [...(deps.linksFor?.(op, ref.args, ref.job) ?? []), ...(out.read ? (deps.linksFor?.(out.read.op, out.read.args, last.record) ?? []) : [])],
    };
    if (state === 'succeeded' && dl && dlOp) {
      // The point of an export is its file: fetched in the same call.
      try {
        const res = await client.callOperation(dlOp, dl.args(ref), { signal: opts.signal });
        report.file = res.file
          ? await renderFile(dlOp, res.file, config.downloadDir, opts.signal)
          : toolError(`${dlOp.name} answered without a file (HTTP ${res.status}).`);
      } catch (err) {
        if (opts.signal.aborted) throw err;
        report.file = renderError(dlOp, err);
      }
    }
    logger.debug({ op: op.name, job: ref.id, state, polls: out.polls, ms: out.waitedMs }, 'job followed');
    return renderJob(report, config.responseBudget);
  }

  function startedJob(kind: JobKind | undefined, res: ApiResponse, args: Record<string, unknown>): JobRef | undefined {
    return kind && res.data !== undefined ? jobFromStart(kind, res.data, args) : undefined;
  }

  return async function runOperation(op: Operation, raw: unknown, opts: RunOptions): Promise<CallToolResult> {
    const kind = jobKindOf(op);
    // The operation's arguments and the layer's own (fields, wait, cancel_on_abort), read as sent and validated together.
    const read = readOperationArguments(op, raw);
    if (!read.ok) return refusalResult(read);
    const checked = read.args;
    const split = { fields: read.args.fields };
    const jobSplit = { job: { ...(read.args.wait !== undefined ? { wait: read.args.wait } : {}), ...(read.args.cancelOnAbort !== undefined ? { cancelOnAbort: read.args.cancelOnAbort } : {}) } satisfies JobArgs };
    const started = performance.now();
    try {
      const multipart = op.body === 'multipart' ? await toMultipart(op, checked.args, await deps.allowedUploadDirs(), uploadChecks, opts.signal) : undefined;
      const res = await client.callOperation(op, checked.args, { signal: opts.signal, ...(multipart ? { multipart } : {}) });
      logger.debug({ tool: opts.via ?? op.name, op: op.name, status: res.status, ms: Math.round(performance.now() - started), cached: res.fromCache }, 'tool call');
      if (res.file) return await renderFile(op, res.file, config.downloadDir, opts.signal, opts.progress);
      const ref = startedJob(kind, res, checked.args);
      if (ref) return await followStarted(op, ref, jobSplit.job, opts);
      const links = deps.linksFor?.(op, checked.args, res.data) ?? [];
      const rendered = renderSuccess(op, res, {
        budget: config.responseBudget,
        known: pathParams(op.path).map((p) => String(checked.args[p])),
        ...(split.fields ? { fields: split.fields } : {}),
        via: opts.via ?? op.name,
        links,
      });
      return markWorkspaceContent(op, rendered);
    } catch (err) {
      if (opts.signal.aborted) throw err; // cancelled: the SDK sends no answer for a cancelled request
      logger.info({ tool: opts.via ?? op.name, op: op.name, err: err instanceof Error ? `${err.name}: ${err.message}` : String(err) }, 'tool call failed');
      return renderError(op, err);
    }
  };
}

export type RunOperation = ReturnType<typeof createExecutor>;
