// Bounded responses. A tool result is read in full by the model, so one large answer can crowd out a
// whole conversation: results above the budget are cut at a record boundary (never mid-record), and
// the note says how much was left out and how to get it.
import { compact } from './results.js';

/** Keep only the named fields of a record; `a.b` keeps `b` inside `a`. Unknown names are ignored. */
export function pickFields(value: unknown, fields: readonly string[]): unknown {
  if (Array.isArray(value)) return value.map((v) => pickFields(v, fields));
  if (value === null || typeof value !== 'object') return value;
  const rec = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const nested = new Map<string, string[]>();
  for (const f of fields) {
    const dot = f.indexOf('.');
    if (dot < 0) {
      if (f in rec) out[f] = rec[f];
    } else {
      const head = f.slice(0, dot);
      nested.set(head, [...(nested.get(head) ?? []), f.slice(dot + 1)]);
    }
  }
  for (const [head, rest] of nested) if (head in rec && !(head in out)) out[head] = pickFields(rec[head], rest);
  return out;
}

const render = (v: unknown, known: readonly string[] = []) => JSON.stringify(compact(v, known)) ?? 'null';

export interface ListCut {
  shown: unknown[];
  text: string;
  /** Records left out of this page. */
  omitted: number;
  omittedChars: number;
}

/** As many whole records as fit in `budget` characters of text (at least one, cut if it alone is too big). */
export function boundList(items: readonly unknown[], budget: number, known: readonly string[] = []): ListCut {
  // Most pages fit: one rendering of the whole page, the same text as the pieces joined below.
  const whole = render(items, known);
  if (whole.length <= budget) return { shown: items.slice(), text: whole, omitted: 0, omittedChars: 0 };
  const parts: string[] = [];
  let used = 2; // the brackets
  let i = 0;
  for (; i < items.length; i++) {
    const piece = render(items[i], known);
    if (used + piece.length + 1 > budget && i > 0) break;
    parts.push(piece);
    used += piece.length + 1;
  }
  let omittedChars = 0;
  for (let j = i; j < items.length; j++) omittedChars += render(items[j], known).length + 1;
  let text = `[${parts.join(',')}]`;
  // A single record larger than the budget is still cut, at its largest list, so the bound holds.
  if (text.length > budget && parts.length === 1) {
    const one = boundObject(items[0], budget - 2, known);
    text = `[${one.text}]`;
    return { shown: [one.value], text, omitted: items.length - 1, omittedChars };
  }
  return { shown: items.slice(0, i), text, omitted: items.length - i, omittedChars };
}

export interface ObjectCut {
  value: unknown;
  text: string;
  /** Where the cut was made: the list that lost records, how many it kept of how many. */
  cut?: { path: string; kept: number; total: number; omittedChars: number };
}

/** The largest list inside a record (top level or one level down): where a cut loses the least. */
function largestList(obj: Record<string, unknown>): { path: string[]; items: unknown[] } | undefined {
  let best: { path: string[]; items: unknown[]; size: number } | undefined;
  const consider = (path: string[], v: unknown) => {
    if (!Array.isArray(v) || v.length < 2) return;
    const size = render(v).length;
    if (!best || size > best.size) best = { path, items: v, size };
  };
  for (const [k, v] of Object.entries(obj)) {
    consider([k], v);
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      for (const [k2, v2] of Object.entries(v as Record<string, unknown>)) consider([k, k2], v2);
    }
  }
  return best;
}

function withReplaced(obj: Record<string, unknown>, path: string[], value: unknown): Record<string, unknown> {
  const [head, ...rest] = path as [string, ...string[]];
  return { ...obj, [head]: rest.length ? withReplaced(obj[head] as Record<string, unknown>, rest, value) : value };
}

/** One record within `budget`: its largest list is cut to whole items; a huge string is cut at a line end. */
export function boundObject(value: unknown, budget: number, known: readonly string[] = []): ObjectCut {
  const full = render(value, known);
  if (full.length <= budget) return { value, text: full };
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const list = largestList(value as Record<string, unknown>);
    if (list) {
      const rest = full.length - render(list.items, known).length;
      const inner = boundList(list.items, Math.max(budget - rest, 2), known);
      const cutValue = withReplaced(value as Record<string, unknown>, list.path, inner.shown);
      const text = render(cutValue, known);
      if (text.length <= budget || inner.shown.length <= 1) {
        return {
          value: cutValue,
          text: text.length <= budget ? text : cutText(text, budget),
          cut: { path: list.path.join('.'), kept: inner.shown.length, total: list.items.length, omittedChars: full.length - text.length },
        };
      }
    }
  }
  const text = cutText(full, budget);
  return { value, text, cut: { path: '', kept: text.length, total: full.length, omittedChars: full.length - text.length } };
}

function cutText(text: string, budget: number): string {
  const slice = text.slice(0, budget);
  const nl = slice.lastIndexOf('\\n');
  return nl > budget / 2 ? slice.slice(0, nl) : slice;
}

/** About how many characters, said the way a person would read it. */
export function aboutChars(n: number): string {
  return n >= 10_000 ? `about ${Math.round(n / 1000)}k characters` : `${n} characters`;
}
