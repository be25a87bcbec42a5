// The concise form of an answer (response_format "concise", the default): what the model needs to
// understand and act on the records, without what only an auditor or a program reads. Applied to the
// text copy only; structuredContent keeps the records whole, and "detailed" shows everything.
//
// Left out, each named in the answer's note (so nothing goes missing silently):
// - audit fields: created_at, updated_at and deleted_at, who did something (`*_by`) and when
//   (the `*_at` paired with a `*_by`), and the analysis run that produced a record (`*run_id`).
//   A single record keeps its own updated_at: writes such as update_deliverable_document echo it.
// - references no operation can address (`process_id`, `owner_id`: no path takes a process or an
//   owner), which a reader cannot use; references to what a tool can read (`session_ids`,
//   `finding_ids`, `interview_id`) stay.
// - in the rows of a list answer (a page), nested lists of records (a finding's evidences) are
//   replaced by their count (`evidences_count`): a page of findings reads as one table, and the note
//   says how to expand. A single record (get_finding) shows its nested records in full.
// A field named in `fields` is always shown, whatever the rules above say.
// An operation's render facet has the last word on its own records: the fields it keeps are shown
// whatever the rules say, and the objects it flattens read as columns (`author.name`), not inline JSON.

import { catalog } from '../../../catalog/index.js';
import { pathParams, type RenderFacet } from '../../operation.js';

export type ResponseFormat = 'concise' | 'detailed';
export const RESPONSE_FORMATS: readonly ResponseFormat[] = ['concise', 'detailed'];
export const DEFAULT_RESPONSE_FORMAT: ResponseFormat = 'concise';

/** Suffix of a field that replaces a nested list of records by its count. */
export const COUNT_SUFFIX = '_count';

export interface ConciseOptions {
  /** Dotted field names the caller asked for (`fields`): never left out or counted. */
  requested?: readonly string[];
  /** The operation's render facet. */
  render?: RenderFacet;
}

export interface Concise {
  value: unknown;
  /**
   * Fields left out (audit fields, references no tool addresses), in first-seen order: by name in a
   * list's rows, by dotted path inside a record (`evidences.created_at`), as `fields` names them.
   */
  leftOut: string[];
  /** Fields whose nested records were replaced by their count. */
  counted: string[];
}

let addressable: ReadonlySet<string> | undefined;

/** What an operation path can address (`{finding}`, `{session}`, ...): the catalog's path parameters. */
function addressableKinds(): ReadonlySet<string> {
  addressable ??= new Set(catalog.flatMap((op) => pathParams(op.path)));
  return addressable;
}

const STAMPS = new Set(['created_at', 'updated_at', 'deleted_at']);

/** What a field's name says of it, whatever record it is in: one of the four kinds below. */
type FieldKind = typeof PLAIN | typeof AUDIT | typeof AUDIT_IF_AUTHORED | typeof DEAD_REFERENCE;
const PLAIN = 0;
/** Who did something (`*_by`), a stamp (created_at...), or the run that produced the record. */
const AUDIT = 1;
/** A `*_at`: an audit field in a record that also says who did it (the matching `*_by`). */
const AUDIT_IF_AUTHORED = 2;
/** A reference no operation can address. */
const DEAD_REFERENCE = 3;

/**
 * Kinds by field name, worked out once per name: the same few dozen names recur on every record of
 * every answer, and working them out (a handful of string tests and slices) was a third of the time
 * the concise form took. A number, not an object: rules kept as objects made rendering a page
 * allocate more than it saved. Bounded, as the names come from the API's answers.
 */
const kinds = new Map<string, FieldKind>();
const MAX_KINDS = 2_000;

