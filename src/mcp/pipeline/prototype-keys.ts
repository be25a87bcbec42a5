// Keys that name or reach an object's prototype (`__proto__`, `constructor`, `prototype`) are refused
// by name in tool arguments (src/mcp/pipeline/arguments.ts). JSON.parse keeps `__proto__` as an own key, but
// the SDK copies a call's arguments by assignment when it validates the request, which turns
// `"__proto__": {...}` into the copy's prototype and drops `"__proto__": false` without a trace; the
// call would then run as if the key had never been sent. So the message guard, which sees the
// arguments as parsed from the wire, renames such keys to a marked form no assignment interprets,
// and the reader names them as they were sent.

const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** A NUL cannot start a key any client means to send, and survives every copy. */
const MARK = '\u0000';

/** The key as it was sent, when it is a marked prototype key; else the key itself. */
export function sentKey(key: string): string {
  return key.startsWith(MARK) && PROTOTYPE_KEYS.has(key.slice(1)) ? key.slice(1) : key;
}

/** Whether the key (as sent) names a prototype. */
export function isPrototypeKey(key: string): boolean {
  return PROTOTYPE_KEYS.has(sentKey(key));
}

/**
 * A copy of `value` with every own prototype key renamed to its marked form, or `value` itself when it
 * has none (the usual case: nothing is copied). Iterative, bounded by the guard's depth limit.
 */
export function markPrototypeKeys(value: unknown): unknown {
  if (!hasPrototypeKey(value)) return value;
  const copy = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object') return v;
    if (Array.isArray(v)) return v.map(copy);
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const k of Object.keys(v)) out[PROTOTYPE_KEYS.has(k) ? MARK + k : k] = copy((v as Record<string, unknown>)[k]);
    return Object.assign({}, out);
  };
  return copy(value);
}

function hasPrototypeKey(root: unknown): boolean {
  const stack: unknown[] = [root];
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      stack.push(...v);
      continue;
    }
    for (const k of Object.keys(v)) {
      if (PROTOTYPE_KEYS.has(k)) return true;
      stack.push((v as Record<string, unknown>)[k]);
    }
  }
  return false;
}
