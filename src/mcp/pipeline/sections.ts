// What workflow tools share. A workflow answers in one call what an assistant would otherwise do in
// five to fifty. Each runs its inner operations through the pipeline (`invoke`: the same policy,
// validation, rate budget and retries as a direct call), reads in parallel, writes one after another,
// and every part that failed is reported, never silently left out. The pipeline validates their own
// arguments and marks their results as workspace content.
import { WorkspaceApiError } from '../../api/errors.js';
import { type ToolResult, toolError } from '../render/index.js';
import type { Pipeline } from './pipeline.js';

type Json = Record<string, unknown>;

export interface WorkflowDeps {
  pipeline: Pipeline;
  /** WORKSPACE_RESPONSE_BUDGET, for the workflow's own answer. */
  budget: number;
}

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

export function errorText(err: unknown): string {
  if (err instanceof WorkspaceApiError) return `HTTP ${err.status} ${err.code}: ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}

export function countBy(items: Json[], key: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const it of items) {
    const k = String(it[key] ?? 'unknown');
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

/** What the model is told when `engagement` is not in the workspace, with how to find the right id. */
const engagementNotFound = (engagement: string) =>
  `Engagement ${engagement} was not found in this workspace (given as engagement). List engagements (list_engagements) to find its id.`;

/** A failed section that is a 404: what an unknown engagement makes of every section. */
const notFound = (x: unknown) => x !== null && typeof x === 'object' && 'error' in x && String(x.error).startsWith('HTTP 404');

/**
 * The tool's error when its sections could not be read: the engagement is unknown when each of
 * `sections` failed with a 404 (a 404 on everything is an unknown engagement, not several failures);
 * undefined when at least one was read.
 */
export function sectionsFailed(engagement: string, sections: readonly unknown[]): ToolResult | undefined {
  if (sections.length && sections.every(notFound)) return toolError(engagementNotFound(engagement), { code: 'not_found' });
  return undefined;
}

/** The tool's error when the one read it cannot do without failed (`what`: "list the findings"). */
export function readFailed(engagement: string, what: string, failed: { error: string }): ToolResult {
  return sectionsFailed(engagement, [failed]) ?? toolError(`Could not ${what}: ${failed.error}`, { code: 'read_failed' });
}

/** Settled sections: a failed part is reported in place, the others still answer. */
export async function section<T>(f: () => Promise<T>): Promise<T | { error: string }> {
  try {
    return await f();
  } catch (err) {
    return { error: errorText(err) };
  }
}

/** The statuses of a contradiction still to settle. */
export const OPEN = new Set(['open', 'pending', 'unresolved']);
