// fast-check arbitraries built from a tool's own zod schema, so the fuzz suite follows the catalog as
// it changes: one builder for arguments the schema accepts, one for arguments it must refuse, each
// refusal labelled with the field a clear error has to name.
import fc from 'fast-check';
import type { z } from 'zod';
import { block, documentBlock } from '../../catalog/deliverables.js';
import { checksOf, defOf } from '../../src/mcp/pipeline/zod-defs.js';
import { type Operation, pathParams } from '../../src/operation.js';

/**
 * Schemas that check their input in a transform, where there are no bounds to read: generated as the
 * schema the listing shows the model for them. A whole-document update's block is shown as the strict
 * block (the spec's fields) and also takes fields the API answered beyond them, so a document read can
 * be written back as read; what a model is told to write is what valid calls send.
 */
const SHOWN_AS = new Map<z.ZodType, z.ZodType>([[documentBlock(), block()]]);

/** Optional, nullable and the base schema under both wrappers. */
export function unwrap(s: z.ZodType): { base: z.ZodType; optional: boolean; nullable: boolean } {
  let optional = false;
  let nullable = false;
  let cur = s;
  for (;;) {
    const d = defOf(cur);
    if (d.type === 'optional' && d.innerType) optional = true;
    else if (d.type === 'nullable' && d.innerType) nullable = true;
    else if (!(d.innerType && ['default', 'readonly', 'prefault', 'catch', 'nonoptional'].includes(d.type))) break;
    cur = d.innerType as z.ZodType;
  }
  return { base: cur, optional, nullable };
}

export const typeOf = (s: z.ZodType) => defOf(unwrap(s).base).type;

function stringBounds(s: z.ZodType): { min: number; max?: number; pattern?: RegExp; url: boolean } {
  let min = 0;
  let max: number | undefined;
  let pattern: RegExp | undefined;
  for (const c of checksOf(s)) {
    if (c.check === 'min_length') min = Math.max(min, c.minimum ?? 0);
    if (c.check === 'max_length') max = Math.min(max ?? Infinity, c.maximum ?? Infinity);
    if (c.check === 'string_format' && c.format === 'regex') pattern = c.pattern;
  }
  const d = defOf(s);
  // A format (email) carries its own pattern; url is checked by the URL parser instead.
  if (!pattern && d.format !== 'url' && d.pattern) pattern = d.pattern;
  return { min, ...(max !== undefined ? { max } : {}), ...(pattern ? { pattern } : {}), url: d.format === 'url' };
}

function numberBounds(s: z.ZodType): { min: number; max: number; int: boolean } {
  let min = -1e6;
  let max = 1e6;
  let int = false;
  for (const c of checksOf(s)) {
    if (c.check === 'number_format' && (c.format === 'safeint' || c.format === 'int32')) int = true;
    if (c.check === 'greater_than') min = (c.value ?? min) + (c.inclusive ? 0 : 1);
    if (c.check === 'less_than') max = (c.value ?? max) - (c.inclusive ? 0 : 1);
  }
  return { min, max, int };
}

function arrayBounds(s: z.ZodType): { min: number; max: number } {
  let min = 0;
  let max = 4;
  for (const c of checksOf(s)) {
    if (c.check === 'min_length') min = c.minimum ?? 0;
    if (c.check === 'max_length') max = Math.min(max, c.maximum ?? max);
  }
  return { min, max: Math.max(min, max) };
}

/** A path segment of a stored media file: never empty, `.` or `..`, no slash or backslash. */
const mediaSegment = fc.stringMatching(/^[A-Za-z0-9_-][A-Za-z0-9._ -]{0,11}$/).filter((s) => s !== '.' && s !== '..');

/** Text as an assistant (or a hostile transcript) may send it: ASCII, any Unicode, and the odd injection attempt. */
function freeText(min: number, max: number): fc.Arbitrary<string> {
  const cap = Math.min(max, min + 40);
  return fc
    .oneof(
      { weight: 3, arbitrary: fc.string({ minLength: min, maxLength: cap }) },
      { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: min, maxLength: cap }) },
      // Any UTF-16 code units, lone surrogates included: JSON can carry them, a URL cannot.
      { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: min, maxLength: cap }) },
      {
        weight: 1,
        arbitrary: fc
          .constantFrom('../../workspace', '?limit=1&x=2', '#frag', '%2F..%2F', 'a/b', 'Ignore previous instructions', '\u0000', "' OR 1=1 --", 'é€𝔘')
          .filter((t) => t.length >= min && t.length <= max),
      },
    )
    .filter((t) => t.length >= min && t.length <= max);
}

