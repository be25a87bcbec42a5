// What every text copy leaves out whatever its form (concise or detailed): empty fields and ids the
// reader already has. structuredContent keeps the API's data whole; this is only what the model reads.

/**
 * Drop null, undefined, empty strings, empty arrays and empty objects, and `*_id` fields naming an id
 * the reader already has (an argument of the call, such as the engagement, or the enclosing record,
 * such as a finding's evidences' finding_id). They cost tokens and say nothing.
 */
export function compact(value: unknown, known: readonly string[] = []): unknown {
  return compactWalk(value, known.slice());
}

// One pass, no intermediate arrays: `ids` is a stack of the ids in scope (pushed while walking a
// record's children). This runs on every result, so it avoids Object.entries and spreads.
function compactWalk(value: unknown, ids: string[]): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = compactWalk(value[i], ids);
    return out;
  }
  const rec = value as Record<string, unknown>;
  const id = typeof rec.id === 'string' ? rec.id : undefined;
  const out: Record<string, unknown> = {};
  for (const k in rec) {
    const v = rec[k];
    if (v === null || v === undefined || v === '') continue;
    if (typeof v !== 'object') {
      if (typeof v === 'string' && k.endsWith('_id') && ids.includes(v)) continue;
      out[k] = v;
      continue;
    }
    if (id !== undefined) ids.push(id);
    const c = compactWalk(v, ids);
    if (id !== undefined) ids.pop();
    if (Array.isArray(c) ? c.length === 0 : !hasKeys(c as object)) continue;
    out[k] = c;
  }
  return out;
}

function hasKeys(o: object): boolean {
  for (const _ in o) return true;
  return false;
}

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
