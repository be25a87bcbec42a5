// The arguments that shape how an answer is written, never sent to the API: `fields` (keep only
// these fields) on every operation answering JSON, and `response_format` (concise or detailed) on
// the reads among them (list and get tools). Their schemas as tools show them, and how they are read.
import type { Operation } from '../../operation.js';
import { RESPONSE_FORMATS, type ResponseFormat } from './concise.js';

export const FIELDS_ARGUMENT = 'fields';
export const RESPONSE_FORMAT_ARGUMENT = 'response_format';

/** As a tool's input schema shows `fields`. */
export const FIELDS_PROPERTY = { type: 'array', items: { type: 'string' } } as const;

/** As a tool's input schema shows `response_format`: the two words say it (the answers' notes explain). */
export const RESPONSE_FORMAT_PROPERTY = { enum: [...RESPONSE_FORMATS] } as const;

/** Reads answering JSON take `response_format` (unless the operation has an argument of that name). */
export function takesResponseFormat(op: Pick<Operation, 'method' | 'response' | 'input'>): boolean {
  return op.method === 'GET' && op.response === 'json' && !(RESPONSE_FORMAT_ARGUMENT in op.input.shape);
}

/** `response_format` as a client sent it: absent or null is the default; anything else but the two words is refused. */
export function readResponseFormat(value: unknown): { format?: ResponseFormat; error?: string } {
  if (value === undefined || value === null) return {};
  if (typeof value === 'string' && (RESPONSE_FORMATS as readonly string[]).includes(value)) return { format: value as ResponseFormat };
  return { error: `- ${RESPONSE_FORMAT_ARGUMENT}: expected "concise" (the default: the fields that matter, lists as a table) or "detailed" (every field)` };
}
