// The MCP layer's own arguments, beside an operation's API arguments: never sent to the API, declared
// once here so every tool that takes them lists, validates and strips them the same way.
// - fields: keep only these fields of each record (lists);
// - wait, cancel_on_abort: how a tool that starts a job follows it (operations with a job facet).
import { z } from 'zod';
import type { Operation } from '../operation.js';

/** Explained once in the server instructions, not on each of the eighty tools that take it. */
export const fieldsArgument = z.array(z.string().min(1).max(200)).min(1);

export const waitArgument = z
  .union([z.boolean(), z.number().min(0).max(600)])
  .describe('Follow the job to its end (default true; false: answer at once; or seconds, max 600)');

export const cancelOnAbortArgument = (label: string) => z.boolean().describe(`Cancel the ${label} if this call is cancelled`);

/** What the extras of one call asked for, taken off the API arguments. */
export interface Extras {
  fields?: string[];
  /** false: answer at once; a number: seconds to follow instead of WORKSPACE_JOB_WAIT_SECONDS. */
  wait?: boolean | number;
  cancelOnAbort?: boolean;
}

/** A list of records (not a file): what `fields` applies to. A single record is read whole. */
export function answersRecords(op: Pick<Operation, 'response' | 'paginated'>): boolean {
  return op.response === 'json' && op.paginated;
}

const shapes = new WeakMap<Operation, z.ZodRawShape>();

/** The extras an operation's tool takes. An operation that has an argument of the same name keeps its own. */
export function extrasShape(op: Operation): z.ZodRawShape {
  let known = shapes.get(op);
  if (!known) shapes.set(op, (known = buildExtras(op)));
  return known;
}

function buildExtras(op: Operation): z.ZodRawShape {
  const own = op.input.shape;
  const shape: Record<string, z.ZodType> = {};
  if (answersRecords(op) && !('fields' in own)) shape.fields = fieldsArgument.optional();
  if (op.job) {
    if (!('wait' in own)) shape.wait = waitArgument.optional();
    if (op.job.cancel && !('cancel_on_abort' in own)) shape.cancel_on_abort = cancelOnAbortArgument(op.job.label).optional();
  }
  return shape;
}

const inputs = new WeakMap<Operation, z.ZodObject>();

/** The whole input of an operation's tool: its API arguments and its extras, one strict object. */
export function toolInput(op: Operation): z.ZodObject {
  let s = inputs.get(op);
  if (!s) {
    const extra = extrasShape(op);
    s = Object.keys(extra).length ? op.input.extend(extra) : op.input;
    inputs.set(op, s);
  }
  return s;
}

/** Validated arguments split into what goes to the API and what the MCP layer acts on. */
export function splitExtras(op: Operation, args: Record<string, unknown>): { api: Record<string, unknown>; extras: Extras } {
  const extra = extrasShape(op);
  const api: Record<string, unknown> = {};
  const extras: Extras = {};
  for (const [k, v] of Object.entries(args)) {
    if (!(k in extra)) api[k] = v;
    else if (v === undefined) continue;
    else if (k === 'fields') extras.fields = v as string[];
    else if (k === 'wait') extras.wait = v as boolean | number;
    else if (k === 'cancel_on_abort') extras.cancelOnAbort = v as boolean;
  }
  return { api, extras };
}
