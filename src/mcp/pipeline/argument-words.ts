// Validation in plain words: what a schema wants ("a text of at most 200 characters", "one of ...")
// and a zod issue as a Problem a refusal lists (the field, what it must be, what was given). Read by
// the argument reader (src/mcp/pipeline/arguments.ts) and the gateway's describe_operation.
import type { z } from 'zod';
import { cut, type Path, type Problem, plural, preview } from '../render/refusal.js';
import { checksOf, defOf } from './zod-defs.js';

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

/** The schema under optional, nullable, default and the like (and a pipe's input). */
const accepts = (s: z.ZodType, v: unknown): boolean => s.safeParse(v).success;

export function baseOf(s: z.ZodType): z.ZodType {
  let cur = s;
  for (let i = 0; i < 32; i++) {
    const d = defOf(cur);
    if (WRAPPERS.has(d.type) && d.innerType) cur = d.innerType;
    else if (d.type === 'pipe' && d.in) cur = d.in;
    else break;
  }
  return cur;
}

function descriptionOf(s: z.ZodType): string | undefined {
  const d = (s as { description?: string }).description;
  return typeof d === 'string' && d.length <= 80 ? d : undefined;
}

function range(min: number | undefined, max: number | undefined, unit = ''): string {
  const u = unit ? ` ${unit}` : '';
  if (min !== undefined && max !== undefined) return min === max ? ` of exactly ${min}${u}` : ` from ${min} to ${max}${u}`;
  if (min !== undefined) return ` of at least ${min}${u}`;
  if (max !== undefined) return ` of at most ${max}${u}`;
  return '';
}

function stringWant(s: z.ZodType): string {
  const d = defOf(s);
  let min: number | undefined;
  let max: number | undefined;
  for (const c of checksOf(s)) {
    if (c.check === 'string_format' && c.format === 'regex') {
      // The catalog states its patterns in words ("must be a 26-character ULID"): use them.
      const said = typeof c.error === 'function' ? c.error() : undefined;
      if (typeof said === 'string' && !said.startsWith('Invalid')) return said.replace(/^must be /, '');
      return `text matching ${cut(String(c.pattern), 60)}`;
    }
    if (c.check === 'min_length') min = c.minimum;
    if (c.check === 'max_length') max = c.maximum;
    if (c.check === 'length_equals') min = max = c.length;
  }
  const format = d.format;
  if (format === 'email') return 'an e-mail address';
  if (format === 'url') return 'a URL (http or https)';
  if (format === 'date') return 'a date (YYYY-MM-DD)';
  if (format === 'datetime') return 'a date and time (ISO 8601)';
  if (format && format !== 'regex') return `text in ${format} format`;
  if (min === 1 && max === undefined) return 'non-empty text';
  return `text${range(min && min > 1 ? min : undefined, max, 'characters')}`;
}

function numberWant(s: z.ZodType): string {
  let min: number | undefined;
  let max: number | undefined;
  let int = ['safeint', 'int32', 'uint32'].includes(defOf(s).format ?? '');
  for (const c of checksOf(s)) {
    if (c.check === 'number_format' && ['safeint', 'int32', 'uint32'].includes(c.format ?? '')) int = true;
    if (c.check === 'greater_than' && c.value !== undefined && Math.abs(c.value) < 1e15) min = c.inclusive ? c.value : int ? c.value + 1 : c.value;
    if (c.check === 'less_than' && c.value !== undefined && Math.abs(c.value) < 1e15) max = c.inclusive ? c.value : int ? c.value - 1 : c.value;
  }
  return `${int ? 'a whole number' : 'a number'}${range(min, max)}`;
}

function arrayBounds(s: z.ZodType): { min?: number; max?: number } {
  const out: { min?: number; max?: number } = {};
  for (const c of checksOf(s)) {
    if (c.check === 'min_length' && c.minimum !== undefined) out.min = c.minimum;
    if (c.check === 'max_length' && c.maximum !== undefined) out.max = c.maximum;
    if (c.check === 'length_equals' && c.length !== undefined) out.min = out.max = c.length;
  }
  return out;
}

