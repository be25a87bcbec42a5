// Arguments read as models and clients send them, then validated strictly against the tool's zod
// schema. Clients differ in how they send what a schema asks for, and a model cannot fix a client
// that rewrites its call: when a client stringifies object arguments, every retry fails the same way.
// So, before validation, each value is read against the schema at its place:
//
// - `null` for an optional parameter that does not accept null means "absent" (strict-mode clients
//   send null for every optional parameter they leave out);
// - a text holding JSON, where an object or an array is wanted, is parsed;
// - a number written as JSON number text ("5", "-2.5") where a number is wanted is converted, and
//   "true" / "false" (any case) where a boolean is wanted;
// - an enum value matched without regard to case; no arguments at all (absent or null) is `{}`.
//
// Never a guess between two readings. These are refused, saying what to send instead:
// - "1", "0", "yes", "no", "on", "off", "y", "n" for a boolean (true or false? the text does not say
//   which way a client meant it);
// - an enum value that matches several values once case is ignored;
// - a text holding JSON where the field accepts both a text and the structure the text holds (the
//   API would treat the two differently); a text that converts to several accepted values.
// A value the schema accepts as sent is never converted. What is left is validated by the strict zod
// schema: unknown keys are refused, never dropped.
//
// The keys `__proto__`, `constructor` and `prototype` are refused by name at any depth, whether they
// arrive as own properties (JSON.parse makes `__proto__` one) or as an object whose prototype was
// replaced: a copy made by assignment would change the object's prototype instead of carrying the key.
////
// Refusals are built by src/mcp/render/refusal.ts (each field on a line of its own, what it must be, what
// was given, and that nothing was sent); the wording of what a schema wants is src/mcp/pipeline/argument-words.ts.
import type { z } from 'zod';
import type { Operation } from '../../operation.js';
import { type ArgumentsRefusal, cut, MAX_PROBLEMS, type Path, type Problem, preview, refusal } from '../render/refusal.js';
import { baseOf, describeIssue, want } from './argument-words.js';
import { extrasNotTaken, readExtrasAsSent, toolInput } from './extras.js';
import { MAX_DEPTH, nestingDepth } from './json-depth.js';
import { isPrototypeKey, sentKey } from './prototype-keys.js';
import { defOf } from './zod-defs.js';

type Json = Record<string, unknown>;

export type ReadResult<T> = { ok: true; args: T } | ArgumentsRefusal;

const accepts = (s: z.ZodType, v: unknown): boolean => s.safeParse(v).success;

function isPlainObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// ---------------------------------------------------------------------------------------------
// Prototype keys

/**
 * Every key named `__proto__`, `constructor` or `prototype`, and every object whose prototype was
 * replaced, at any depth. Iterative: arguments may be nested far deeper than the stack allows.
 */
