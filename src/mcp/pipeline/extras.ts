// The MCP layer's own arguments, beside an operation's API arguments: never sent to the API, declared
// once here so every tool that takes them lists, validates and strips them the same way.
// - fields: keep only these fields of each record (lists);
// - response_format: concise (the default) or detailed (every field), on reads answering records;
// - wait, cancel_on_abort: how a tool that starts a job follows it (operations with a job facet).
import { z } from 'zod';
import type { Operation } from '../../operation.js';
import { RESPONSE_FORMATS, type ResponseFormat } from '../render/concise.js';

/** What it is and how it reads is said once, in the server instructions, not on each of the list tools. */
const fieldsArgument = z.array(z.string().min(1)).min(1);

/**
 * One type, seconds: a multi-type union does not convert in every client (Gemini's subset). Models
 * send true and false all the same: `readExtrasAsSent` reads them (true: the default wait; false: 0).
 */
const waitArgument = z.number().min(0).max(600).describe('seconds to follow the job before answering; 0: answer at once');

/** The two words say it; the answers' notes explain the difference where it matters. */
const responseFormatArgument = z.enum(RESPONSE_FORMATS as [ResponseFormat, ...ResponseFormat[]]);

const cancelOnAbortArgument = (label: string) => z.boolean().describe(`Cancel the ${label} if this call is cancelled`);

/** What the extras of one call asked for, taken off the API arguments. */
export interface Extras {
  fields?: string[];
  format?: ResponseFormat;
  /** Seconds to follow instead of WORKSPACE_JOB_WAIT_SECONDS (0: answer at once). */
  wait?: number;
  cancelOnAbort?: boolean;
}

/** A read answering records (a list or one record, not a file): what `response_format` applies to. */
function takesResponseFormat(op: Pick<Operation, 'method' | 'response'>): boolean {
  return op.method === 'GET' && op.response === 'json';
}

/** A list of records (not a file): what `fields` applies to. A single record is read whole. */
function answersRecords(op: Pick<Operation, 'response' | 'paginated'>): boolean {
  return op.response === 'json' && op.paginated;
}

const shapes = new WeakMap<Operation, z.ZodRawShape>();

/** The extras an operation's tool takes. An operation that has an argument of the same name keeps its own. */
export function extrasShape(op: Operation): z.ZodRawShape {
  let known = shapes.get(op);
  if (!known) {
    known = buildExtras(op);
    shapes.set(op, known);
  }
  return known;
}

function buildExtras(op: Operation): z.ZodRawShape {
  const own = op.input.shape;
  const shape: Record<string, z.ZodType> = {};
  if (answersRecords(op) && !('fields' in own)) shape.fields = fieldsArgument.optional();
  if (takesResponseFormat(op) && !('response_format' in own)) shape.response_format = responseFormatArgument.optional();
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

/**
 * Extras this operation's tool does not take, with why, for the refusal: a model may send them all
 * the same (cancel a job that cannot be, keep fields of a single record).
 */
export function extrasNotTaken(op: Operation): Record<string, string> {
  const shape = extrasShape(op);
  const own = op.input.shape;
  const out: Record<string, string> = {};
  if (!('fields' in shape) && !('fields' in own) && op.response === 'json') {
    out.fields = 'only list tools take fields (a single record is answered whole): leave it out';
  }
  if (!('response_format' in shape) && !('response_format' in own)) {
    out.response_format = 'only reads take response_format (an action answers in full): leave it out';
  }
  if (op.job && !('cancel_on_abort' in shape) && !('cancel_on_abort' in own)) {
    out.cancel_on_abort = `${/^[aeiou]/.test(op.job.label) ? 'an' : 'a'} ${op.job.label} cannot be cancelled; leave it out`;
  }
  return out;
}

/** The extras as models send them, before validation: `wait: true` (or "true") is the default wait, `false` is 0. */
export function readExtrasAsSent(op: Operation, raw: unknown): unknown {
  if (!op.job || raw === null || typeof raw !== 'object' || Array.isArray(raw) || !('wait' in extrasShape(op))) return raw;
  const given = (raw as Record<string, unknown>).wait;
  const wait = typeof given === 'string' && /^(true|false)$/i.test(given.trim()) ? given.trim().toLowerCase() === 'true' : given;
  if (typeof wait !== 'boolean') return raw;
  const { wait: _given, ...rest } = raw as Record<string, unknown>;
  return wait ? rest : { ...rest, wait: 0 };
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
    else if (k === 'response_format') extras.format = v as ResponseFormat;
    else if (k === 'wait') extras.wait = v as number;
    else if (k === 'cancel_on_abort') extras.cancelOnAbort = v as boolean;
  }
  return { api, extras };
}
