// The text copy of an answer's data, in either form: concise (the notation of notation.ts over the
// concise records of concise.ts) or detailed (compact JSON: every field but the empty ones).

import type { RenderFacet } from '../../operation.js';
import { type ConciseOptions, concise, type ResponseFormat } from './concise.js';
import { formatValue, joinList, listParts } from './notation.js';
import { compact } from './omissions.js';

export interface TextForm {
  format: ResponseFormat;
  /** Ids the reader already has (the call's path arguments): not repeated. */
  known?: readonly string[];
  /** Fields the caller named (`fields`): shown even where the concise form would leave them out. */
  requested?: readonly string[];
  /** What a list is called in the concise notation (`findings[22]{...}:`). */
  listName?: string;
  /** The operation's render facet (its records' own rules for the concise form). */
  render?: RenderFacet;
}

const conciseOptions = (form: TextForm): ConciseOptions => ({
  ...(form.requested ? { requested: form.requested } : {}),
  ...(form.render ? { render: form.render } : {}),
});

export const DETAILED: TextForm = { format: 'detailed' };

/** What the concise form left out of the text, for the note that says so. */
export interface LeftOut {
  fields: string[];
  counted: string[];
}

/** A list's text, in pieces that can be cut at a record boundary. */
export interface ListText extends LeftOut {
  /** One piece per item, in order. */
  pieces: string[];
  /** The text of the first `n` items (re-framed: the table's head counts and names what is shown). */
  first(n: number): string;
}

export function listText(items: readonly unknown[], form: TextForm): ListText {
  if (form.format === 'detailed') {
    const pieces = items.map((x) => JSON.stringify(compact(x, form.known)) ?? 'null');
    return { pieces, first: (n) => `[${pieces.slice(0, n).join(',')}]`, fields: [], counted: [] };
  }
  const c = concise(items, conciseOptions(form));
  const rows = compact(c.value, form.known) as unknown[];
  const name = form.listName ?? 'items';
  const whole = listParts(name, rows);
  return {
    pieces: whole.parts,
    first: (n) => (n === rows.length ? joinList(whole) : joinList(listParts(name, rows.slice(0, n)))),
    fields: c.leftOut,
    counted: c.counted,
  };
}

interface RecordText extends LeftOut {
  text: string;
}

export function recordText(value: unknown, form: TextForm): RecordText {
  if (form.format === 'detailed') return { text: JSON.stringify(compact(value, form.known)) ?? 'null', fields: [], counted: [] };
  const c = concise(value, conciseOptions(form));
  return { text: formatValue(compact(c.value, form.known), form.listName), fields: c.leftOut, counted: c.counted };
}
