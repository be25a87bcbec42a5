// Result rendering, the last step of every tool call: what the MCP layer calls. Each module holds one
// thing (see its head comment); this one only gathers their interface.
//
//   omissions.ts    empty fields and known ids out of any text copy; `fields` picking
//   concise.ts      the concise form: audit fields and dead references left out, nested lists counted
//   notation.ts     the concise text notation (records as lines, alike records as one table)
//   text.ts         an answer's text in either form (concise notation, detailed JSON)
//   tokens.ts       the o200k token estimate the budget counts in
//   budget.ts       cutting a text to the budget at a record boundary
//   arguments.ts    `fields` and `response_format`: schemas and reading
//   hints.ts        how to write a call, for continuation notes
//   success.ts      an API answer as a tool result
//   failures.ts     failures as tool errors
//   job.ts          a followed job's answer
//   file.ts         a file answer (saved, linked, shown when small)
//   workflow.ts     a workflow tool's answer
//   content-note.ts the note that marks quoted workspace content
//   tool-result.ts  the result's shape (a CallToolResult of either SDK), and an error result's
export { boundList, boundObject, cutText } from './budget.js';
export { concise } from './concise.js';
export { markWorkspaceContent, WORKSPACE_CONTENT_NOTE, WORKSPACE_CONTENT_RULE } from './content-note.js';
export { renderError } from './failures.js';
export { renderFile } from './file-result.js';
export { callHint } from './hints.js';
export { type JobReport, renderJob } from './job-result.js';
export { compact, pickFields } from './omissions.js';
export { DEFAULT_RESPONSE_BUDGET_TOKENS, listNameOf, type ResourceLink, renderSuccess } from './success.js';
export { estimateTokens } from './tokens.js';
export { ERROR_META_KEY, errorDetail, type ToolResult, toolError } from './tool-result.js';
export { renderWorkflow } from './workflow-result.js';
