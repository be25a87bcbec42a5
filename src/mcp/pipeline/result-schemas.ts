// What a tool's structuredContent holds, as the outputSchema its listing declares (docs/tool-results.md
// says it in words). structuredContent is the source of truth of a result; the text is its view for
// the model. An operation's schema is derived from its catalog entry (what it answers: a file, a job,
// a page of a list, a record), the gateway's and workflows' from what they build. The API documents
// no response bodies, so a record is declared as the object it is and no further: a schema that named
// fields the workspace may not send would be a lie every strict client would catch.
//
// Plain JSON Schema literals, shared by reference: tools/list carries them (clients validate every
// call's structuredContent against them), but clients do not show them to the model, so they cost
// the listing's bytes, not the model's context (bench/tokens.ts counts both).
import type { Tool } from '@modelcontextprotocol/server';
import type { Operation } from '../../operation.js';
import { jobKindOf } from './follow-jobs.js';

export type OutputSchema = NonNullable<Tool['outputSchema']>;

const STRING = { type: 'string' } as const;
const INTEGER = { type: 'integer' } as const;
const OBJECT = { type: 'object' } as const;

/** Any record of the workspace: the API's `data` (or a part of it), kept whole in structuredContent. */
export const RECORD_RESULT: OutputSchema = { type: 'object' };

/** A saved file (downloads, media, recordings, an export's file): where it is and what it is. */
const FILE = {
  type: 'object',
  properties: { path: STRING, name: STRING, size: INTEGER, content_type: STRING },
  required: ['path', 'name', 'size', 'content_type'],
} as const;

const FILE_RESULT: OutputSchema = { type: 'object', properties: { file: FILE }, required: ['file'] };

/**
 * A page of a list: the records shown, the cursor that continues right after them (null on the last
 * page), what a cut to the response budget left out, and the API's `meta` as sent.
 */
const LIST_RESULT: OutputSchema = {
  type: 'object',
  properties: {
    items: { type: 'array' },
    next_cursor: { type: ['string', 'null'] },
    truncated: {
      type: 'object',
      properties: { shown: INTEGER, omitted: INTEGER, retry_with_limit: INTEGER },
      required: ['shown', 'omitted', 'retry_with_limit'],
    },
    meta: OBJECT,
  },
  required: ['items', 'next_cursor'],
};

/** How to make a call: a listed tool and its arguments (call_operation's when the operation is not listed). */
const CALL = { type: 'object', properties: { tool: STRING, arguments: OBJECT }, required: ['tool', 'arguments'] } as const;

/**
 * A job started and followed (analysis runs, document generations, exports): the job, where it ended
 * up, how long it was followed, the record it worked on, how to check again or fetch the file, and
 * the file itself once an export has succeeded. A start whose answer names no job (no id to follow)
 * has no `job`, state `unknown` and the answer as its record.
 */
const JOB_RESULT: OutputSchema = {
  type: 'object',
  properties: {
    job: {
      type: 'object',
      properties: { kind: STRING, id: STRING, status: STRING, progress: { type: 'number' }, error: {} },
      required: ['kind', 'id', 'status'],
    },
    state: { enum: ['succeeded', 'failed', 'cancelled', 'in_progress', 'unknown'] },
    waited_seconds: { type: 'number' },
    polls: INTEGER,
    record: {},
    check_again: CALL,
    download: CALL,
    file: FILE,
  },
  required: ['state', 'waited_seconds', 'polls', 'record'],
};

/**
 * An operation's result, from its entry: a file; a job it starts; a page of a list; else the record
 * it answers (an answer without a body reads `{ok, status}`, one that happens to be a list reads as
 * a page: both are objects, which is all a record is declared to be).
 */
export function operationOutputSchema(op: Operation): OutputSchema {
  if (op.response === 'file') return FILE_RESULT;
  if (jobKindOf(op)) return JOB_RESULT;
  if (op.paginated) return LIST_RESULT;
  return RECORD_RESULT;
}

/**
 * find_operations: the operations that match, best first, each with what it takes to call it (its
 * required arguments, its signature: compact in code mode); when no match is strong, `weak` and the
 * likeliest areas to search within.
 */