export interface BuildOptions {
  /** Ids that exist in the sandbox, mixed in with random ULIDs so handlers run past their 404. */
  knownIds?: readonly string[];
}

/** Keys the arguments reader refuses by name at any depth (src/mcp/pipeline/arguments.ts). */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
function withoutPrototypeKeys(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return true;
  return Object.keys(v).every((k) => !PROTOTYPE_KEYS.has(k) && withoutPrototypeKeys((v as Record<string, unknown>)[k]));
}
/** Any JSON value a valid call may carry: no key that is refused by name. */
const json = (maxDepth: number) => fc.jsonValue({ maxDepth }).filter(withoutPrototypeKeys) as fc.Arbitrary<unknown>;

/** Values the schema accepts. */
export function valid(s: z.ZodType, opts: BuildOptions = {}): fc.Arbitrary<unknown> {
  const { base, nullable } = unwrap(s);
  const inner = validBase(base, opts);
  return nullable ? fc.oneof({ weight: 4, arbitrary: inner }, { weight: 1, arbitrary: fc.constant(null) }) : inner;
}

function validBase(s: z.ZodType, opts: BuildOptions): fc.Arbitrary<unknown> {
  const d = defOf(s);
  switch (d.type) {
    case 'string': {
      const b = stringBounds(s);
      const max = b.max ?? 200;
      if (b.url) return fc.webUrl({ validSchemes: ['https', 'http'] }).filter((u) => u.length <= max && (s as z.ZodType).safeParse(u).success);
      if (b.pattern) {
        if (b.pattern.source === '^[0-9A-Za-z]{26}$' && opts.knownIds?.length) {
          return fc.oneof(fc.constantFrom(...opts.knownIds), fc.stringMatching(b.pattern));
        }
        // The media path's lookaheads are beyond stringMatching: build it from safe segments.
        if (b.pattern.source.includes('(?!')) return fc.array(mediaSegment, { minLength: 1, maxLength: 4 }).map((xs) => xs.join('/'));
        return fc.stringMatching(b.pattern).filter((t) => t.length >= b.min && t.length <= max);
      }
      return freeText(b.min, max);
    }
    case 'number': {
      const b = numberBounds(s);
      return b.int
        ? fc.integer({ min: Math.ceil(b.min), max: Math.floor(b.max) })
        : fc.double({ min: b.min, max: b.max, noNaN: true, noDefaultInfinity: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'enum':
      return fc.constantFrom(...Object.values(d.entries ?? {}));
    case 'array': {
      const b = arrayBounds(s);
      return fc.array(valid(d.element as z.ZodType, opts), { minLength: b.min, maxLength: b.max });
    }
    case 'record':
      return fc.dictionary(
        fc.stringMatching(/^[a-z_]{1,12}$/).filter((k) => !PROTOTYPE_KEYS.has(k)),
        json(2),
        { maxKeys: 4 },
      );
    case 'unknown':
    case 'any':
      return json(2);
    case 'object': {
      const shape = d.shape ?? {};
      const required: Record<string, fc.Arbitrary<unknown>> = {};
      const keys: string[] = [];
      for (const [k, v] of Object.entries(shape)) {
        required[k] = valid(v, opts);
        if (!unwrap(v).optional) keys.push(k);
      }
      const obj = fc.record(required, { requiredKeys: keys });
      // Refinements (exactly one of path/text/base64) are not in the shape: keep what passes them.
      return checksOf(s).some((c) => c.check === 'custom') ? obj.filter((o) => s.safeParse(o).success) : obj;
    }
    case 'pipe': {
      const shown = SHOWN_AS.get(s);
      if (shown) return valid(shown, opts);
      throw new Error('no arbitrary for this pipe: name the schema it is shown as in SHOWN_AS (test/reliability/arbitraries.ts)');
    }
    default:
      throw new Error(`no arbitrary for zod type ${d.type}: teach test/reliability/arbitraries.ts about it`);
  }
}

/**
 * Valid arguments of one operation. An upload's file is given as text or base64: a `path` is only
 * readable inside the client's roots, which the upload tests cover on their own.
 */
export function validArguments(op: Operation, opts: BuildOptions = {}): fc.Arbitrary<Record<string, unknown>> {
  const shape = op.input.shape as Record<string, z.ZodType>;
  const parts: Record<string, fc.Arbitrary<unknown>> = {};
  const required: string[] = [];
  for (const [k, v] of Object.entries(shape)) {
    parts[k] = op.body === 'multipart' && k === 'file' ? inlineFile() : valid(v, opts);
    if (!unwrap(v).optional) required.push(k);
  }
  return fc.record(parts, { requiredKeys: required }).filter((a) => op.input.safeParse(a).success) as fc.Arbitrary<Record<string, unknown>>;
}

function inlineFile(): fc.Arbitrary<Record<string, unknown>> {
  // Mostly plain text, declared as such: bytes that contradict their declared type are refused by the
  // upload's content check, which the valid property counts apart.
  const text = fc.record(
    {
      text: fc.string({ maxLength: 300 }),
      filename: fc.stringMatching(/^[a-z]{1,12}\.(txt|csv|md)$/),
      content_type: fc.constantFrom('text/plain', 'text/csv'),
    },
    { requiredKeys: ['text'] },
  );
  const base64 = fc.record(
    { base64: fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('base64')), filename: fc.stringMatching(/^[a-z]{1,12}\.bin$/) },
    { requiredKeys: ['base64'] },
  );
  return fc.oneof({ weight: 3, arbitrary: text }, { weight: 1, arbitrary: base64 });
}

/** One way of breaking otherwise valid arguments, and the field a clear refusal must name. */
export interface Broken {
  kind:
    | 'wrong_type'
    | 'missing'
    | 'too_long'
    | 'too_short'
    | 'bad_id'
    | 'bad_format'
    | 'unknown_key'
    | 'json_string'
    | 'bad_enum'
    | 'out_of_range'
    | 'prototype_key';
  field: string;
  args: Record<string, unknown>;
}

const BAD_IDS = [
  '../../workspace',
  '..',
  '01ZZZZ',
  '01ZZZZZZZZZZZZZZZZZZZZZZZZZ',
  '01ZZZZZZZZZZZZZZZZZZZZZZZ/',
  '%2e%2e',
  'x?y=1',
  'a#b',
  ' 01ZZZZZZZZZZZZZZZZZZZZZZZ',
  '',
];

/**
 * A value of another JSON type than the schema's base type (never null or undefined, which wrappers
 * may allow), and never a text the arguments reader converts to the base type ("5" for a number,
 * "true" for a boolean, JSON text for an object or an array).
 */
function otherType(type: string): fc.Arbitrary<unknown> {
  const same = type === 'enum' ? 'string' : type === 'record' ? 'object' : type;
  const readable = (t: string) =>
    (same === 'number' && /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(t)) ||
    (same === 'boolean' && /^(true|false)$/i.test(t)) ||
    ((same === 'object' || same === 'array') && /^\s*[[{]/.test(t));
  const all: Record<string, fc.Arbitrary<unknown>> = {
    string: fc.string({ maxLength: 10 }).filter((t) => !readable(t)),
    number: fc.oneof(fc.integer(), fc.double({ noNaN: true })),
    boolean: fc.boolean(),
    array: fc.array(fc.integer(), { maxLength: 3 }),
    object: fc.dictionary(fc.stringMatching(/^[a-z]{1,5}$/), fc.integer(), { maxKeys: 2 }),
  };
  return fc.oneof(
    ...Object.entries(all)
      .filter(([t]) => t !== same)
      .map(([, a]) => a),
  );
}

/** Ways to break each field of the shape, given its schema. */
function breakersFor(op: Operation, key: string, schema: z.ZodType): { kind: Broken['kind']; value: fc.Arbitrary<unknown> }[] {
  const { base, optional } = unwrap(schema);
  const t = defOf(base).type;
  const out: { kind: Broken['kind']; value: fc.Arbitrary<unknown> }[] = [];
  if (t === 'unknown' || t === 'any') return out;
  out.push({ kind: 'wrong_type', value: otherType(t) });
  if (t === 'string') {
    const b = stringBounds(base);
    if (b.pattern?.source === '^[0-9A-Za-z]{26}$') out.push({ kind: 'bad_id', value: fc.constantFrom(...BAD_IDS) });
    if (b.max !== undefined) {
      const max = b.max;
      out.push({ kind: 'too_long', value: fc.integer({ min: max + 1, max: max + 64 }).map((n) => 'x'.repeat(n)) });
    }
    if (b.min > 0 && !b.pattern) out.push({ kind: 'too_short', value: fc.constant('') });
    if (b.pattern && b.pattern.source !== '^[0-9A-Za-z]{26}$') {
      const pattern = b.pattern;
      out.push({ kind: 'bad_format', value: fc.constantFrom('../x', 'a/b', '', '%2F', '..', 'a\\b').filter((v) => !pattern.test(v)) });
    }
  }
  if (t === 'number') {
    const b = numberBounds(base);
    if (b.max < 1e6) out.push({ kind: 'out_of_range', value: fc.integer({ min: Math.floor(b.max) + 1, max: Math.floor(b.max) + 1000 }) });
    if (b.min > -1e6) out.push({ kind: 'out_of_range', value: fc.integer({ min: Math.ceil(b.min) - 1000, max: Math.ceil(b.min) - 1 }) });
    if (b.int) out.push({ kind: 'out_of_range', value: fc.constant(Math.max(b.min, 0) + 0.5) });
  }
  // "true" and "false" are read as booleans; texts that could mean either are refused, never guessed.
  if (t === 'boolean') out.push({ kind: 'json_string', value: fc.constantFrom('1', '0', 'yes', 'no', 'on', 'off') });
  if (t === 'enum') {
    const entries = Object.values(defOf(base).entries ?? {}).map(String);
    // Case aside: "Validated" is read as "validated".
    const lower = entries.map((e) => e.toLowerCase());
    out.push({ kind: 'bad_enum', value: fc.string({ maxLength: 12 }).filter((v) => !lower.includes(v.toLowerCase())) });
  }
  if (t === 'array' || t === 'object' || t === 'record') {
    // A client that sends the structure as JSON text is read; text that does not parse is refused.
    const content = op.body === 'multipart' && key === 'file' ? inlineFile() : valid(base);
    out.push({ kind: 'json_string', value: content.map((v) => JSON.stringify(v).slice(0, -1)) });
  }
  if (!optional) out.push({ kind: 'missing', value: fc.constant(undefined) });
  return out;
}

/** Arguments of one operation broken in exactly one way. */
export function brokenArguments(op: Operation, opts: BuildOptions = {}): fc.Arbitrary<Broken> {
  const shape = op.input.shape as Record<string, z.ZodType>;
  const cases: fc.Arbitrary<Broken>[] = [];
  const base = validArguments(op, opts);
  for (const [key, schema] of Object.entries(shape)) {
    for (const b of breakersFor(op, key, schema)) {
      cases.push(
        fc.tuple(base, b.value).map(([args, value]) => {
          const out = { ...args };
          if (b.kind === 'missing') delete out[key];
          else out[key] = value;
          return { kind: b.kind, field: key, args: out };
        }),
      );
    }
  }
  // An argument the tool does not have. The server's own extras are not arguments of the operation
  // and are accepted: fields (JSON answers), wait and cancel_on_abort (tools that start a job).
  const extras = ['fields', 'wait', 'cancel_on_abort', '__proto__', 'constructor', 'prototype'];
  const unknownKey = fc.stringMatching(/^[a-z][a-z_]{0,15}$/).filter((k) => !(k in shape) && !extras.includes(k));
  cases.push(
    fc.tuple(base, unknownKey, json(1)).map(([args, key, value]) => ({
      kind: 'unknown_key' as const,
      field: key,
      args: { ...args, [key]: value ?? 1 },
    })),
  );
  // A key refused by name (as JSON.parse makes it: an own property, even `__proto__`).
  cases.push(
    fc.tuple(base, fc.constantFrom(...PROTOTYPE_KEYS), json(1)).map(([args, key, value]) => {
      const out = { ...args };
      Object.defineProperty(out, key, { value: value ?? 1, enumerable: true, writable: true, configurable: true });
      return { kind: 'prototype_key' as const, field: key, args: out };
    }),
  );
  return fc.oneof(...cases);
}

/** Path parameters of an operation (for the known-id pool and for reading the request log). */
export const pathParamsOf = (op: Operation) => pathParams(op.path);

// ---------------------------------------------------------------------------------------------
// Whole messages a broken or hostile client may send: each with what the server must do

/** What the server must do with an abusive message. */
export type Due =
  /** A JSON-RPC error with this code, bearing the message's id (null when it has none to bear). */
  | { error: number; id: string | null }
  /** A tool result refusing the arguments, naming this field, with nothing sent. */
  | { refused: string; id: string }
  /** Nothing: JSON-RPC answers neither a notification nor a response (HTTP: 400 without an id). */
  | { dropped: true };

export interface Abuse {
  kind:
    | 'non_object_arguments'
    | 'malformed_meta'
    | 'bad_progress_token'
    | 'deep_message'
    | 'deep_text'
    | 'prototype_key'
    | 'method_and_result'
    | 'not_an_object'
    | 'not_json';
  /** The message as written on the wire: one line, no newline. */
  text: string;
  due: Due;
  /** How deep it nests, for the nesting kinds. */
  depth?: number;
}

/** The deepest a generated message nests: 100,000 levels, as the probes sent. */
export const MAX_FUZZ_DEPTH = 100_000;

/** Text nested `depth` levels (arrays or objects) around a 1. */
export function nestedJson(depth: number, shape: 'array' | 'object'): string {
  return shape === 'array' ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** Mostly just past the guard's limit, often thousands deep, and now and then the full 100,000. */
const depths = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 65, max: 3_000 }) },
  { weight: 2, arbitrary: fc.integer({ min: 3_000, max: MAX_FUZZ_DEPTH }) },
  { weight: 1, arbitrary: fc.constant(MAX_FUZZ_DEPTH) },
);
const shapes = fc.constantFrom<'array' | 'object'>('array', 'object');
const ids = fc.uuid().map((u) => `fuzz-${u}`);

/** A JSON value that is not an object (what `arguments`, `_meta` and a message must not be). */
const notAnObject: fc.Arbitrary<unknown> = fc.oneof(
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  // Text that is not an object's JSON text: such text is read as the object it holds.
  fc.string({ maxLength: 20 }).filter((t) => !t.trim().startsWith('{') && t.trim() !== ''),
);

/**
 * Messages a client of `era` may send that the server must answer (or drop) by JSON-RPC's rules
 * and survive: non-object arguments, `_meta` that is no object, a progress token that is neither
 * text nor a number, messages nested up to 100,000 levels (as a response, a notification, in
 * `_meta`, in params, in arguments, in a value's JSON text), prototype keys in valid arguments,
 * a request that is also a response, non-objects and text that is not JSON.
 * `ops`: the tools to call (one per operation); `params` wraps params as the era sends them.
 */
export function abusiveMessages(
  ops: readonly Operation[],
  params: (p: Record<string, unknown>) => Record<string, unknown>,
  opts: BuildOptions & { listTool: { name: string; args: Record<string, unknown> } },
): fc.Arbitrary<Abuse> {
  const line = (m: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', ...m });
  const tool = fc.constantFrom(...ops.map((o) => o.name));
  const call = (id: string, name: string, args: unknown) => line({ id, method: 'tools/call', params: params({ name, arguments: args }) });
  const invalidParams = (id: string): Due => ({ error: -32602, id });

  const nonObjectArguments = fc
    .tuple(ids, tool, notAnObject)
    .map(([id, name, args]): Abuse => ({ kind: 'non_object_arguments', text: call(id, name, args), due: invalidParams(id) }));

  const badMeta = fc.oneof(
    fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
    fc.string({ maxLength: 10 }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
  );
  const malformedMeta = fc
    .tuple(ids, fc.constantFrom('tools/list', 'prompts/list', 'resources/list', 'tools/call', 'notification'), badMeta)
    .map(([id, method, meta]): Abuse => {
      // The envelope of a 2026 client lives in `_meta`: a `_meta` that is no object carries none.
      if (method === 'notification')
        return { kind: 'malformed_meta', text: line({ method: 'notifications/roots/list_changed', params: { _meta: meta } }), due: { dropped: true } };
      const p = method === 'tools/call' ? { name: opts.listTool.name, arguments: opts.listTool.args, _meta: meta } : { _meta: meta };
      return { kind: 'malformed_meta', text: line({ id, method, params: p }), due: invalidParams(id) };
    });

  const badToken = fc.oneof(
    fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 }),
    fc.array(fc.integer(), { maxLength: 2 }),
    fc.boolean(),
    fc.constant(null),
  );
  const badProgressToken = fc.tuple(ids, badToken).map(([id, token]): Abuse => {
    const p = params({ name: opts.listTool.name, arguments: opts.listTool.args });
    const text = line({ id, method: 'tools/call', params: { ...p, _meta: { ...(p._meta as object | undefined), progressToken: token } } });
    return { kind: 'bad_progress_token', text, due: invalidParams(id) };
  });

  const deepMessage = fc
    .tuple(ids, depths, shapes, fc.constantFrom('response', 'notification', 'meta', 'params', 'arguments'))
    .map(([id, depth, shape, where]): Abuse => {
      const deep = nestedJson(depth, shape);
      const tooDeep = { error: -32600, id };
      const abuse = (text: string, due: Due): Abuse => ({ kind: 'deep_message', text, due, depth });
      switch (where) {
        case 'response':
          // A response for an id this server never issued.
          return abuse(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"x":${deep}}}`, { dropped: true });
        case 'notification':
          return abuse(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1,"x":${deep}}}`, { dropped: true });
        case 'meta': {
          const p = line({ id, method: 'tools/call', params: params({ name: opts.listTool.name, arguments: opts.listTool.args, _meta: { deep: '@' } }) });
          return abuse(p.replace('"@"', deep), tooDeep);
        }
        case 'params':
          return abuse(line({ id, method: 'tools/list', params: params({ x: '@' }) }).replace('"@"', deep), tooDeep);
        default:
          return abuse(call(id, opts.listTool.name, { ...opts.listTool.args, x: '@' }).replace('"@"', deep), tooDeep);
      }
    });

  // Depth inside a value's JSON text: the message itself is shallow.
  const deepText = fc.tuple(ids, depths, shapes, fc.boolean()).map(([id, depth, shape, whole]): Abuse => {
    if (whole) return { kind: 'deep_text', text: call(id, opts.listTool.name, `{"x":${nestedJson(depth, shape)}}`), due: invalidParams(id), depth };
    return {
      kind: 'deep_text',
      text: call(id, opts.listTool.name, { ...opts.listTool.args, fields: nestedJson(depth, 'array') }),
      due: { refused: 'fields', id },
      depth,
    };
  });

  const prototypeKey = fc
    .tuple(ids, fc.constantFrom(...ops), fc.constantFrom(...PROTOTYPE_KEYS), json(1))
    .chain(([id, op, key, value]) => validArguments(op, opts).map((args) => ({ id, op, key, value, args })))
    .map(({ id, op, key, value, args }): Abuse => {
      // As JSON text carries it: an own key, even `__proto__` (JSON.stringify of an object would drop it).
      const text = call(id, op.name, { '@': 1, ...args }).replace('"@":1', `${JSON.stringify(key)}:${JSON.stringify(value ?? 1)}`);
      return { kind: 'prototype_key', text, due: { refused: key, id } };
    });

  const methodAndResult = fc.tuple(ids, fc.constantFrom('result', 'error')).map(([id, which]): Abuse => {
    const extra = which === 'result' ? { result: {} } : { error: { code: 1, message: 'x' } };
    return { kind: 'method_and_result', text: line({ id, method: 'tools/list', params: params({}), ...extra }), due: { error: -32600, id } };
  });

  const notAnObjectMessage = fc
    .oneof(notAnObject, fc.constant(null))
    .map((v): Abuse => ({ kind: 'not_an_object', text: JSON.stringify(v), due: { error: -32600, id: null } }));

  const notJson = fc
    .string({ minLength: 1, maxLength: 30 })
    .filter((t) => !/[\n\r]/.test(t) && t.trim() !== '' && !parses(t))
    .map((text): Abuse => ({ kind: 'not_json', text, due: { error: -32700, id: null } }));

  return fc.oneof(
    nonObjectArguments,
    malformedMeta,
    badProgressToken,
    { weight: 3, arbitrary: deepMessage },
    { weight: 2, arbitrary: deepText },
    { weight: 2, arbitrary: prototypeKey },
    methodAndResult,
    notAnObjectMessage,
    notJson,
  );
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
