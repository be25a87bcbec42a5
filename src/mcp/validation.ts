// Arguments are checked against the operation's schema before anything is sent; a refusal names each
// field, says what is wrong and how to fix it, so the assistant can correct the call in one go.
import type { z } from 'zod';
import { shownName } from './registry.js';

export type Validated = { ok: true; args: Record<string, unknown> } | { ok: false; message: string; fields: Record<string, string> };

function fieldName(path: PropertyKey[]): string {
  return path.length ? path.map(String).join('.') : '(arguments)';
}

function describeIssue(issue: z.core.$ZodIssue, input: unknown): string {
  switch (issue.code) {
    case 'invalid_type': {
      if (input === undefined) return `required (${issue.expected})`;
      const got = input === null ? 'null' : Array.isArray(input) ? 'array' : typeof input;
      if (typeof input === 'string' && (issue.expected === 'object' || issue.expected === 'array')) {
        return `expected ${issue.expected}, got a string: pass the ${issue.expected} itself, not JSON text`;
      }
      return `expected ${issue.expected}, got ${got}`;
    }
    case 'too_big':
      if (issue.origin === 'string') return `at most ${String(issue.maximum)} characters`;
      if (issue.origin === 'array') return `at most ${String(issue.maximum)} items`;
      return `at most ${String(issue.maximum)}`;
    case 'too_small':
      if (issue.origin === 'string') return Number(issue.minimum) <= 1 ? 'must not be empty' : `at least ${String(issue.minimum)} characters`;
      if (issue.origin === 'array') return `at least ${String(issue.minimum)} item${Number(issue.minimum) === 1 ? '' : 's'}`;
      return `at least ${String(issue.minimum)}`;
    case 'invalid_value':
      return `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'unrecognized_keys':
      return `unknown argument${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}: remove ${issue.keys.length > 1 ? 'them' : 'it'}`;
    default:
      return issue.message;
  }
}

function valueAt(root: unknown, path: PropertyKey[]): unknown {
  let cur: unknown = root;
  for (const k of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[k];
  }
  return cur;
}

/** Arguments of the tool `tool` checked against its whole input (`schema`, a strict object). */
export function validateArguments(schema: z.ZodObject, raw: unknown, tool: string): Validated {
  const result = schema.safeParse(raw ?? {});
  if (result.success) return { ok: true, args: result.data as Record<string, unknown> };
  const fields: Record<string, string> = {};
  for (const issue of result.error.issues) {
    const name = fieldName(issue.path);
    if (fields[name]) continue;
    fields[name] = describeIssue(issue, valueAt(raw, issue.path));
  }
  return { ok: false, fields, message: refusalMessage(tool, fields, Object.keys(schema.shape)) };
}

/**
 * The one wording of a refusal of arguments, for every tool: each field with what is wrong and how
 * to fix it, that nothing was sent, and (when known) the arguments the tool takes.
 */
export function refusalMessage(tool: string, fields: Record<string, string>, accepted?: readonly string[]): string {
  const lines = Object.entries(fields).map(([f, why]) => `- ${f}: ${why}`);
  const takes = accepted ? ` Arguments: ${accepted.join(', ') || '(none)'}.` : '';
  return `Invalid arguments for ${shownName(tool)}; nothing was sent.\n${lines.join('\n')}\nFix these fields and call again.${takes}`;
}