export const FIND_RESULT: OutputSchema = {
  type: 'object',
  properties: {
    operations: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: STRING,
          method: STRING,
          path: STRING,
          scope: { enum: ['read', 'write'] },
          area: STRING,
          purpose: STRING,
          required: { type: 'array', items: STRING },
          signature: STRING,
          generated: { type: 'boolean' },
        },
        required: ['name', 'method', 'path', 'scope', 'area', 'purpose', 'required', 'signature'],
      },
    },
    weak: { type: 'boolean' },
    areas: { type: 'array', items: STRING },
    // Code mode: the server's tools a script calls that match too.
    tools: {
      type: 'array',
      items: {
        type: 'object',
        properties: { name: STRING, signature: STRING, scope: { enum: ['read', 'write'] }, purpose: STRING },
        required: ['name', 'signature', 'scope', 'purpose'],
      },
    },
  },
  required: ['operations'],
};

/**
 * describe_operation: one operation in full, its input schema as the JSON Schema its tool validates
 * and the output schema of what it answers (through call_operation too).
 */
export const DESCRIBE_RESULT: OutputSchema = {
  type: 'object',
  properties: {
    name: STRING,
    title: STRING,
    description: STRING,
    method: STRING,
    path: STRING,
    scope: { enum: ['read', 'write'] },
    area: STRING,
    annotations: OBJECT,
    signature: STRING,
    input_schema: OBJECT,
    output_schema: OBJECT,
    notes: { type: 'array', items: STRING },
  },
  // A tool of the session (a workflow...) has no method, path or area.
  required: ['name', 'title', 'description', 'scope', 'annotations', 'signature', 'input_schema', 'output_schema', 'notes'],
};

/** A workflow's section: what the operation behind it answered, or `{error}` when it failed. */
const SECTION = {} as const;

/** A workflow's answer: its sections by name, each present (a failed one holds its error). */
export function sectionsResult(sections: readonly string[]): OutputSchema {
  return { type: 'object', properties: Object.fromEntries(sections.map((s) => [s, SECTION])), required: [...sections] };
}

const NULLABLE_STRING = { type: ['string', 'null'] } as const;

/**
 * A block of a deliverable document as document_context answers it: the fields a script reads to
 * choose its edits (the spec's; an outline's block has `words` instead of its text, and a key_figures
 * block's items whole). The others the API sends (refs, options...) pass through undeclared.
 */
const DOCUMENT_BLOCK = {
  type: 'object',
  properties: {
    id: NULLABLE_STRING,
    type: STRING,
    title: NULLABLE_STRING,
    text: NULLABLE_STRING,
    words: STRING,
    items: { type: 'array', items: STRING },
  },
  // A block may come without an id (the API gives one when it is saved).
  required: ['type'],
} as const;

/** A validated finding to cite: its id, and its statement (whole) or first words (outline). */
const FINDING_TO_CITE = {
  type: 'object',
  properties: { id: STRING, type: STRING, statement: STRING, words: STRING },
  required: ['id'],
} as const;

/**
 * document_context: the document kind, the document (its blocks, with the ids edit_document_blocks
 * takes, and the updated_at a whole update echoes), the validated findings to cite (and, without
 * outline, how many are proposed), and, without outline, the open contradictions and the draft. Each
 * section is what its operation answered, or `{error}` when it failed, so no field inside a section
 * is required of it.
 */
export const DOCUMENT_CONTEXT_RESULT: OutputSchema = {
  type: 'object',
  properties: {
    kind: STRING,
    document: { type: 'object', properties: { updated_at: STRING, blocks: { type: 'array', items: DOCUMENT_BLOCK } } },
    findings: {
      type: 'object',
      properties: {
        validated: { type: 'array', items: FINDING_TO_CITE },
      },
    },
    open_contradictions: {},
    draft: {},
  },
  required: ['kind', 'document'],
};

/** review_findings: how many reviews were applied, and per finding whether it was. */
export const REVIEWS_RESULT: OutputSchema = {
  type: 'object',
  properties: {
    applied: INTEGER,
    failed: INTEGER,
    results: {
      type: 'array',
      items: {
        type: 'object',
        properties: { finding: STRING, review_status: STRING, ok: { type: 'boolean' }, error: STRING },
        required: ['finding', 'review_status', 'ok'],
      },
    },
  },
  required: ['applied', 'failed', 'results'],
};
