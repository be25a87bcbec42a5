// The JSON Schema an assistant is SHOWN for a tool's input. Every byte of it is paid in every
// tools/list, so it is rendered compactly: what zod emits for completeness but a model does not need
// is dropped here, while validation keeps using the full zod schema (nothing shown here is enforced).
import type { Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { findOperation } from '../../../catalog/index.js';
import type { Operation } from '../../operation.js';
import { builtSchemas } from './built-schemas.js';
import { extrasShape, toolInput } from './extras.js';

type Json = Record<string, unknown>;

const SAFE_INT = 9007199254740991;

function isPlainObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** `anyOf: [X, {type: 'null'}]` as `X` with `"null"` added to its type: the same meaning, half the tokens. */
function collapseNullable(s: Json): Json {
  const any = s.anyOf;
  if (!Array.isArray(any) || any.length !== 2) return s;
  const nullIndex = any.findIndex((b) => isPlainObject(b) && b.type === 'null' && Object.keys(b).length === 1);
  if (nullIndex < 0) return s;
  const other = any[1 - nullIndex];
  if (!isPlainObject(other) || typeof other.type !== 'string' || 'anyOf' in other) return s;
  const { anyOf: _drop, ...rest } = s;
  const merged: Json = { ...other, ...rest, type: [other.type, 'null'] };
  if (Array.isArray(other.enum)) merged.enum = [...other.enum, null];
  return merged;
}

/** An object that declares no property and is not closed: any keys, any values (a free-form map). */
function isFreeForm(s: Json): boolean {
  const type = s.type;
  const isObject = type === 'object' || (Array.isArray(type) && type.includes('object') && type.length === 2 && type.includes('null'));
  if (!isObject || s.additionalProperties === false) return false;
  return !isPlainObject(s.properties) || Object.keys(s.properties).length === 0;
}

/**
 * The schema as shown: `$schema`, zod's safe-integer bounds, "any value" maps, the root's
 * `additionalProperties: false` and short-text caps dropped; nullable unions
 * collapsed. What every client library can convert (OpenAI's strict mode, Gemini's subset):
 * - a free-form object (no declared property) is shown as its JSON text, which the arguments reader
 *   parses (src/mcp/pipeline/arguments.ts): strict modes cannot express an open object at all;
 * - an object without properties says `additionalProperties: false` (a tool with no arguments), and
 *   so does every object nested in the arguments;
 * - patterns are shown as validated: an id's says it is a ULID from an earlier result, never a name.
 */
function compactSchema(node: unknown, root = true): unknown {
  if (Array.isArray(node)) return node.map((n) => compactSchema(n, false));
  if (!isPlainObject(node)) return node;
  let s: Json = collapseNullable(node);
  if (isFreeForm(s)) {
    const nullable = Array.isArray(s.type) && s.type.includes('null');
    const said = typeof s.description === 'string' ? `; ${s.description}` : '';
    return { type: nullable ? ['string', 'null'] : 'string', description: `JSON object${said}` };
  }
  const out: Json = {};
  const declares = isPlainObject(s.properties) && Object.keys(s.properties).length > 0;
  for (const [k, v] of Object.entries(s)) {
    if (k === '$schema' || k === 'propertyNames') continue;
    // zod spells a date or e-mail format out as a long regex too: the format name says it.
    if (k === 'pattern' && typeof s.format === 'string') continue;
    if ((k === 'minimum' && v === -SAFE_INT) || (k === 'maximum' && v === SAFE_INT)) continue;
    // `additionalProperties: {}` is "any value", the default: it says nothing.
    if (k === 'additionalProperties' && isPlainObject(v) && Object.keys(v).length === 0) continue;
    // The tool's own argument list needs no word on strictness (an unknown argument is refused by
    // name, and clients close it themselves); objects inside it say they are closed, as strict
    // modes that allow optional properties require (Anthropic's, through the Vercel AI SDK).
    if (k === 'additionalProperties' && v === false && declares && root) continue;
    // Short-text caps (names, labels) are enforced and explained on refusal; the caps that shape
    // prose (1000+ characters) are the ones worth showing.
    if (k === 'maxLength' && typeof v === 'number' && v <= 255) continue;
    // "Not empty" goes without saying for a required text; a refusal says it if needed.
    if (k === 'minLength' && v === 1) continue;
    if (k === 'properties' && isPlainObject(v)) {
      const props: Json = {};
      for (const [name, p] of Object.entries(v)) props[name] = compactSchema(p, false);
      out[k] = props;
      continue;
    }
    out[k] = compactSchema(v, false);
  }
  // An object with no property at all (a tool without arguments) is closed, and says so.
  if (s.type === 'object' && !declares) out.additionalProperties = false;
  s = out;
  return s;
}

// `cursor` and `limit` mean the same thing on every list; the instructions explain them once.
const PAGING: Json = { cursor: { type: 'string' }, limit: { type: 'integer' } };

/** The compact input schema of a zod object (path parameters, query and body fields), built once per caller. */
export function shownSchema(input: z.ZodObject, paginated = false): Tool['inputSchema'] {
  return compactWithPaging(z.toJSONSchema(input, { io: 'input', unrepresentable: 'any' }), paginated);
}

function compactWithPaging(json: unknown, paginated: boolean): Tool['inputSchema'] {
  const s = compactSchema(json) as Json;
  if (paginated && isPlainObject(s.properties)) {
    for (const k of Object.keys(PAGING)) if (k in s.properties) s.properties[k] = PAGING[k];
  }
  return s as Tool['inputSchema'];
}

const shownCache = new WeakMap<Operation, Tool['inputSchema']>();

/**
 * The shown input schema of one operation's tool (its API arguments and extras), computed once: a
 * catalog operation's as the build converted and bundled it (built-schemas.ts), else converted.
 */
export function operationSchema(op: Operation): Tool['inputSchema'] {
  let s = shownCache.get(op);
  if (!s) {
    // By name only for the catalog's own entries: an operation made elsewhere (the sandbox's, a
    // test's) may bear a catalog name with other arguments.
    s = (findOperation(op.name) === op ? builtSchemas().get(op.name) : undefined) ?? convertOperationSchema(op);
    shownCache.set(op, s);
  }
  return s;
}

/** The shown input schema of one operation, converted from its zod schema (what the build stores). */
export function convertOperationSchema(op: Operation): Tool['inputSchema'] {
  // Operations generated from the live description show (a compacted copy of) its own schema,
  // with the extras the MCP layer adds.
  const given = (op as Operation & { shownInput?: Json }).shownInput;
  if (given) {
    const extras = z.toJSONSchema(z.object(extrasShape(op)), { io: 'input', unrepresentable: 'any' }) as Json;
    const merged: Json = { ...given, properties: { ...(given.properties as Json | undefined), ...(extras.properties as Json | undefined) } };
    return compactWithPaging(merged, op.paginated);
  }
  return shownSchema(toolInput(op), op.paginated);
}
