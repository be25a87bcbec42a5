// Arguments are checked against the operation's schema before anything is sent; a refusal names each
// field, says what is wrong and how to fix it, so the assistant can correct the call in one go.
import type { z } from 'zod';
import type { Operation } from '../operation.js';

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

export function validateArguments(op: Operation, raw: unknown): Validated {
  const result = op.input.safeParse(raw ?? {});
  if (result.success) return { ok: true, args: result.data as Record<string, unknown> };
  const fields: Record<string, string> = {};
  for (const issue of result.error.issues) {
    const name = fieldName(issue.path);
    if (fields[name]) continue;
    fields[name] = describeIssue(issue, valueAt(raw, issue.path));
  }
  const accepted = Object.keys(op.input.shape).join(', ');
  const lines = Object.entries(fields).map(([f, why]) => `- ${f}: ${why}`);
  return {
    ok: false,
    fields,
    message: `Invalid arguments for ${op.name}; nothing was sent.\n${lines.join('\n')}\nFix these fields and call again. Arguments: ${accepted || '(none)'}.`,
  };
}