function kindOf(name: string): FieldKind {
  let kind = kinds.get(name);
  if (kind === undefined) {
    if (STAMPS.has(name) || name.endsWith('_by') || name === 'run_id' || name.endsWith('_run_id')) kind = AUDIT;
    else if (name.endsWith('_at')) kind = AUDIT_IF_AUTHORED;
    else kind = isDeadReference(name) ? DEAD_REFERENCE : PLAIN;
    if (kinds.size < MAX_KINDS) kinds.set(name, kind);
  }
  return kind;
}

/** An audit field of `rec`: who and when, or the run that produced it. */
function isAuditField(name: string, kind: FieldKind, rec: Record<string, unknown>): boolean {
  return kind === AUDIT || (kind === AUDIT_IF_AUTHORED && `${name.slice(0, -3)}_by` in rec);
}

/** `process_id`, `owner_id`: a reference to something no operation reads, so no use to a reader. */
function isDeadReference(key: string): boolean {
  // The kind is the last word before `_id` or `_ids` (`analysis_run_id`: run).
  const end = key.endsWith('_id') ? key.length - 3 : key.endsWith('_ids') ? key.length - 4 : 0;
  if (end <= 0) return false;
  const kind = key.slice(key.lastIndexOf('_', end - 1) + 1, end);
  return !addressableKinds().has(kind);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function isRecordList(v: unknown): v is unknown[] {
  return Array.isArray(v) && v.length > 0 && v.some(isRecord);
}

/** The concise form of an answer's data (see the module comment). */
export function concise(value: unknown, opts: ConciseOptions = {}): Concise {
  const leftOut = new Set<string>();
  const counted = new Set<string>();
  const requested = opts.requested ?? [];
  // Asked for: named, or on the way to a named field (`evidences` for `evidences.excerpt`).
  // Asked of every key: with nothing requested (the usual call), no closure is made for `some`.
  const asked = (path: string) => requested.length > 0 && requested.some((r) => r === path || r.startsWith(`${path}.`));
  const keep = opts.render?.keep ?? [];
  const flatten = opts.render?.flatten ?? [];

  /** The record with each field the facet flattens replaced by its own fields, named `field.sub`. */
  const flat = (v: Record<string, unknown>): Record<string, unknown> => {
    if (flatten.length === 0 || !flatten.some((k) => isRecord(v[k]))) return v;
    const out: Record<string, unknown> = {};
    for (const k in v) {
      const x = v[k];
      if (flatten.includes(k) && isRecord(x)) for (const sub in x) out[`${k}.${sub}`] = x[sub];
      else out[k] = x;
    }
    return out;
  };

  // `row`: the record is an item of the answer's own list, whose nested record lists are counted.
  // `top`: the answer's own record (a get), which keeps its updated_at.
  const walk = (v: unknown, path: string, row: boolean, top: boolean): unknown => {
    if (Array.isArray(v)) return v.map((x) => walk(x, path, false, false));
    if (!isRecord(v)) return v;
    const out: Record<string, unknown> = {};
    const rec = flat(v);
    for (const k in rec) {
      const x = rec[k];
      const p = path ? `${path}.${k}` : k;
      if (asked(p)) {
        out[k] = walk(x, p, false, false);
        continue;
      }
      if (x === null || x === undefined) continue;
      // A flattened field is judged by its own name (`author.created_at`: created_at).
      const name = k.slice(k.lastIndexOf('.') + 1);
      const kind = kindOf(name);
      if (!keep.includes(name) && ((isAuditField(name, kind, rec) && !(top && name === 'updated_at')) || kind === DEAD_REFERENCE)) {
        leftOut.add(p);
        continue;
      }
      if (row && isRecordList(x)) {
        out[`${k}${COUNT_SUFFIX}`] = x.length;
        counted.add(k);
        continue;
      }
      out[k] = walk(x, p, false, false);
    }
    return out;
  };
  // A list's items are rows; a single record is the answer's own (`top`).
  const out = Array.isArray(value) ? value.map((x) => walk(x, '', true, false)) : walk(value, '', false, true);
  return { value: out, leftOut: [...leftOut], counted: [...counted] };
}
