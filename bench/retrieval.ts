// How well find_operations finds what consultants ask for: the share of each request set whose right
// operation is among the first three matches. Three sets (test/mcp/retrieval-sets): the one the ranking
// is tuned on, and two held out, each written before any tuning and never tuned on. The ranking is the
// server's own index over the operations a workspace like the sandbox offers; test/mcp/retrieval.test.ts
// measures the same through find_operations over MCP and checks the two agree, and docs/tools.md quotes
// these figures (scripts/generate-docs.ts). Run: `npx tsx bench/retrieval.ts`. Held-out misses are
// never printed: whoever tunes the ranking must not tune it on them.
import { readFileSync } from 'node:fs';
import { OperationIndex } from '../src/mcp/operations/search.js';
import { sandboxOperations } from './tokens.js';

export interface RetrievalRequest {
  query: string;
  /** Every operation that does the job. */
  expected: string[];
  area?: string;
}

export const RETRIEVAL_SETS = {
  tuning: { file: 'tuning.json', label: 'tuned on', heldOut: false },
  heldOutFirst: { file: 'held-out-first.json', label: 'first held-out set', heldOut: true },
  heldOutConsultants: { file: 'held-out-consultants.json', label: "consultants' held-out set", heldOut: true },
} as const;
export type RetrievalSetName = keyof typeof RETRIEVAL_SETS;

/** The top-3 of find_operations is what the figures count. */
export const RETRIEVAL_TOP = 3;

export function retrievalSet(name: RetrievalSetName): RetrievalRequest[] {
  const url = new URL(`../test/mcp/retrieval-sets/${RETRIEVAL_SETS[name].file}`, import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { requests: RetrievalRequest[] }).requests;
}

export interface RetrievalScore {
  hits: number;
  total: number;
  /** Requests missed, with what came instead (empty for a held-out set unless asked). */
  misses: string[];
}

/** Score one set against a search that answers operation names, best first. */
export async function score(
  requests: readonly RetrievalRequest[],
  search: (query: string) => string[] | Promise<string[]>,
  showMisses: boolean,
): Promise<RetrievalScore> {
  const misses: string[] = [];
  let hits = 0;
  for (const r of requests) {
    const found = await search(r.query);
    if (found.some((n) => r.expected.includes(n))) hits++;
    else if (showMisses) misses.push(`${r.query} -> expected ${r.expected.join(' or ')}, got ${found.join(', ')}`);
  }
  return { hits, total: requests.length, misses };
}

/** Requests whose right operation a found list holds. */
export function hitsOf(requests: readonly RetrievalRequest[], found: readonly (readonly string[])[]): number {
  return requests.filter((r, i) => (found[i] ?? []).some((n) => r.expected.includes(n))).length;
}

let figures: Record<RetrievalSetName, RetrievalScore> | undefined;
/** Each set's top-3 score with the server's ranking, computed once per process (in-process: the figures docs/tools.md quotes). */
export function retrievalFigures(): Record<RetrievalSetName, RetrievalScore> {
  if (figures) return figures;
  const index = new OperationIndex(sandboxOperations());
  const out = {} as Record<RetrievalSetName, RetrievalScore>;
  for (const name of Object.keys(RETRIEVAL_SETS) as RetrievalSetName[]) {
    const set = retrievalSet(name);
    const found = set.map((r) => index.search(r.query, { limit: RETRIEVAL_TOP }).map((m) => m.op.name));
    const misses = RETRIEVAL_SETS[name].heldOut
      ? []
      : set.flatMap((r, i) => (hitsOf([r], [found[i] ?? []]) ? [] : [`${r.query} -> expected ${r.expected.join(' or ')}, got ${(found[i] ?? []).join(', ')}`]));
    out[name] = { hits: hitsOf(set, found), total: set.length, misses };
  }
  figures = out;
  return out;
}

export const percent = (s: RetrievalScore) => `${((s.hits / s.total) * 100).toFixed(1)}%`;

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/').split('/').pop() ?? '\0')) {
  const all = retrievalFigures();
  for (const name of Object.keys(RETRIEVAL_SETS) as RetrievalSetName[]) {
    const s = all[name];
    process.stdout.write(`${RETRIEVAL_SETS[name].label}: ${s.hits}/${s.total} in the top ${RETRIEVAL_TOP} (${percent(s)})\n`);
    for (const m of s.misses) process.stdout.write(`  miss: ${m}\n`);
  }
}
