// Bounded answers. A tool result is read in full by the model, so one large answer can crowd out a
// whole conversation: text over the response budget (in o200k tokens, estimated: see tokens.ts) is
// cut at a record boundary, never mid-record, and the caller's note says how much was left out and
// the call that gets it.
import { DETAILED, type LeftOut, listText, recordText, type TextForm } from './text.js';
import { estimateTokens, fitsBudget } from './tokens.js';

interface ListCut extends LeftOut {
  shown: unknown[];
  text: string;
  /** Records of this page left out. */
  omitted: number;
  /** Their estimated tokens. */
  omittedTokens: number;
}

/** As many whole records as fit in `budget` tokens of text (at least one, cut if it alone is too big). */
export function boundList(items: readonly unknown[], budget: number, form: TextForm = DETAILED): ListCut {
  const t = listText(items, form);
  const left = { fields: t.fields, counted: t.counted };
  // Most pages fit: one estimate of the whole text.
  const whole = t.first(items.length);
  if (fitsBudget(whole, budget)) return { shown: items.slice(), text: whole, omitted: 0, omittedTokens: 0, ...left };
  const costs = t.pieces.map((p) => estimateTokens(p) + 1);
  let used = estimateTokens(t.first(0));
  // One cost per item (a ListText has one piece per item): the first always, then while they fit.
  let n = 0;
  for (const cost of costs) {
    if (n > 0 && used + cost > budget) break;
    used += cost;
    n++;
  }
  let omittedTokens = 0;
  for (const cost of costs.slice(n)) omittedTokens += cost;
  let text = t.first(n);
  // The re-framed head may name fewer columns; a last check keeps the bound exact, dropping the
  // shown items from the last down to the second.
  for (const cost of costs.slice(1, n).reverse()) {
    if (estimateTokens(text) <= budget) break;
    omittedTokens += cost;
    n--;
    text = t.first(n);
  }
  if (n === 1 && estimateTokens(text) > budget) text = cutText(text, budget);
  return { shown: items.slice(0, n), text, omitted: items.length - n, omittedTokens, ...left };
}

interface ObjectCut extends LeftOut {
  value: unknown;
  text: string;
  /** Where the cut was made: the list that lost records, how many it kept of how many. */
  cut?: { path: string; kept: number; total: number; omittedTokens: number };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The largest list inside a record (top level or one level down): where a cut loses the least. */
function largestList(obj: Record<string, unknown>): { path: string[]; items: unknown[] } | undefined {
  let best: { path: string[]; items: unknown[]; size: number } | undefined;
  const consider = (path: string[], v: unknown) => {
    if (!Array.isArray(v) || v.length < 2) return;
    const size = JSON.stringify(v).length;
    if (!best || size > best.size) best = { path, items: v, size };
  };
  for (const [k, v] of Object.entries(obj)) {
    consider([k], v);
    if (isRecord(v)) for (const [k2, v2] of Object.entries(v)) consider([k, k2], v2);
  }
  return best;
}

function withReplaced(obj: Record<string, unknown>, path: readonly string[], value: unknown): Record<string, unknown> {
  const [head, ...rest] = path as [string, ...string[]];
  return { ...obj, [head]: rest.length ? withReplaced(obj[head] as Record<string, unknown>, rest, value) : value };
}

/** One record within `budget` tokens: its largest list is cut to whole items; else the text at a line end. */
export function boundObject(value: unknown, budget: number, form: TextForm = DETAILED): ObjectCut {
  const full = recordText(value, form);
  const left = { fields: full.fields, counted: full.counted };
  if (fitsBudget(full.text, budget)) return { value, text: full.text, ...left };
  const fullTokens = estimateTokens(full.text);
  if (isRecord(value)) {
    const list = largestList(value);
    if (list) {
      // The most whole items that fit, by bisection over the record's text with the list cut.
      const textWith = (k: number) => recordText(withReplaced(value, list.path, list.items.slice(0, k)), form).text;
      let lo = 0;
      let hi = list.items.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (estimateTokens(textWith(mid)) <= budget) lo = mid;
        else hi = mid - 1;
      }
      const kept = Math.max(lo, 1);
      const cutValue = withReplaced(value, list.path, list.items.slice(0, kept));
      let text = textWith(kept);
      const tokens = estimateTokens(text);
      if (tokens > budget) text = cutText(text, budget);
      return {
        value: cutValue,
        text,
        ...left,
        cut: { path: list.path.join('.'), kept, total: list.items.length, omittedTokens: Math.max(0, fullTokens - Math.min(tokens, budget)) },
      };
    }
  }
  const text = cutText(full.text, budget);
  return { value, text, ...left, cut: { path: '', kept: text.length, total: full.text.length, omittedTokens: fullTokens - estimateTokens(text) } };
}

/** The text cut to `budget` tokens: at a line end when one is in the second half, else mid-line. */
export function cutText(text: string, budget: number): string {
  let used = 0;
  let end = 0;
  while (end < text.length) {
    const nl = text.indexOf('\n', end);
    const lineEnd = nl < 0 ? text.length : nl + 1;
    const cost = estimateTokens(text.slice(end, lineEnd));
    if (used + cost > budget) break;
    used += cost;
    end = lineEnd;
  }
  if (end >= text.length) return text;
  if (used >= budget / 2) return text.slice(0, end).replace(/\n$/, '');
  // One long line (a JSON record, a long paragraph): keep the share of it that fits.
  const line = text.slice(end, text.indexOf('\n', end) < 0 ? text.length : text.indexOf('\n', end));
  const share = Math.max(0, (budget - used) / Math.max(1, estimateTokens(line)));
  return text.slice(0, end) + line.slice(0, Math.floor(line.length * share * 0.95));
}

/** About how many tokens, said the way a person would read it. */
export function aboutTokens(n: number): string {
  return n >= 10_000 ? `about ${Math.round(n / 1000)}k tokens` : `about ${n} tokens`;
}
