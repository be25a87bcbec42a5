// Turning API answers into tool results: the data as structuredContent, a compact text copy for the
// model (empty fields dropped), the next-page hint on lists, and errors the assistant can act on.
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ApiResponse } from '../api/client.js';
import {
  InvalidArgumentError,
  NetworkError,
  OutcomeUnknownError,
  RateLimitWaitTooLongError,
  RequestTimeoutError,
  WorkspaceApiError,
} from '../api/errors.js';
import type { Operation } from '../operation.js';
import { refusal, refusalResult } from './arguments.js';
import { aboutChars, boundList, boundObject, pickFields } from './budget.js';

/**
 * The text copy of a result, for the model: drop null, undefined, empty strings, empty arrays and
 * empty objects, and `*_id` fields naming an id the reader already has (an argument of the call, such
 * as the engagement, or the enclosing record, such as a finding's evidences' finding_id). They cost
 * tokens and say nothing; structuredContent keeps the API's data whole.
 */
export function compact(value: unknown, known: readonly string[] = []): unknown {
  return compactWalk(value, known.slice());
}

// One pass, no intermediate arrays: `ids` is a stack of the ids in scope (pushed while walking a
// record's children). This runs on every result, so it avoids Object.entries and spreads.
function compactWalk(value: unknown, ids: string[]): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = compactWalk(value[i], ids);
    return out;
  }
  const rec = value as Record<string, unknown>;
  const id = typeof rec.id === 'string' ? rec.id : undefined;
  const out: Record<string, unknown> = {};
  for (const k in rec) {
    const v = rec[k];
    if (v === null || v === undefined || v === '') continue;
    if (typeof v !== 'object') {
      if (typeof v === 'string' && k.endsWith('_id') && ids.includes(v)) continue;
      out[k] = v;
      continue;
    }
    if (id !== undefined) ids.push(id);
    const c = compactWalk(v, ids);
    if (id !== undefined) ids.pop();
    if (Array.isArray(c) ? c.length === 0 : !hasKeys(c as object)) continue;
    out[k] = c;
  }
  return out;
}

function hasKeys(o: object): boolean {
  for (const _ in o) return true;
  return false;
}

function text(t: string): { type: 'text'; text: string } {
  return { type: 'text', text: t };
}

export interface RenderOptions {
  /** Characters of text the result may carry (WORKSPACE_RESPONSE_BUDGET). */
  budget: number;
  /** Keep only these fields of each record (list tools' `fields` argument). */
  fields?: readonly string[];
  /** How to call the same thing again, for the continuation hints: a tool name or `call_operation`. */
  via?: string;
  /** Resources to link to (the records shown, readable in full as resources). */
  links?: ResourceLink[];
  /** Ids the reader already has (the call's path arguments): not repeated in the text copy. */
  known?: readonly string[];
}

export interface ResourceLink {
  type: 'resource_link';
  uri: string;
  name: string;
  mimeType?: string;
  description?: string;
}

export function renderSuccess(op: Operation, res: ApiResponse, opts: RenderOptions = { budget: 20_000 }): CallToolResult {
  if (res.alreadyGone) {
    const said = `Done: ${op.title}: deleted (it was already gone when checked again: an earlier attempt's answer was lost, and the retry found nothing left to delete).`;
    return { content: [text(said)], structuredContent: { ok: true, status: res.status, already_gone: true } };
  }
  if (res.status === 204 || (res.data === undefined && !res.file)) {
    return { content: [text(`Done: ${op.title} (HTTP ${res.status}).`)], structuredContent: { ok: true, status: res.status } };
  }
  const via = opts.via ?? op.name;
  const links = opts.links ?? [];
  const data = opts.fields?.length ? pickFields(res.data, opts.fields) : res.data;
  if (Array.isArray(data)) {
    const next = typeof res.meta?.next_cursor === 'string' ? res.meta.next_cursor : null;
    const cut = boundList(data, opts.budget, opts.known);
    const notes: string[] = [];
    if (cut.omitted > 0) {
      notes.push(
        `${cut.shown.length} of ${data.length} items shown; ${cut.omitted} more on this page (${aboutChars(cut.omittedChars)}) were left out to stay within the response budget. ` +
          `To get them, call ${via} again with the same arguments and limit ${cut.shown.length} (then follow next_cursor), or pass fields (e.g. ["id","name"]) to keep fewer fields.`,
      );
    } else {
      notes.push(`${data.length} item${data.length === 1 ? '' : 's'}${next ? '' : '; this is the last page'}.`);
    }
    // After a cut the page cursor would skip the records left out: the hint above replaces it.
    if (next && cut.omitted === 0) notes.push(`More exist: call ${via} again with the same arguments and cursor "${next}".`);
    return {
      content: [text(`${cut.text}\n${notes.join(' ')}`), ...links],
      structuredContent: {
        items: cut.shown,
        next_cursor: cut.omitted > 0 ? null : next,
        ...(cut.omitted > 0 ? { truncated: { shown: cut.shown.length, omitted: cut.omitted, retry_with_limit: cut.shown.length } } : {}),
        ...(res.meta ? { meta: res.meta } : {}),
      },
    };
  }
  const bounded = boundObject(data, opts.budget, opts.known);
  let body = bounded.text;
  if (bounded.cut) {
    const c = bounded.cut;
    const where = c.path ? `"${c.path}": ${c.kept} of ${c.total} items shown` : `text cut after ${c.kept} of ${c.total} characters`;
    const how = links.length ? `read the resource ${links[0]?.uri} for all of it` : 'pass fields to keep fewer fields';
    body += `\n(Cut to stay within the response budget: ${where}; ${aboutChars(c.omittedChars)} left out. To get the rest, ${how}.)`;
  }
  if (res.fromCache) body += '\n(from cache)';
  const v = bounded.value;
  const structured = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : { value: v };
  return { content: [text(body), ...links], structuredContent: structured };
}