function prototypeKeys(root: unknown, at: Path): Problem[] {
  const out: Problem[] = [];
  const stack: Array<{ v: unknown; path: Path }> = [{ v: root, path: at }];
  while (stack.length && out.length < MAX_PROBLEMS) {
    const { v, path } = stack.pop() as { v: unknown; path: Path };
    if (typeof v !== 'object' || v === null) continue;
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto !== Object.prototype && proto !== Array.prototype && proto !== null) {
      out.push({ path: [...path, '__proto__'], rule: 'a key named __proto__ is refused (it would change how the object is read); remove it' });
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) if (typeof v[i] === 'object' && v[i] !== null) stack.push({ v: v[i], path: [...path, i] });
      continue;
    }
    for (const k of Object.keys(v)) {
      if (isPrototypeKey(k)) {
        const name = sentKey(k);
        out.push({ path: [...path, name], rule: `a key named ${name} is refused (it could change how the object is read); remove it` });
        continue;
      }
      const child = (v as Json)[k];
      if (typeof child === 'object' && child !== null) stack.push({ v: child, path: [...path, k] });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Reading values as sent

const NONE = Symbol('no reading');
const ABSENT = Symbol('absent');
/** Texts some clients mean as booleans, but not all the same way: refused, never guessed. */
const AMBIGUOUS_BOOLEAN = new Set(['1', '0', 'yes', 'no', 'y', 'n', 'on', 'off']);
/** JSON's number grammar: no hex, no leading zeros, no spaces, no "Infinity". */
const NUMBER_TEXT = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

interface ReadContext {
  problems: Problem[];
}

/**
 * A text holding a JSON object (or array), parsed; NONE when it holds something else, or nests
 * deeper than any real argument (tooDeep says so): parsing is linear at any depth, but what reads the
 * value afterwards recurses, and text nested 20,000 deep took seconds, 5,000 overflowed the stack.
 */
function jsonText(text: string, kind: 'object' | 'array'): unknown {
  const t = text.trim();
  if (!t.startsWith(kind === 'object' ? '{' : '[')) return NONE;
  if (nestingDepth(t) > MAX_DEPTH) return NONE;
  try {
    const v = JSON.parse(t) as unknown;
    return (kind === 'array' ? Array.isArray(v) : isPlainObject(v)) ? v : NONE;
  } catch {
    return NONE;
  }
}

/** What a value sent as JSON text too deep to read is told. */
const TOO_DEEP = `JSON text nested more than ${MAX_DEPTH} levels deep`;

/** JSON text of the kind that jsonText left unread for its depth. */
function tooDeep(text: string, kind: 'object' | 'array'): boolean {
  const t = text.trim();
  return t.startsWith(kind === 'object' ? '{' : '[') && nestingDepth(t) > MAX_DEPTH;
}

/** The one reading of a text as a value of this schema's type, NONE when there is none. */
function textReading(s: z.ZodType, text: string): unknown {
  const d = defOf(baseOf(s));
  switch (d.type) {
    case 'number':
    case 'int': {
      if (!NUMBER_TEXT.test(text)) return NONE;
      const n = Number(text);
      return Number.isFinite(n) ? n : NONE;
    }
    case 'boolean': {
      const t = text.toLowerCase();
      return t === 'true' ? true : t === 'false' ? false : NONE;
    }
    case 'enum': {
      const hits = Object.values(d.entries ?? {}).filter((e) => typeof e === 'string' && e.toLowerCase() === text.toLowerCase());
      return hits.length === 1 ? hits[0] : NONE;
    }
    case 'object':
    case 'record':
      return jsonText(text, 'object');
    case 'array':
      return jsonText(text, 'array');
    default:
      return NONE;
  }
}

/** Parsed JSON text brings its own keys: they are checked like the ones sent directly. */
function parsedText(v: unknown, path: Path, ctx: ReadContext): unknown {
  ctx.problems.push(...prototypeKeys(v, path));
  return v;
}

function readValue(s: z.ZodType, value: unknown, path: Path, ctx: ReadContext): unknown {
  if (value === undefined) return value;
  if (value === null) {
    if (accepts(s, null)) return null;
    return accepts(s, undefined) ? ABSENT : null;
  }
  const base = baseOf(s);
  const d = defOf(base);
  switch (d.type) {
    case 'object': {
      let v: unknown = value;
      if (typeof v === 'string') {
        const parsed = jsonText(v, 'object');
        if (parsed !== NONE) v = parsedText(parsed, path, ctx);
        else if (tooDeep(v, 'object')) ctx.problems.push({ path, rule: `must be ${want(s)}`, given: TOO_DEEP });
      }
      return isPlainObject(v) ? readObject(d.shape ?? {}, v, path, ctx) : v;
    }
    case 'record': {
      let v: unknown = value;
      if (typeof v === 'string') {
        const parsed = jsonText(v, 'object');
        if (parsed !== NONE) v = parsedText(parsed, path, ctx);
        else if (tooDeep(v, 'object')) ctx.problems.push({ path, rule: `must be ${want(s)}`, given: TOO_DEEP });
      }
      const inner = d.valueType ? defOf(baseOf(d.valueType)).type : 'unknown';
      if (!isPlainObject(v) || !d.valueType || inner === 'unknown' || inner === 'any') return v;
      const out: Json = {};
      for (const k of Object.keys(v)) {
        if (isPrototypeKey(k)) continue;
        const r = readValue(d.valueType, v[k], [...path, k], ctx);
        if (r !== ABSENT) out[k] = r;
      }
      return out;
    }
    case 'array': {
      let v: unknown = value;
      if (typeof v === 'string') {
        const parsed = jsonText(v, 'array');
        if (parsed !== NONE) v = parsedText(parsed, path, ctx);
        else if (tooDeep(v, 'array')) ctx.problems.push({ path, rule: `must be ${want(s)}`, given: TOO_DEEP });
      }
      if (!Array.isArray(v) || !d.element) return v;
      const element = d.element;
      return v.map((x, i) => {
        const r = readValue(element, x, [...path, i], ctx);
        return r === ABSENT ? x : r;
      });
    }
    case 'number':
    case 'int': {
      if (typeof value !== 'string') return value;
      const n = textReading(base, value);
      return n === NONE ? value : n;
    }
    case 'boolean': {
      if (typeof value !== 'string') return value;
      const b = textReading(base, value);
      if (b !== NONE) return b;
      if (AMBIGUOUS_BOOLEAN.has(value.trim().toLowerCase())) {
        ctx.problems.push({ path, rule: 'must be true or false', given: `${preview(value)}, which is not read as either: send true or false` });
      }
      return value;
    }
    case 'enum': {
      if (typeof value !== 'string' || accepts(base, value)) return value;
      const hits = Object.values(d.entries ?? {}).filter((e) => typeof e === 'string' && e.toLowerCase() === value.toLowerCase());
      if (hits.length > 1)
        ctx.problems.push({ path, rule: `must be ${want(s)}`, given: `${preview(value)}, which matches ${hits.length} of them once case is ignored` });
      return hits.length === 1 ? hits[0] : value;
    }
    case 'union':
      return readUnion(base, d.options ?? [], value, path, ctx);
    default:
      return value;
  }
}

function readUnion(union: z.ZodType, options: z.ZodType[], value: unknown, path: Path, ctx: ReadContext): unknown {
  if (accepts(union, value)) {
    if (typeof value === 'string') {
      // Text the field takes as text, and as the structure the text holds: the two mean different things.
      const structured = options.find((o) => {
        const t = defOf(baseOf(o)).type;
        if (t !== 'object' && t !== 'record' && t !== 'array') return false;
        const r = textReading(o, value);
        return r !== NONE && accepts(o, r);
      });
      if (structured) {
        ctx.problems.push({
          path,
          rule: `must be ${want(union)}`,
          given: `${preview(value)}, which reads both as text and as the JSON it holds: send the structure itself, not its text`,
        });
      }
    }
    return value;
  }
  if (typeof value === 'string') {
    const readings = new Map<string, unknown>();
    for (const o of options) {
      const r = textReading(o, value);
      if (r !== NONE && accepts(o, r)) readings.set(JSON.stringify(r), r);
    }
    if (readings.size === 1) {
      const [only] = readings.values();
      return typeof only === 'object' && only !== null ? parsedText(only, path, ctx) : only;
    }
    if (readings.size > 1)
      ctx.problems.push({
        path,
        rule: `must be ${want(union)}`,
        given: `${preview(value)}, which reads as ${readings.size} different values: send the one you mean`,
      });
    return value;
  }
  // Structures: read against the one option they fit once read (several fits: left as sent).
  const fits = options.filter((o) => {
    const r = readValue(o, value, path, { problems: [] });
    return r !== ABSENT && accepts(o, r);
  });
  return fits.length === 1 ? readValue(fits[0] as z.ZodType, value, path, ctx) : value;
}

function readObject(shape: Record<string, z.ZodType>, value: Json, path: Path, ctx: ReadContext): Json {
  const out: Json = {};
  for (const k of Object.keys(value)) {
    // Refused by name already: never copied (an assignment to `__proto__` would set the prototype).
    if (isPrototypeKey(k)) continue;
    const field = Object.hasOwn(shape, k) ? shape[k] : undefined;
    if (!field) {
      out[k] = value[k]; // an unknown key: the strict schema refuses it by name
      continue;
    }
    const r = readValue(field, value[k], [...path, k], ctx);
    if (r !== ABSENT) out[k] = r;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Entry points

/** `arguments` as the call carried it: absent or null is `{}`, JSON text of an object is read. */
function topLevel(raw: unknown): { ok: true; value: Json } | { ok: false; problems: Problem[] } {
  let value: unknown = raw ?? {};
  if (typeof value === 'string') {
    const parsed = jsonText(value, 'object');
    if (parsed !== NONE) value = parsed;
  }
  if (!isPlainObject(value)) {
    const given = typeof value === 'string' && tooDeep(value, 'object') ? TOO_DEEP : preview(value);
    return { ok: false, problems: [{ path: [], rule: 'must be an object of named arguments', given }] };
  }
  const proto = prototypeKeys(value, []);
  return proto.length ? { ok: false, problems: proto } : { ok: true, value };
}

/**
 * Read the arguments of a call (as sent: see the top of this module) and validate them against a
 * strict zod object: a catalog operation's input, a workflow's or a gateway tool's.
 */
/**
 * `notTaken` words the refusal of an argument this tool does not take but a model may well send (a
 * job that cannot be cancelled, `fields` on a single record): said instead of "unknown argument".
 */
export function readArguments<T extends z.ZodObject>(
  schema: T,
  raw: unknown,
  toolName: string,
  notTaken: Readonly<Record<string, string>> = {},
): ReadResult<z.output<T>> {
  const accepted = Object.keys(schema.shape);
  const top = topLevel(raw);
  if (!top.ok) return refusal(toolName, top.problems, accepted);
  const ctx: ReadContext = { problems: [] };
  let given = top.value;
  for (const k of Object.keys(given)) {
    if (Object.hasOwn(notTaken, k) && !(k in schema.shape)) {
      ctx.problems.push({ path: [k], rule: notTaken[k] as string });
      const { [k]: _dropped, ...rest } = given;
      given = rest;
    }
  }
  const read = readObject(schema.shape as Record<string, z.ZodType>, given, [], ctx);
  const checked = schema.safeParse(read);
  if (checked.success && !ctx.problems.length) return { ok: true, args: checked.data };
  const problems = [...ctx.problems];
  if (!checked.success) for (const issue of checked.error.issues) problems.push(...describeIssue(issue, schema, top.value, read));
  return refusal(toolName, problems, accepted);
}

/**
 * The arguments of a call to one operation (its own tool, a default-surface tool or call_operation):
 * read and validated together with the MCP layer's extras (src/mcp/pipeline/extras.ts), which the
 * pipeline takes off before the request (splitExtras): they never reach the API.
 */
export function readOperationArguments(op: Operation, raw: unknown): ReadResult<Record<string, unknown>> {
  return readArguments(toolInput(op), readExtrasAsSent(op, raw), op.name, extrasNotTaken(op)) as ReadResult<Record<string, unknown>>;
}

/**
 * The arguments of a gateway call (`call_operation`): `{operation, arguments}`, where `arguments`
 * (an object, or its JSON text) carries the operation's own arguments. A model often puts those
 * beside `operation` instead: when `arguments` is absent, every other key is taken as the
 * operation's arguments, and the operation's reading then checks that they fit it. Both at once is
 * refused (which set was meant?). The operation's arguments come back unread: the operation reads them.
 */
export function readCallOperation<T extends z.ZodObject<{ operation: z.ZodType; arguments: z.ZodType }>>(
  schema: T,
  raw: unknown,
  toolName: string,
): ReadResult<{ operation: string; arguments: Record<string, unknown> }> {
  const accepted = Object.keys(schema.shape);
  const top = topLevel(raw);
  if (!top.ok) return refusal(toolName, top.problems, accepted);
  const { operation, arguments: nested, ...beside } = top.value;
  const besideKeys = Object.keys(beside);
  if (besideKeys.length && nested !== undefined && nested !== null) {
    return refusal(
      toolName,
      [{ path: [], rule: `the operation's arguments are both under arguments and beside it (${cut(besideKeys.join(', '))}): send them in one place` }],
      accepted,
    );
  }
  const r = readArguments(schema, besideKeys.length ? { operation } : top.value, toolName);
  if (!r.ok) return r;
  const given = (r.args as { arguments?: Record<string, unknown> }).arguments;
  return { ok: true, args: { operation: String((r.args as { operation: unknown }).operation), arguments: besideKeys.length ? beside : (given ?? {}) } };
}

/**
 * What `tools/call` accepts as its `arguments` at the protocol level: absent, null, an object, or the
 * JSON text of one. Anything else is an invalid request (-32602), said with this message.
 */
export function argumentsShapeError(raw: unknown): string | undefined {
  if (raw === undefined || raw === null || isPlainObject(raw)) return undefined;
  if (typeof raw === 'string' && jsonText(raw, 'object') !== NONE) return undefined;
  return `tools/call arguments must be an object of named arguments; got ${typeof raw === 'string' && tooDeep(raw, 'object') ? TOO_DEEP : preview(raw)}.`;
}
