// A workflow tool's answer (engagement_overview, document_context): the sections it gathered, whole
// in structuredContent, in the concise form for the model, bounded like any result.

import { aboutTokens, boundObject } from './budget.js';
import { conciseNote } from './success.js';
import type { ToolResult } from './tool-result.js';

interface WorkflowRenderOptions {
  /** Content after the text (resource links). */
  extra?: ToolResult['content'];
  /** How to see what the concise form leaves out, completed with `and response_format "detailed"`. */
  how?: string;
  /** Dotted fields the concise form keeps whatever its rules (`document.updated_at`, which a write echoes). */
  keep?: readonly string[];
  /** Ids the reader already has (the engagement asked about): not repeated. */
  known?: readonly string[];
}

/** `budget` in tokens, as for every result. */
export function renderWorkflow(value: Record<string, unknown>, budget: number, opts: WorkflowRenderOptions = {}): ToolResult {
  const b = boundObject(value, budget, { format: 'concise', ...(opts.keep ? { requested: opts.keep } : {}), ...(opts.known ? { known: opts.known } : {}) });
  let text = b.text;
  if (b.cut) {
    const where = b.cut.path ? `"${b.cut.path}": ${b.cut.kept} of ${b.cut.total} items shown` : 'text cut';
    text += `\n(Cut to stay within the response budget of ${budget} tokens: ${where}; ${aboutTokens(b.cut.omittedTokens)} left out. The operation behind that section lists all of it.)`;
  }
  // Workflow tools take no `fields` (the operations behind their sections do): field names suffice.
  const names = [...new Set(b.fields.map((f) => f.slice(f.lastIndexOf('.') + 1)))];
  const note = conciseNote({ fields: names, counted: b.counted }, opts.how, false);
  if (note) text += `\n${note}`;
  return { content: [{ type: 'text', text }, ...(opts.extra ?? [])], structuredContent: (b.value ?? {}) as Record<string, unknown> };
}