export function toolError(message: string, structured?: Record<string, unknown>): CallToolResult {
  return { isError: true, content: [text(message)], ...(structured ? { structuredContent: structured } : {}) };
}

/** What the assistant should do next, per error class. */
function hintFor(err: WorkspaceApiError): string {
  if (err.status === 401) {
    return 'The token was refused (missing, invalid, revoked or expired). Sign in again (workspace-consulting-mcp login) or set a new WORKSPACE_TOKEN.';
  }
  if (err.status === 403 && err.code === 'integrations.session_required') {
    return 'This action is reserved to the web application (it needs the web session and two-step verification). Ask the member to do it there.';
  }
  if (err.status === 403) return "The member's role, a workspace rule or the token's scope does not allow this. Do not retry; ask the member.";
  if (err.status === 404) return 'Not found in this workspace. Check the id: list the parent resource to find valid ids.';
  if (err.status === 409) return 'The resource is not in a state that allows this (or changed meanwhile). Read it again, then decide.';
  if (err.status === 422) return 'Fix the fields listed above and call again.';
  if (err.status === 429) return `Rate limit reached; waited and retried ${err.rateLimitRetries} time(s). Wait before calling again.`;
  if (err.status >= 500) return 'The workspace had a problem. Try again later; for a write, read the resource first to see whether it was applied.';
  return 'See the message above.';
}

function fieldLines(details: Record<string, unknown>): string {
  const fields = details.fields;
  if (!fields || typeof fields !== 'object') return '';
  return Object.entries(fields as Record<string, unknown>)
    .map(([f, msgs]) => `- ${f}: ${Array.isArray(msgs) ? msgs.join('; ') : String(msgs)}`)
    .join('\n');
}

export function renderError(op: Operation, err: unknown): CallToolResult {
  if (err instanceof WorkspaceApiError) {
    const fields = fieldLines(err.details);
    const message = [`${op.name} failed: HTTP ${err.status} ${err.code}: ${err.message}`, fields, hintFor(err)].filter(Boolean).join('\n');
    return toolError(message, {
      error: { status: err.status, code: err.code, message: err.message, details: err.details, rate_limit_retries: err.rateLimitRetries },
    });
  }
  if (err instanceof OutcomeUnknownError) {
    return toolError(`${op.name}: outcome unknown. ${err.message}`, { error: { code: 'outcome_unknown', method: err.method, path: err.path } });
  }
  if (err instanceof RateLimitWaitTooLongError) {
    return toolError(`${op.name}: ${err.message}`, { error: { code: 'rate_limited', retry_after_seconds: err.retryAfterSeconds } });
  }
  if (err instanceof RequestTimeoutError) {
    const write = op.method === 'POST' || op.method === 'PATCH';
    return toolError(
      `${op.name}: ${err.message}${write ? ' It may or may not have been applied: read the resource before trying again.' : ' Try again later.'}`,
      { error: { code: 'timeout' } },
    );
  }
  if (err instanceof NetworkError) return toolError(`${op.name}: the workspace could not be reached: ${err.message}`, { error: { code: 'network' } });
  if (err instanceof InvalidArgumentError) {
    // Content only the upload step can judge (a file's size, type or format): refused in the same words as any argument.
    const r = refusalResult(refusal(op.name, [{ path: [err.field], rule: err.message }]), 'invalid_argument');
    return { ...r, structuredContent: { error: { ...r.structuredContent.error, field: err.field } } };
  }
  throw err;
}

