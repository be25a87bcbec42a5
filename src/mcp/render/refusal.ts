// One refusal for every tool and every step: the policy's (an unknown name, an area not enabled,
// read-only mode, read consent) and the arguments' (each field with what it must be and what was
// given). One type, one way to build the arguments' words, one way to render it as a tool result, so
// an assistant reads the same shape whichever tool or step refused, and nothing was sent.

import { toolError } from './tool-result.js';

type Json = Record<string, unknown>;

export type Path = ReadonlyArray<string | number>;

/** One thing wrong with the arguments: where, what it must be, and what was given (a preview). */
export interface Problem {
  path: Path;
  /** What the value must be, or what to do: "must be true or false", "unknown argument x: remove it". */
  rule: string;
  /** A short preview of what was given; undefined when the rule says it all. */
  given?: string;
}

/**
 * Why a call was refused: `unknown`, `toolset`, `read_only` and `scope` by the session's policy,
 * `invalid_arguments` by argument validation, `invalid_argument` when the API named a field, and a
 * tool's own codes (a script's, a block edit's).
 */
type RefusalCode = 'unknown' | 'toolset' | 'read_only' | 'scope' | 'invalid_arguments' | 'invalid_argument' | (string & {});

export interface Refusal {
  ok: false;
  code: RefusalCode;
  /** The text for the model: what was refused, why, what to send, and that nothing was sent. */
  message: string;
  /** Arguments' refusals: field (dotted path, or "(arguments)") to its rule and what was given. */
  fields?: Record<string, string>;
}

/** A refusal of the arguments: every field refused, with its rule and what was given. */
export type ArgumentsRefusal = Refusal & { fields: Record<string, string> };

/** Tell a refusal from what was resolved (an operation, a tool) or read (arguments). */
export function isRefusal<T extends object>(x: T | Refusal): x is Refusal {
  return 'ok' in x && x.ok === false && 'code' in x;
}

const ROOT = '(arguments)';
/** Previews and names in refusals are cut to this many characters: never echo a huge value back. */
const PREVIEW_CHARS = 40;
/** At most this many lines in one refusal; the count of the others is given. */
export const MAX_PROBLEMS = 20;

export function cut(s: string, max = PREVIEW_CHARS): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function fieldName(path: Path): string {
  return path.length ? path.map((p) => cut(String(p))).join('.') : ROOT;
}

/** JSON of a small value within `budget` characters, or undefined when it does not fit. */
function boundedJson(v: unknown, budget: number): string | undefined {
  if (budget <= 0) return undefined;
  if (v === null || typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return v.length + 2 <= budget ? JSON.stringify(v) : undefined;
  if (typeof v !== 'object') return undefined;
  const isArray = Array.isArray(v);
  const parts: string[] = [];
  let used = 2;
  // Stops at the first part that does not fit: a huge value costs no more than a small one.
  for (const k in v) {
    const key = isArray ? '' : `${JSON.stringify(cut(k))}:`;
    const inner = boundedJson((v as Json)[k], budget - used - key.length);
    if (inner === undefined) return undefined;
    parts.push(key + inner);
    used += key.length + inner.length + 1;
    if (used > budget) return undefined;
  }
  return isArray ? `[${parts.join(',')}]` : `{${parts.join(',')}}`;
}

/** What was given, in a few words: never more than about PREVIEW_CHARS characters of it. */
export function preview(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (typeof v === 'string') {
    return v.length <= PREVIEW_CHARS ? JSON.stringify(v) : `${JSON.stringify(v.slice(0, PREVIEW_CHARS)).slice(0, -1)}…" (${v.length} characters)`;
  }
  const small = boundedJson(v, PREVIEW_CHARS);
  if (small !== undefined) return small;
  if (Array.isArray(v)) return `an array of ${v.length} items`;
  if (typeof v === 'object' && v !== null) {
    const keys = Object.keys(v);
    return `an object with ${plural(keys.length, 'key')} (${cut(
      keys
        .slice(0, 5)
        .map((k) => cut(k, 20))
        .join(', '),
    )})`;
  }
  return typeof v;
}

/**
 * The refusal of a call, in the same words for every tool: one line per field with what it must be
 * and what was given, and that nothing was sent. `accepted` lists the tool's arguments.
 */
export function refusal(toolName: string, problems: readonly Problem[], accepted?: readonly string[]): ArgumentsRefusal {
  // No prototype: a field may be named __proto__ (that is what is refused), and must read as itself.
  const fields = Object.create(null) as Record<string, string>;
  const lines: string[] = [];
  for (const p of problems) {
    const name = fieldName(p.path);
    const text = p.given === undefined ? p.rule : `${p.rule}; got ${p.given}`;
    if (Object.hasOwn(fields, name)) continue;
    fields[name] = text;
    if (lines.length < MAX_PROBLEMS) lines.push(`- ${name}: ${text}.`);
  }
  const more = Object.keys(fields).length - lines.length;
  if (more > 0) lines.push(`- and ${more} more field${more === 1 ? '' : 's'} to fix.`);
  const tail = accepted ? ` Arguments: ${accepted.length ? accepted.map((a) => cut(a)).join(', ') : '(none)'}.` : '';
  return {
    ok: false,
    code: 'invalid_arguments',
    fields,
    message: `Invalid arguments for ${cut(toolName, 100)}; nothing was sent.\n${lines.join('\n')}\nFix these and call again.${tail}`,
  };
}

/**
 * A refusal as the tool result an assistant reads: isError, the text, and its code (and fields) as
 * the error's machine-readable part; `also`: what else the code carries (the field of a file refused).
 */
export function refusalResult(r: Refusal, also: Record<string, unknown> = {}) {
  return toolError(r.message, { code: r.code, ...(r.fields ? { fields: r.fields } : {}), ...also });
}
