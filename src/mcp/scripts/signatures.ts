// An operation's signature as a TypeScript declaration, for scripts (run_read_script,
// run_write_script) and the gateway that teaches them: `api.list_findings(args: {engagement: string;
// review_status?: "proposed"|"validated"|"rejected"; ...}): Promise<{items: object[]; next_cursor:
// string|null}>`. Derived from the same input schema validation uses (its JSON Schema, so generated
// operations get one too), compact: no descriptions, nesting past a few levels shown as `object`.
import { z } from 'zod';
import type { Operation } from '../../operation.js';
import { isGenerated } from '../operations/live-openapi.js';
import { toolInput } from '../pipeline/extras.js';
import { toolDefinition } from '../pipeline/tool-spec.js';

type Schema = Record<string, unknown>;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const MAX_DEPTH = 4;

/** Extras that only shape the text a model reads: meaningless to a script, which reads structuredContent. */
const TEXT_ONLY = new Set(['response_format']);

/** Whether a type has a `|` outside any braces (a union that needs parentheses before `[]`). */
function isUnion(t: string): boolean {
  let depth = 0;
  for (const c of t) {
    if (c === '{' || c === '(' || c === '<' || c === '[') depth++;
    else if (c === '}' || c === ')' || c === '>' || c === ']') depth--;
    else if (c === '|' && depth === 0) return true;
  }
  return false;
}

function union(parts: string[]): string {
  const unique = [...new Set(parts)];
  return unique.length ? unique.join('|') : 'never';
}

/** A JSON Schema (as zod writes it, or a live description's) as a TypeScript type. */
export function tsType(schema: unknown, depth = 0, style: Style = FULL): string {
  if (schema === true || schema === undefined) return 'unknown';
  if (!schema || typeof schema !== 'object') return 'unknown';
  const s = schema as Schema;
  if (Array.isArray(s.enum)) return union(s.enum.map((v) => JSON.stringify(v)));
  if ('const' in s) return JSON.stringify(s.const);
  const alternatives = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(alternatives)) return union(alternatives.map((a) => tsType(a, depth, style)));
  if (Array.isArray(s.type)) return union(s.type.map((t) => tsType({ ...s, type: t }, depth, style)));
  switch (s.type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const item = tsType(s.items, depth + 1, style);
      return isUnion(item) ? `(${item})[]` : `${item}[]`;
    }
    case 'object':
      return objectType(s, depth, undefined, style);
    default:
      return s.properties ? objectType(s, depth, undefined, style) : 'unknown';
  }
}

/**
 * How the arguments are written: in full (describe_operation), or compact (find_operations' answer in
 * code mode): there an optional argument whose type is long is named without it (`block?`), for
 * describe_operation to show.
 */
interface Style {
  compact: boolean;
  /** Long types written out all the same (an answer's fields: what a script reads). */
  whole?: boolean;
}
const FULL: Style = { compact: false };
const COMPACT: Style = { compact: true };
/** An answer written compact: every field with its type, but those of no declared type. */
const ANSWER: Style = { compact: true, whole: true };
/** The longest type a compact signature writes out for an optional field. */
const COMPACT_OPTIONAL = 40;

function objectType(s: Schema, depth: number, leave: ReadonlySet<string> = new Set(), style: Style = FULL): string {
  const props = (s.properties ?? {}) as Record<string, unknown>;
  const names = Object.keys(props).filter((k) => !leave.has(k));
  if (!names.length) {
    const extra = s.additionalProperties;
    if (extra && typeof extra === 'object') return `Record<string, ${tsType(extra, depth + 1, style)}>`;
    // A strict object of no field (an operation that takes no argument) takes exactly {}.
    return extra === false ? '{}' : 'object';
  }
  if (depth >= MAX_DEPTH) return 'object';
  const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
  // Compact: an optional field of no declared type says nothing a script can use.
  const said = style.compact ? names.filter((k) => required.has(k) || tsType(props[k], depth + 1) !== 'unknown') : names;
  const fields = said.map((k) => {
    const key = IDENTIFIER.test(k) ? k : JSON.stringify(k);
    const type = tsType(props[k], depth + 1, style);
    if (required.has(k)) return `${key}: ${type}`;
    return style.compact && !style.whole && type.length > COMPACT_OPTIONAL ? `${key}?` : `${key}?: ${type}`;
  });
  return `{${fields.join('; ')}}`;
}

const FILE_TYPE = '{path: string; name: string; size: number; content_type: string}';

/**
 * What the call resolves to: the operation's tool's structuredContent, by kind of answer. A job that
 * ends in a file (an export) holds the file once it succeeded.
 */
function returnType(op: Operation): string {
  if (op.response === 'file') return `{file: ${FILE_TYPE}}`;
  if (op.job)
    return `{job: {id: string; status: string}; state: "succeeded"|"failed"|"cancelled"|"in_progress"|"unknown"; record: object${op.job.download ? `; file?: ${FILE_TYPE}` : ''}}`;
  if (op.paginated) return '{items: object[]; next_cursor: string|null}';
  return 'object';
}

/** The input schema a script's call is validated against, as JSON Schema (a generated operation's own). */
function inputJsonSchema(op: Operation): Schema {
  if (isGenerated(op)) return toolDefinition(op).inputSchema as Schema;
  return z.toJSONSchema(toolInput(op), { io: 'input', unrepresentable: 'any' }) as Schema;
}

const signatures = new WeakMap<Operation, string>();
const compactSignatures = new WeakMap<Operation, string>();

function declaration(name: string, input: Schema, returns: string, style: Style): string {
  const args = objectType(input, 0, TEXT_ONLY, style);
  const optional = !(Array.isArray(input.required) && input.required.length);
  return `api.${name}(args${optional ? '?' : ''}: ${args}): Promise<${returns}>`;
}

/**
 * `api.NAME(args: {...}): Promise<...>`; `args?` when nothing is required. Compact: an optional
 * argument whose type is long is named alone (find_operations in code mode; describe_operation
 * gives the whole).
 */
export function signatureOf(op: Operation, compact = false): string {
  const cache = compact ? compactSignatures : signatures;
  let sig = cache.get(op);
  if (sig === undefined) {
    sig = declaration(op.name, inputJsonSchema(op), returnType(op), compact ? COMPACT : FULL);
    cache.set(op, sig);
  }
  return sig;
}

/**
 * A tool of the session (a workflow, block edits, an app's data tool) as a script calls it, from
 * its listed input and output schemas: `api.document_context(args: {...}): Promise<{...}>`, the
 * answer as deep as its schema declares (a workflow's sections are declared one level deep).
 */
export function toolSignature(name: string, inputSchema: Record<string, unknown>, outputSchema?: Record<string, unknown>, compact = false): string {
  // The answer as deep as declared, compact or not: what a script reads of it is what the schema says.
  const style = compact ? COMPACT : FULL;
  return declaration(name, inputSchema, outputSchema ? tsType(outputSchema, 0, compact ? ANSWER : FULL) : 'object', style);
}
