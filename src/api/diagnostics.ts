// What the API client and the rate budget publish for whoever listens: one diagnostics channel per
// kind of event (node:diagnostics_channel, as undici does for its requests). Publishing costs nothing
// when nobody subscribes; a subscriber runs synchronously in the publisher's async context, so the
// audit trail can file an answer under the tool call that made it (an AsyncLocalStorage of its own)
// and the operator's metrics can count it, without this layer knowing of either.
import { channel } from 'node:diagnostics_channel';
import type { HttpMethod } from '../operation.js';

/** One answer of the workspace to one attempt (a 429 refused and then waited out is one answer too). */
export interface ApiAnswerEvent {
  method: HttpMethod;
  /** The path template as the catalog writes it, e.g. `/engagements/{engagement}/findings`. */
  path: string;
  /** The path parameters sent (ids): never the query or the body. */
  ids: Record<string, string>;
  status: number;
}

/** A call queued for the rate budget (its turn in the window, or a Retry-After shared by the window). */
interface BudgetWaitEvent {
  /** The wait expected when it was queued. */
  expectedMs: number;
}

/** A call refused because its wait for the rate budget would pass (or passed) the bound: nothing was sent. */
interface BudgetRefusalEvent {
  /** When a slot is expected to open, from now. */
  retryAfterMs: number;
  /** How long it waited before the refusal (0: refused at once). */
  waitedMs: number;
}

export const apiAnswers = channel('workspace-consulting-mcp:api.answer');
export const budgetWaits = channel('workspace-consulting-mcp:budget.wait');
export const budgetRefusals = channel('workspace-consulting-mcp:budget.refusal');

export function publishAnswer(e: ApiAnswerEvent): void {
  if (apiAnswers.hasSubscribers) apiAnswers.publish(e);
}
export function publishBudgetWait(e: BudgetWaitEvent): void {
  if (budgetWaits.hasSubscribers) budgetWaits.publish(e);
}
export function publishBudgetRefusal(e: BudgetRefusalEvent): void {
  if (budgetRefusals.hasSubscribers) budgetRefusals.publish(e);
}