/** What a value of this schema must be, in plain words: "a whole number from 1 to 200". */
export function want(s: z.ZodType, depth = 0): string {
  const nullable = accepts(s, null);
  const base = baseOf(s);
  const d = defOf(base);
  let w: string;
  switch (d.type) {
    case 'string':
      w = stringWant(base);
      break;
    case 'number':
    case 'int':
      w = numberWant(base);
      break;
    case 'boolean':
      w = 'true or false';
      break;
    case 'enum': {
      const values = Object.values(d.entries ?? {});
      w = `one of ${values
        .slice(0, 20)
        .map((v) => JSON.stringify(v))
        .join(', ')}${values.length > 20 ? ', …' : ''}`;
      break;
    }
    case 'literal':
      w = (d.values ?? []).map((v) => JSON.stringify(v)).join(' or ');
      break;
    case 'array': {
      const { min, max } = arrayBounds(base);
      const count =
        min !== undefined && max !== undefined
          ? min === max
            ? ` of ${plural(min, 'item')}`
            : ` of ${min} to ${max} items`
          : min !== undefined
            ? ` of at least ${plural(min, 'item')}`
            : max !== undefined
              ? ` of at most ${plural(max, 'item')}`
              : '';
      w = `an array${count}${d.element && depth < 2 ? `, each ${want(d.element, depth + 1)}` : ''}`;
      break;
    }
    case 'object': {
      const keys = Object.keys(d.shape ?? {});
      w = keys.length ? `an object with ${cut(keys.join(', '), 120)}` : 'an empty object';
      break;
    }
    case 'record':
      w = 'an object (or its JSON text)';
      break;
    case 'union':
      w = (d.options ?? []).map((o) => want(o, depth + 1)).join(' or ');
      break;
    case 'unknown':
    case 'any':
      w = 'any value';
      break;
    default:
      w = 'a valid value';
  }
  const said = descriptionOf(s) ?? descriptionOf(base);
  if (said && d.type !== 'string') w = `${w} (${said})`;
  return nullable && d.type !== 'unknown' && d.type !== 'any' ? `${w}, or null` : w;
}

function schemaAt(root: z.ZodType, path: Path): z.ZodType | undefined {
  let cur: z.ZodType | undefined = root;
  for (const seg of path) {
    if (!cur) return undefined;
    const d = defOf(baseOf(cur));
    if (d.type === 'object') cur = d.shape && Object.hasOwn(d.shape, String(seg)) ? d.shape[String(seg)] : undefined;
    else if (d.type === 'array') cur = d.element;
    else if (d.type === 'record') cur = d.valueType;
    else if (d.type === 'union') cur = (d.options ?? []).map((o) => schemaAt(o, [seg])).find((x) => x !== undefined);
    else return undefined;
  }
  return cur;
}

/** The value at a path of a value; `found` false when the path does not exist there. */
function at(root: unknown, path: Path): { found: boolean; v: unknown } {
  let cur = root;
  for (const seg of path) {
    if (typeof cur !== 'object' || cur === null || !Object.hasOwn(cur, seg)) return { found: false, v: undefined };
    cur = (cur as Record<string | number, unknown>)[seg];
  }
  return { found: true, v: cur };
}

export function describeIssue(issue: z.core.$ZodIssue, root: z.ZodType, sent: unknown, read: unknown): Problem[] {
  const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
  const schema = schemaAt(root, path);
  // What was given is shown as sent; sizes are counted on the value as read (JSON text parsed).
  const asRead = at(read, path).v;
  const asSent = at(sent, path);
  const given = asSent.found ? asSent.v : asRead;
  const must = () => `must be ${schema ? want(schema) : 'a valid value'}`;
  switch (issue.code) {
    case 'unrecognized_keys': {
      const keys = issue.keys.map((k) => cut(k));
      const what = path.length ? 'field' : 'argument';
      return [{ path, rule: `unknown ${what}${keys.length > 1 ? 's' : ''} ${keys.join(', ')}: remove ${keys.length > 1 ? 'them' : 'it'}` }];
    }
    case 'invalid_type': {
      if (given === undefined) return [{ path, rule: `required; ${must()}` }];
      const base = schema ? defOf(baseOf(schema)).type : '';
      if (typeof given === 'string' && (base === 'object' || base === 'record' || base === 'array')) {
        return [{ path, rule: must(), given: `${preview(given)}, a text that is not ${base === 'array' ? 'a JSON array' : 'a JSON object'}` }];
      }
      return [{ path, rule: must(), given: preview(given) }];
    }
    case 'too_big':
    case 'too_small': {
      const big = issue.code === 'too_big';
      const bound = Number(big ? (issue as { maximum: unknown }).maximum : (issue as { minimum: unknown }).minimum);
      if (issue.origin === 'string' && typeof asRead === 'string') {
        const rule = big ? `at most ${plural(bound, 'character')}` : bound <= 1 ? 'must not be empty' : `at least ${plural(bound, 'character')}`;
        return [{ path, rule, given: bound <= 1 && !big ? preview(asRead) : plural(asRead.length, 'character') }];
      }
      if (issue.origin === 'array' && Array.isArray(asRead)) {
        return [{ path, rule: `${big ? 'at most' : 'at least'} ${plural(bound, 'item')}`, given: plural(asRead.length, 'item') }];
      }
      return [{ path, rule: must(), given: preview(given) }];
    }
    case 'custom':
      // The catalog's own refinements, already in plain words ("give exactly one of path, text or base64").
      return [{ path, rule: issue.message }];
    default:
      return [{ path, rule: must(), given: preview(given) }];
  }
}
