// fast-check arbitraries built from a tool's own zod schema, so the fuzz suite follows the catalog as
// it changes: one builder for arguments the schema accepts, one for arguments it must refuse, each
// refusal labelled with the field a clear error has to name.
import fc from 'fast-check';
import type { z } from 'zod';
import { pathParams, type Operation } from '../../src/operation.js';

/** The parts of zod 4's internal definition this walker reads. */
interface Def {
  type: string;
  innerType?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  entries?: Record<string, string | number>;
  valueType?: z.ZodType;
  format?: string;
  /** Set on string formats (email, uuid...): the pattern the format checks. */
  pattern?: RegExp;
  checks?: { _zod: { def: CheckDef } }[];
}
interface CheckDef {
  check: string;
  format?: string;
  pattern?: RegExp;
  minimum?: number;
  maximum?: number;
  value?: number;
  inclusive?: boolean;
}

const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;
const checksOf = (s: z.ZodType): CheckDef[] => (defOf(s).checks ?? []).map((c) => c._zod.def);

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
  return fc.oneof(
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
  ).filter((t) => t.length >= min && t.length <= max);
}

export interface BuildOptions {
  /** Ids that exist in the sandbox, mixed in with random ULIDs so handlers run past their 404. */
  knownIds?: readonly string[];
}

/** Keys the arguments reader refuses by name at any depth (src/mcp/arguments.ts). */
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
      return fc.dictionary(fc.stringMatching(/^[a-z_]{1,12}$/).filter((k) => !PROTOTYPE_KEYS.has(k)), json(2), { maxKeys: 4 });
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
    { text: fc.string({ maxLength: 300 }), filename: fc.stringMatching(/^[a-z]{1,12}\.(txt|csv|md)$/), content_type: fc.constantFrom('text/plain', 'text/csv') },
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
  kind: 'wrong_type' | 'missing' | 'too_long' | 'too_short' | 'bad_id' | 'bad_format' | 'unknown_key' | 'json_string' | 'bad_enum' | 'out_of_range' | 'prototype_key';
  field: string;
  args: Record<string, unknown>;
}

const BAD_IDS = ['../../workspace', '..', '01ZZZZ', '01ZZZZZZZZZZZZZZZZZZZZZZZZZ', '01ZZZZZZZZZZZZZZZZZZZZZZZ/', '%2e%2e', 'x?y=1', 'a#b', ' 01ZZZZZZZZZZZZZZZZZZZZZZZ', ''];

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
  return fc.oneof(...Object.entries(all).filter(([t]) => t !== same).map(([, a]) => a));
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
