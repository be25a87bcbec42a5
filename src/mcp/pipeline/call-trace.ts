// The API requests one tool call made, as the API client publishes them (src/api/diagnostics.ts): each
// call runs in an async context of its own, and the answers published within it are filed under it.
// What the audit trail says a call did (its operation, the ids in its path, its status) comes from
// here, so it is what was sent, never what was asked.
import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import { type ApiAnswerEvent, apiAnswers } from '../../api/diagnostics.js';

const current = new AsyncLocalStorage<ApiAnswerEvent[]>();
let subscribed = false;

/** Run `fn`, collecting the answers of the API requests it makes (in order). */
export async function traceCall<T>(fn: () => Promise<T>): Promise<{ value: T; answers: ApiAnswerEvent[] } | { error: unknown; answers: ApiAnswerEvent[] }> {
  if (!subscribed) {
    subscribed = true;
    subscribe(apiAnswers.name, (message) => current.getStore()?.push(message as ApiAnswerEvent));
  }
  const answers: ApiAnswerEvent[] = [];
  try {
    return { value: await current.run(answers, fn), answers };
  } catch (error) {
    return { error, answers };
  }
}
