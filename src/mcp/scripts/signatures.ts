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
export function tsType(schema: unknown, depth = 0): string {
  if (schema === true || schema === undefined) return 'unknown';
  if (!schema || typeof schema !== 'object') return 'unknown';
  const s = schema as Schema;
  if (Array.isArray(s.enum)) return union(s.enum.map((v) => JSON.stringify(v)));
  if ('const' in s) return JSON.stringify(s.const);
  const alternatives = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(alternatives)) return union(alternatives.map((a) => tsType(a, depth)));
  if (Array.isArray(s.type)) return union(s.type.map((t) => tsType({ ...s, type: t }, depth)));
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
      const item = tsType(s.items, depth + 1);
      return isUnion(item) ? `(${item})[]` : `${item}[]`;
    }
    case 'object':
      return objectType(s, depth);
    default:
      return s.properties ? objectType(s, depth) : 'unknown';
  }
}

function objectType(s: Schema, depth: number, leave: ReadonlySet<string> = new Set()): string {
  const props = (s.properties ?? {}) as Record<string, unknown>;
  const names = Object.keys(props).filter((k) => !leave.has(k));
  if (!names.length) {
    const extra = s.additionalProperties;
    if (extra && typeof extra === 'object') return `Record<string, ${tsType(extra, depth + 1)}>`;
    // A strict object of no field (an operation that takes no argument) takes exactly {}.
    return extra === false ? '{}' : 'object';
  }
  if (depth >= MAX_DEPTH) return 'object';
  const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
  const fields = names.map((k) => `${IDENTIFIER.test(k) ? k : JSON.stringify(k)}${required.has(k) ? '' : '?'}: ${tsType(props[k], depth + 1)}`);
  return `{${fields.join('; ')}}`;
}

/** What the call resolves to: the operation's tool's structuredContent, by kind of answer. */
function returnType(op: Operation): string {
  if (op.response === 'file') return '{file: {path: string; name: string; size: number; content_type: string}}';
  if (op.job) return '{job: {id: string; status: string}; state: "succeeded"|"failed"|"cancelled"|"in_progress"|"unknown"; record: object}';
  if (op.paginated) return '{items: object[]; next_cursor: string|null}';
  return 'object';
}

/** The input schema a script's call is validated against, as JSON Schema (a generated operation's own). */
function inputJsonSchema(op: Operation): Schema {
  if (isGenerated(op)) return toolDefinition(op).inputSchema as Schema;
  return z.toJSONSchema(toolInput(op), { io: 'input', unrepresentable: 'any' }) as Schema;
}

const signatures = new WeakMap<Operation, string>();

/** `api.NAME(args: {...}): Promise<...>`; `args?` when nothing is required. */
export function signatureOf(op: Operation): string {
  let sig = signatures.get(op);
  if (sig === undefined) {
    const schema = inputJsonSchema(op);
    const args = objectType(schema, 0, TEXT_ONLY);
    const optional = !(Array.isArray(schema.required) && schema.required.length);
    sig = `api.${op.name}(args${optional ? '?' : ''}: ${args}): Promise<${returnType(op)}>`;
    signatures.set(op, sig);
  }
  return sig;
}

/**
 * A tool of the session (a workflow, block edits, an app's data tool) as a script calls it, from
 * its listed input and output schemas: `api.document_context(args: {...}): Promise<{...}>`.
 */
export function toolSignature(name: string, inputSchema: Record<string, unknown>, outputSchema?: Record<string, unknown>): string {
  const args = objectType(inputSchema, 0, TEXT_ONLY);
  const optional = !(Array.isArray(inputSchema.required) && inputSchema.required.length);
  // The answer's shape one level deep: its sections by name, enough to pick what to read.
  const returns = outputSchema ? tsType(outputSchema, MAX_DEPTH - 1) : 'object';
  return `api.${name}(args${optional ? '?' : ''}: ${args}): Promise<${returns}>`;
}
