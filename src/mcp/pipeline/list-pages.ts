// Walking a list operation page by page through the pipeline, for workflows that count or check
// against a whole list.
import type { Pipeline } from './pipeline.js';

type Json = Record<string, unknown>;

/** Every page of a list, up to `maxPages` of 200: enough for counts without an unbounded walk. */
export async function allPages(p: Pipeline, name: string, args: Json, signal: AbortSignal, maxPages = 5): Promise<{ items: Json[]; complete: boolean }> {
  const items: Json[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const r = await p.invoke(name, { ...args, limit: 200, ...(cursor ? { cursor } : {}) }, { signal });
    if (Array.isArray(r.data)) items.push(...(r.data as Json[]));
    const next = r.meta?.next_cursor;
    if (typeof next !== 'string' || !next) return { items, complete: true };
    cursor = next;
  }
  return { items, complete: false };
}
