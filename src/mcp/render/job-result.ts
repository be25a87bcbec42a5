// Where a followed job ended up (an analysis run, a document generation, an export), as the tool
// answers it: one sentence on its state and what to do next, then the record it worked on.

import { boundObject } from './budget.js';
import { type CallHint, hintText, withArguments } from './hints.js';
import { conciseNote, type ResourceLink } from './success.js';
import { estimateTokens } from './tokens.js';
import { ERROR_META_KEY, type ToolResult } from './tool-result.js';

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
  file?: ToolResult;
  pollError?: string;
  /** The caller asked not to wait. */
  notFollowed?: boolean;
  links?: ResourceLink[];
  /** Ids the reader already has (the call's path arguments): not repeated in the record's text. */
  known?: readonly string[];
}

function errorSummary(e: unknown): string {
  if (e && typeof e === 'object') {
    const o = e as Record<string, unknown>;
    return [o.code, o.message].filter(Boolean).map(String).join(': ') || JSON.stringify(e);
  }
  return e === undefined || e === null ? 'the workspace gave no reason' : String(e);
}

/** The job's answer; `budget` in tokens, as for every result. */
export function renderJob(r: JobReport, budget: number): ToolResult {
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
  // The record is what a read of the job answers: shown in the concise form, like every read.
  const bounded = boundObject(r.record, Math.max(250, budget - estimateTokens(head) - 50), { format: 'concise', ...(r.known ? { known: r.known } : {}) });
  const structured: Record<string, unknown> = {
    job: { kind: r.label, id: r.id, status: r.status, ...(r.progress !== undefined ? { progress: r.progress } : {}), ...(r.error ? { error: r.error } : {}) },
    state: r.state,
    waited_seconds: Math.round(r.waitedMs / 100) / 10,
    polls: r.polls,
    ...(r.checkAgain && r.state !== 'succeeded' ? { check_again: r.checkAgain } : {}),
    ...(r.download && r.state !== 'succeeded' ? { download: r.download } : {}),
  };
  structured.record = bounded.value;
  const content: ToolResult['content'] = [{ type: 'text', text: head }];
  if (r.file) {
    // The file says what the export produced; its record is in structuredContent.
    Object.assign(structured, r.file.structuredContent ?? {});
    content.push(...r.file.content);
  } else {
    const checkAgain = r.checkAgain;
    const note = conciseNote(bounded, checkAgain && ((extra) => hintText(withArguments(checkAgain, extra))));
    content.push({ type: 'text', text: note ? `${bounded.text}\n${note}` : bounded.text });
  }
  content.push(...(r.links ?? []));
  // A job that failed, or an export whose file could not be fetched, is an error in the job's shape
  // (the work ran): its structuredContent conforms to the tool's outputSchema, its code is in _meta.
  if (r.state === 'failed') return { isError: true, content, structuredContent: structured, _meta: { [ERROR_META_KEY]: { code: 'job_failed' } } };
  if (r.file?.isError) return { isError: true, content, structuredContent: structured, ...(r.file._meta ? { _meta: r.file._meta } : {}) };
  return { content, structuredContent: structured };
}
