// Request validation against the catalog's input schemas: 422 validation.failed with
// `details.fields` mapping each dotted field path to its messages, in the caller's locale.
import { z } from 'zod';
import { pathParams } from '../operation.js';
import { type Locale, type SandboxOperation, validationFailed } from './types.js';

type Base = 'number' | 'boolean' | 'array' | 'other';

export interface InputValidator {
  /** Non-path fields of the operation; unknown top-level keys are stripped, not refused. */
  schema: z.ZodObject;
  /** How each field's string value from a query or form is coerced before parsing. */
  bases: Map<string, Base>;
  /** Multipart file fields (validated by the pipeline against the upload limits, not by zod). */
  fileFields: string[];
}

function baseOf(schema: z.ZodType): Base {
  let s: z.ZodType = schema;
  // Unwrap optional/nullable/default/pipe wrappers to the type a string must become.
  for (let i = 0; i < 10; i++) {
    const def = (s as unknown as { _zod: { def: { type: string; innerType?: z.ZodType; in?: z.ZodType } } })._zod.def;
    if (def.innerType && ['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional'].includes(def.type)) {
      s = def.innerType;
      continue;
    }
    if (def.type === 'pipe' && def.in) {
      s = def.in;
      continue;
    }
    if (def.type === 'number' || def.type === 'int' || def.type === 'bigint') return 'number';
    if (def.type === 'boolean') return 'boolean';
    if (def.type === 'array') return 'array';
    return 'other';
  }
  return 'other';
}

/** Built once per operation at start-up: no schema is built per request. */
export function compileInput(op: SandboxOperation): InputValidator {
  const omit = new Set(pathParams(op.path));
  const fileFields = op.body === 'multipart' ? Object.keys(op.input.shape).filter((k) => k === 'file') : [];
  for (const f of fileFields) omit.add(f);
  const shape: Record<string, z.ZodType> = {};
  const bases = new Map<string, Base>();
  for (const [k, v] of Object.entries(op.input.shape)) {
    if (omit.has(k)) continue;
    shape[k] = v as z.ZodType;
    bases.set(k, baseOf(v as z.ZodType));
  }
  return { schema: z.object(shape), bases, fileFields };
}

/**
 * Query strings and form fields arrive as strings: turn them into the types the schema expects, so
 * `?limit=2` is the number 2. Values that do not look like the type are left alone and the schema
 * refuses them with a clear message.
 */
export function coerceStrings(v: InputValidator, entries: Iterable<[string, string]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, raw] of entries) {
    const base = v.bases.get(k);
    if (base === undefined) continue; // unknown parameters are ignored, like unknown body keys
    const key = k.endsWith('[]') ? k.slice(0, -2) : k;
    let value: unknown = raw;
    if (base === 'number' && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(raw.trim())) value = Number(raw);
    else if (base === 'boolean' && (raw === 'true' || raw === '1')) value = true;
    else if (base === 'boolean' && (raw === 'false' || raw === '0')) value = false;
    if (base === 'array') {
      const prev = out[key];
      out[key] = Array.isArray(prev) ? [...prev, raw] : raw.includes(',') ? raw.split(',') : [raw];
    } else out[key] = value;
  }
  return out;
}

const frLocale = z.locales.fr();
const enLocale = z.locales.en();

/** Parse `data`, or throw 422 with every problem under its dotted field path. */
export function validateInput(v: InputValidator, data: unknown, locale: Locale): Record<string, unknown> {
  const r = v.schema.safeParse(data, { error: (locale === 'fr' ? frLocale : enLocale).localeError });
  if (r.success) return r.data;
  throw validationFailed(issueFields(r.error.issues));
}

function issueFields(issues: readonly z.core.$ZodIssue[]): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  const add = (path: string, msg: string) => {
    fields[path] ??= [];
    fields[path].push(msg);
  };
  for (const issue of issues) {
    const base = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const k of issue.keys) add(base ? `${base}.${k}` : k, issue.message);
    } else add(base || '_', issue.message);
  }
  return fields;
}

/** A message for a single field in both languages, for checks the pipeline makes itself. */
export function fieldError(field: string, locale: Locale, text: { en: string; fr: string }) {
  return validationFailed({ [field]: [text[locale]] });
}
