// The refusal `Pipeline.invoke` throws: an inner operation of a workflow that may not run, or whose
// arguments are wrong, with the tool result that says why (the caller answers it as its own).
import type { CallToolResult } from '@modelcontextprotocol/server';

/** Thrown by `invoke` when an inner operation of a workflow may not run or its arguments are wrong. */
export class InvocationRefused extends Error {
  constructor(readonly result: CallToolResult) {
    const first = result.content[0];
    super(first && first.type === 'text' ? first.text : 'refused');
  }
}
