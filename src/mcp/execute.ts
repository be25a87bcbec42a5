// Running one operation for a tool call: the same path for a direct tool, a surface tool and
// call_operation, so validation, the rate limiter, retries, downloads and the response budget behave
// identically however the operation is reached.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ApiClient } from '../api/client.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { ApiResponse } from '../api/client.js';
import { pathParams, type HttpMethod, type Operation } from '../operation.js';
import { followJob, jobFromStart, jobKindOf, pollBudgetFor, type FollowOutcome, type JobKind, type JobRef } from './jobs.js';
import {
  callHint,
  markWorkspaceContent,
  readResponseFormat,
  renderError,
  renderFile,
  renderJob,
  renderSuccess,
  takesResponseFormat,
  toolError,
  type JobReport,
  type ResourceLink,
  type ResponseFormat,
} from './render/index.js';
import { toMultipart, type UploadChecks } from './uploads.js';
import { validateArguments } from './validation.js';

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

/** Tool-level arguments of job tools, taken off before validation: they never reach the API. */
interface JobArgs {
  /** false: answer at once; a number: seconds to follow instead of WORKSPACE_JOB_WAIT_SECONDS. */
  wait?: boolean | number;
  cancelOnAbort?: boolean;
}

function splitJobArgs(kind: JobKind | undefined, op: Operation, raw: unknown): { args: unknown; job: JobArgs; error?: string } {
  if (!kind || raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { args: raw, job: {} };
  const { wait, cancel_on_abort, ...rest } = raw as Record<string, unknown>;
  const errors: string[] = [];
  const job: JobArgs = {};
  if ('wait' in op.input.shape || 'cancel_on_abort' in op.input.shape) return { args: raw, job };
  if (wait !== undefined) {
    if (typeof wait === 'boolean' || (typeof wait === 'number' && Number.isFinite(wait) && wait >= 0 && wait <= 600)) job.wait = wait;
    else errors.push('- wait: expected true, false or a number of seconds from 0 to 600');
  }
  if (cancel_on_abort !== undefined) {
    if (!kind.cancel) errors.push(`- cancel_on_abort: a ${kind.label} cannot be cancelled; leave it out`);
    else if (typeof cancel_on_abort !== 'boolean') errors.push('- cancel_on_abort: expected true or false');
    else job.cancelOnAbort = cancel_on_abort;
  }
  return { args: rest, job, ...(errors.length ? { error: `Invalid arguments for ${op.name}; nothing was sent.\n${errors.join('\n')}` } : {}) };
}

/**
 * `fields` is not an API parameter: it is taken off before validation (the operation's schema is
 * strict) and applied to the answer. Accepted by every operation that answers JSON. So is
 * `response_format` (concise or detailed) on the reads among them.
 */
function splitFields(op: Operation, raw: unknown): { args: unknown; fields?: string[]; format?: ResponseFormat; error?: string } {
  if (op.response !== 'json' || raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { args: raw };
  let format: ResponseFormat | undefined;
  if (takesResponseFormat(op) && 'response_format' in raw) {
    const { response_format, ...others } = raw as Record<string, unknown>;
    const read = readResponseFormat(response_format);
    if (read.error) return { args: others, error: `Invalid arguments for ${op.name}; nothing was sent.\n${read.error}` };
    format = read.format;
    raw = others;
  }
  const fmt = format ? { format } : {};
  if (!('fields' in (raw as object)) || 'fields' in op.input.shape) return { args: raw, ...fmt };
  const { fields, ...rest } = raw as Record<string, unknown>;
  if (fields === undefined || fields === null) return { args: rest, ...fmt };
  if (!Array.isArray(fields) || !fields.every((f) => typeof f === 'string' && f.length > 0)) {
    return { args: rest, error: `Invalid arguments for ${op.name}; nothing was sent.\n- fields: expected an array of field names, e.g. ["id","statement"]` };
  }
  return { args: rest, fields: fields as string[], ...fmt };
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
      known: Object.values(ref.args).filter((v): v is string => typeof v === 'string'),
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
    const jobSplit = splitJobArgs(kind, op, raw);
    if (jobSplit.error) return toolError(jobSplit.error, { error: { code: 'invalid_arguments' } });
    const split = splitFields(op, jobSplit.args);
    if (split.error) return toolError(split.error, { error: { code: 'invalid_arguments' } });
    const checked = validateArguments(op, split.args);
    if (!checked.ok) return toolError(checked.message, { error: { code: 'invalid_arguments', fields: checked.fields } });
    const started = performance.now();
    try {
      const multipart = op.body === 'multipart' ? await toMultipart(op, checked.args, await deps.allowedUploadDirs(), uploadChecks, opts.signal) : undefined;
      const res = await client.callOperation(op, checked.args, { signal: opts.signal, ...(multipart ? { multipart } : {}) });
      logger.debug({ tool: opts.via ?? op.name, op: op.name, status: res.status, ms: Math.round(performance.now() - started), cached: res.fromCache }, 'tool call');
      if (res.file) return await renderFile(op, res.file, config.downloadDir, opts.signal, opts.progress, config.responseBudget);
      const ref = startedJob(kind, res, checked.args);
      if (ref) return await followStarted(op, ref, jobSplit.job, opts);
      const links = deps.linksFor?.(op, checked.args, res.data) ?? [];
      const rendered = await renderSuccess(op, res, {
        budget: config.responseBudget,
        known: pathParams(op.path).map((p) => String(checked.args[p])),
        ...(split.fields ? { fields: split.fields } : {}),
        ...(split.format ? { format: split.format } : {}),
        via: opts.via ?? op.name,
        links,
        args: checked.args,
        again: (a) => hint(op, a, opts.via),
        // After a cut, the cursor right after the last record shown (one more request).
        cursorAfter: async (n) => (await client.callOperation(op, { ...checked.args, limit: n }, { signal: opts.signal })).meta?.next_cursor as string | null | undefined,
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
