// Failures as tool errors the assistant can act on: what happened, and what to do instead.

import {
  BRIEFLY_UNAVAILABLE,
  BudgetWaitTooLongError,
  InvalidArgumentError,
  NetworkError,
  OutcomeUnknownError,
  RateLimitWaitTooLongError,
  RequestTimeoutError,
  WorkspaceApiError,
} from '../../api/errors.js';
import { type Operation, pathParams } from '../../operation.js';
import { isStoreUnavailable } from '../../store/state-store.js';
import { preview, refusal, refusalResult } from './refusal.js';
import { type ToolResult, toolError } from './tool-result.js';

/** What the assistant should do next, per error class; `given`: the ids the call named, for a 404. */
function hintFor(err: WorkspaceApiError, given: string): string {
  if (err.code === BRIEFLY_UNAVAILABLE) return 'Nothing reached the workspace: call again in a few seconds.';
  if (err.status === 401) {
    return 'The token was refused (missing, invalid, revoked or expired). Sign in again (workspace-consulting-mcp login) or set a new WORKSPACE_TOKEN.';
  }
  if (err.status === 403 && err.code === 'integrations.session_required') {
    return 'This action is reserved to the web application (it needs the web session and two-step verification). Ask the member to do it there.';
  }
  if (err.status === 403) return "The member's role, a workspace rule or the token's scope does not allow this. Do not retry; ask the member.";
  if (err.status === 404) return `Not found in this workspace${given}. Check the ids: list the parent resource to find valid ones.`;
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

/** The path ids a call named, as the words of a 404: ` (given: engagement "01J…")`. */
function givenIds(op: Operation, args: Record<string, unknown> | undefined): string {
  const named = pathParams(op.path).flatMap((p) => (args?.[p] === undefined ? [] : [`${p} ${preview(args[p])}`]));
  return named.length ? ` (given: ${named.join(', ')})` : '';
}

/**
 * An operation's failure as a tool error; anything that is not an API or transport failure is a bug
 * and is thrown. `args`: the call's arguments, whose path ids a "not found" names.
 */
export function renderError(op: Operation, err: unknown, args?: Record<string, unknown>): ToolResult {
  if (err instanceof WorkspaceApiError) {
    const fields = fieldLines(err.details);
    const message = [`${op.name} failed: HTTP ${err.status} ${err.code}: ${err.message}`, fields, hintFor(err, givenIds(op, args))].filter(Boolean).join('\n');
    return toolError(message, { status: err.status, code: err.code, message: err.message, details: err.details, rate_limit_retries: err.rateLimitRetries });
  }
  if (err instanceof OutcomeUnknownError) {
    return toolError(`${op.name}: outcome unknown. ${err.message}`, { code: 'outcome_unknown', method: err.method, path: err.path });
  }
  if (err instanceof BudgetWaitTooLongError) {
    return toolError(`${op.name}: ${err.message}`, {
      code: 'rate_budget_exhausted',
      retry_after_seconds: err.retryAfterSeconds,
      max_wait_seconds: err.boundSeconds,
      sent: false,
    });
  }
  if (err instanceof RateLimitWaitTooLongError) {
    return toolError(`${op.name}: ${err.message}`, { code: 'rate_limited', retry_after_seconds: err.retryAfterSeconds });
  }
  if (err instanceof RequestTimeoutError) {
    const write = op.method === 'POST' || op.method === 'PATCH';
    return toolError(
      `${op.name}: ${err.message}${write ? ' It may or may not have been applied: read the resource before trying again.' : ' Try again later.'}`,
      { code: 'timeout' },
    );
  }
  if (err instanceof NetworkError) return toolError(`${op.name}: the workspace could not be reached: ${err.message}`, { code: 'network' });
  if (err instanceof InvalidArgumentError) {
    // Content only the upload step can judge (a file's size, type or format): refused in the same words as any argument.
    return refusalResult({ ...refusal(op.name, [{ path: [err.field], rule: err.message }]), code: 'invalid_argument' }, { field: err.field });
  }
  if (isStoreUnavailable(err)) {
    // The call's own request went (or was never needed); keeping what it needs for later (a file's
    // link) failed: Redis down, or switching to a new master.
    const write = op.method !== 'GET';
    return toolError(
      `${op.name}: this server's state store is briefly unavailable. ${write ? 'The change may have been applied: read the resource before trying again.' : 'Call again in a few seconds.'}`,
      { code: 'store_unavailable' },
    );
  }
  throw err;
}
