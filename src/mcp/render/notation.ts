// The text notation of the concise form: a record as `key: value` lines, a list of alike records as
// one table (its name, row count and columns once, then one row per record, cells between `|`), in
// the manner of TOON (token-oriented object notation). Nested records indent by two spaces. A
// column with the same value in every row of a longer table is written once, after the columns.
//
//   findings[3]{id|type|statement|review_status|evidences_count} all with origin=analysis:
//   01M2FEW76J6CGV9AZ9YR1REGGA|re_entry|Les factures reçues en PDF sont ressaisies…|validated|2
//   01M2FEW76N6B6TX7BX92JGJE3G|volume|Environ 1 800 factures fournisseurs par mois…|validated|1
//   01M2FEW76QRS6HDMDPDZZKC9G9|duration|La ressaisie prend 4 à 6 minutes par facture…|proposed|2
//
// Why this form: of the notations compared on a page of findings of the demo engagement in o200k
// tokens (JSON, JSON lines, JSON arrays with a header row, CSV, a Markdown table, TOON with commas,
// tab-separated), it costs the least with tab-separated, whose tabs are invisible to a person reading a
// transcript and mangled by some clients; CSV pays for quoting every statement with a comma, a Markdown
// table for its padding and rule line. Cells: a string on one line (`\n` for a newline, `\|` for the delimiter), nested records
// as compact JSON, lists of plain values as `[a,b]`; an empty cell is an absent field.

const DELIMITER = '|';

/** A list whose records fill less of the table than this is written record by record instead. */
const MIN_TABLE_FILL = 0.5;

const PLAIN = /^[^\s,[\]|"\\]+$/;

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Values written bare inside `[a,b]`: numbers, booleans, and one-word strings (ids, enum values). */
function isPlain(v: unknown): boolean {
  return typeof v === 'number' || typeof v === 'boolean' || (typeof v === 'string' && PLAIN.test(v));
}

function oneLine(s: string): string {
  return s.includes('\n') || s.includes('\r') ? s.replace(/\r\n?|\n/g, '\\n') : s;
}

/** A value where the notation holds one line: a record line's value or a table cell. */
function inline(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return oneLine(v);
  if (typeof v !== 'object') return String(v);
  if (Array.isArray(v) && v.every(isPlain)) return `[${v.join(',')}]`;
  return JSON.stringify(v);
}

function cell(v: unknown): string {
  const s = inline(v);
  return s.includes(DELIMITER) ? s.replaceAll(DELIMITER, `\\${DELIMITER}`) : s;
}

/**
 * The columns of a table of these items, or undefined when they are not alike records: all records,
 * filling at least half of the table their keys make. Every key in first-seen order, `id` first (the
 * handle a reader acts on). One pass gathers and counts the keys: this runs on every list answered.
 */
function tableColumns(items: readonly unknown[]): string[] | undefined {
  if (!items.length) return undefined;
  const seen = new Set<string>();
  let filled = 0;
  for (const r of items) {
    if (!isRecord(r)) return undefined;
    for (const k in r) {
      seen.add(k);
      filled++;
    }
  }
  if (seen.size === 0 || filled / (seen.size * items.length) < MIN_TABLE_FILL) return undefined;
  const cols = [...seen];
  const at = cols.indexOf('id');
  if (at > 0) cols.unshift(...cols.splice(at, 1));
  return cols;
}

/**
 * Columns holding the same plain value in every row of a table of three rows or more (a transcript's
 * engagement_id and locale): written once in the head (`all with locale=fr`) instead of in each row.
 * Each comes with its value.
 */
function sharedColumns(rows: readonly Record<string, unknown>[], cols: readonly string[]): [column: string, value: unknown][] {
  const first = rows[0];
  if (rows.length < 3 || first === undefined) return [];
  // Loops, not filter and every: a closure per column on every list answered.
  const shared: [column: string, value: unknown][] = [];
  for (const c of cols) {
    const value = first[c];
    if (c === 'id' || !isPlain(value)) continue;
    let same = true;
    for (const r of rows) {
      if (r[c] !== value) {
        same = false;
        break;
      }
    }
    if (same) shared.push([c, value]);
  }
  return shared;
}

/** A list in parts: its head line and one part per item (a row, or a record's lines), for cutting. */
interface ListParts {
  head: string;
  parts: string[];
}

/**
 * A list of records as a table, or one per line when they are not alike (document blocks of several
 * kinds). `indent` places the head, `rowIndent` the rows: a list nested in a record indents
 * its rows under its head; an answer's own list does not.
 */
export function listParts(name: string, items: readonly unknown[], indent = '', rowIndent = indent): ListParts {
  const all = tableColumns(items);
  if (all) {
    const rows = items as readonly Record<string, unknown>[];
    const same = sharedColumns(rows, all);
    const sameNames = same.map(([c]) => c);
    const cols = same.length ? all.filter((c) => !sameNames.includes(c)) : all;
    const shared = same.length ? ` all with ${same.map(([c, v]) => `${c}=${inline(v)}`).join(', ')}` : '';
    // A row is its cells between delimiters, written as one string (no array of cells to join).
    const parts = rows.map((r) => {
      let row = rowIndent;
      let sep = '';
      for (const c of cols) {
        row += sep + cell(r[c]);
        sep = DELIMITER;
      }
      return row;
    });
    return { head: `${indent}${name}[${items.length}]{${cols.join(DELIMITER)}}${shared}:`, parts };
  }
  // Records not alike (document blocks of several kinds): one JSON object per line. Measured on the
  // demo deliverable's blocks, in o200k tokens: a JSON array 2,427, this 2,490, `key: value` lines 2,589.
  return { head: `${indent}${name}[${items.length}]:`, parts: items.map((x) => `${rowIndent}- ${inline(x)}`) };
}

export function joinList(l: ListParts): string {
  return l.parts.length ? `${l.head}\n${l.parts.join('\n')}` : l.head;
}

function keysIdFirst(rec: Record<string, unknown>): string[] {
  const keys = Object.keys(rec);
  const at = keys.indexOf('id');
  if (at > 0) keys.unshift(...keys.splice(at, 1));
  return keys;
}

/** A record as lines: `key: value`, nested records indented, lists of records as tables. */
function recordLines(rec: Record<string, unknown>, indent = ''): string[] {
  const lines: string[] = [];
  for (const k of keysIdFirst(rec)) {
    const v = rec[k];
    if (v === undefined) continue;
    if (isRecord(v)) {
      lines.push(`${indent}${k}:`, ...recordLines(v, `${indent}  `));
    } else if (Array.isArray(v) && v.length && !v.every(isPlain)) {
      lines.push(joinList(listParts(k, v, indent, `${indent}  `)));
    } else {
      lines.push(`${indent}${k}: ${inline(v)}`);
    }
  }
  return lines;
}

/** Any answer's data in the notation: a list as a table (or records), a record as lines, a value as is. */
export function formatValue(value: unknown, name = 'items'): string {
  if (Array.isArray(value)) return joinList(listParts(name, value));
  if (isRecord(value)) return recordLines(value).join('\n');
  return inline(value);
}