/** How to make one call, as the assistant would: a listed tool, or the gateway's call_operation. */
export interface CallHint {
  tool: string;
  arguments: Record<string, unknown>;
}

export function callHint(operation: string, args: Record<string, unknown>, listed: boolean): CallHint {
  return listed ? { tool: operation, arguments: args } : { tool: 'call_operation', arguments: { operation, arguments: args } };
}

export function hintText(h: CallHint): string {
  return `call ${h.tool} with ${JSON.stringify(h.arguments)}`;
}

/** Where a followed job ended up, as the tool answers it. */
export interface JobReport {
  label: string;
  id: string;
  status: string;
  progress?: number;
  error?: unknown;
  /** finished states, `in_progress` past the wait, `unknown` when its state could not be read. */
  state: 'succeeded' | 'failed' | 'cancelled' | 'in_progress' | 'unknown';
  waitedMs: number;
  polls: number;
  /** The final (or last read) record: the job, or the document/draft/session it worked on. */
  record: unknown;
  checkAgain?: CallHint;
  /** For exports: how to fetch the file once it is ready. */
  download?: CallHint;
  /** The produced file's result (exports), appended after the summary. */
  file?: CallToolResult;
  pollError?: string;
  /** The caller asked not to wait. */
  notFollowed?: boolean;
  links?: ResourceLink[];
}

function errorSummary(e: unknown): string {
  if (e && typeof e === 'object') {
    const o = e as Record<string, unknown>;
    return [o.code, o.message].filter(Boolean).map(String).join(': ') || JSON.stringify(e);
  }
  return e === undefined || e === null ? 'the workspace gave no reason' : String(e);
}

export function renderJob(r: JobReport, budget: number): CallToolResult {
  const what = `${r.label} ${r.id}`;
  const secs = `${(r.waitedMs / 1000).toFixed(1)} s`;
  const pct = r.progress !== undefined ? `, ${r.progress}%` : '';
  const again = r.checkAgain ? ` Check again: ${hintText(r.checkAgain)}.` : '';
  const fetch = r.download ? ` Once it has succeeded, get the file: ${hintText(r.download)}.` : '';
  let head: string;
  switch (r.state) {
    case 'succeeded':
      head = `The ${what} succeeded${r.waitedMs > 0 ? ` (followed for ${secs})` : ''}.`;
      break;
    case 'failed':
      head = `The ${what} failed: ${errorSummary(r.error)}. Nothing was produced; start it again once the cause is dealt with.`;
      break;
    case 'cancelled':
      head = `The ${what} was cancelled; it produced nothing.`;
      break;
    case 'in_progress':
      head = r.notFollowed
        ? `The ${what} was started (status ${r.status}${pct}); not followed, as asked.${again}${fetch}`
        : `The ${what} is still ${r.status}${pct} after ${secs} of waiting; it goes on in the workspace.${again}${fetch}`;
      break;
    default:
      head = `The ${what} was started (last seen ${r.status}${pct}) but its state could not be read (${r.pollError ?? 'no answer'}); it may still be running.${again}${fetch}`;
  }
  const bounded = boundObject(compact(r.record), Math.max(1000, budget - head.length - 200));
  const structured: Record<string, unknown> = {
    job: { kind: r.label, id: r.id, status: r.status, ...(r.progress !== undefined ? { progress: r.progress } : {}), ...(r.error ? { error: r.error } : {}) },
    state: r.state,
    waited_seconds: Math.round(r.waitedMs / 100) / 10,
    polls: r.polls,
    ...(r.checkAgain && r.state !== 'succeeded' ? { check_again: r.checkAgain } : {}),
    ...(r.download && r.state !== 'succeeded' ? { download: r.download } : {}),
  };
  structured.record = bounded.value;
  const content: CallToolResult['content'] = [text(head)];
  if (r.file) {
    // The file says what the export produced; its record is in structuredContent.
    Object.assign(structured, r.file.structuredContent ?? {});
    content.push(...r.file.content);
  } else {
    content.push(text(bounded.text));
  }
  content.push(...(r.links ?? []));
  return { ...(r.state === 'failed' || r.file?.isError ? { isError: true } : {}), content, structuredContent: structured };
}
