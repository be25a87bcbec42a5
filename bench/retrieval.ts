// How well find_operations finds what consultants ask for: the share of each request set whose right
// operation is among the first three matches. Fifteen sets (test/mcp/retrieval-sets): eight the ranking
// is tuned on (requests phrased around the API's objects, requests phrased by the outcome wanted,
// situations in every area, the shapes of requests a blind set missed, everyday verbs and nouns for the
// API's actions and objects, and three blind sets once they had been measured), and seven held out,
// each written before the tuning it measures and never tuned on. A request no operation answers (no expected operation) counts when the search says it has
// no strong match; a request some operation answers that the search calls weak is counted apart (a
// doubt where none was due), so the weak rule is tuned against both. The ranking is the
// server's own index over the operations a workspace like the sandbox offers; test/mcp/retrieval.test.ts
// measures the same through find_operations over MCP and checks the two agree, and docs/tools.md quotes
// these figures (scripts/generate-docs.ts). Run: `npx tsx bench/retrieval.ts`. Held-out misses are
// never printed: whoever tunes the ranking must not tune it on them. The command line also asks the
// catalog's askedAs phrases of indexes that do not hold them (heldOutPhrases): the largest measure of
// how a ranking does on phrasings it has not seen, to compare two rankings on.
import { readFileSync } from 'node:fs';
import { OperationIndex } from '../src/mcp/operations/search.js';
import { sandboxOperations } from './tokens.js';

export interface RetrievalRequest {
  query: string;
  /** Every operation that does the job; none when no operation does it (the search must say it has no strong match). */
  expected: string[];
  area?: string;
}

export const RETRIEVAL_SETS = {
  tuning: { file: 'tuning.json', label: 'tuned on', heldOut: false },
  heldOutFirst: { file: 'held-out-first.json', label: 'first held-out set', heldOut: true },
  heldOutConsultants: { file: 'held-out-consultants.json', label: "consultants' held-out set", heldOut: true },
  outcomes: { file: 'outcomes.json', label: 'outcome-phrased, tuned on', heldOut: false },
  heldOutOutcomes: { file: 'held-out-outcomes.json', label: 'outcome-phrased held-out set', heldOut: true },
  situations: { file: 'situations.json', label: 'situations in every area, tuned on', heldOut: false },
  heldOutSituations: { file: 'held-out-situations.json', label: 'situations held-out set', heldOut: true },
  shapes: { file: 'shapes.json', label: 'shapes a blind set missed, tuned on', heldOut: false },
  heldOutShapes: { file: 'held-out-shapes.json', label: 'shapes held-out set', heldOut: true },
  everyday: { file: 'everyday.json', label: 'everyday words, tuned on', heldOut: false },
  heldOutEveryday: { file: 'held-out-everyday.json', label: 'everyday words held-out set', heldOut: true },
  blindFirst: { file: 'blind-first.json', label: 'first blind set, tuned on once measured', heldOut: false },
  blindSecond: { file: 'blind-second.json', label: 'second blind set, tuned on once measured', heldOut: false },
  blindThird: { file: 'blind-third.json', label: 'third blind set, tuned on once measured', heldOut: false },
  heldOutBlindFourth: { file: 'held-out-blind-fourth.json', label: 'fourth blind set (from the spec alone)', heldOut: true },
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
  /** Requests some operation answers, and how many of them have it in the top 3. */
  answerable: { hits: number; total: number };
  /** Requests some operation answers that the search called weak ("no strong match"): a doubt shown where none was due. */
  doubted: number;
  /** Requests no operation answers, and how many of them got "no strong match". */
  unanswerable: { hits: number; total: number };
  /** Requests missed, with what came instead (empty for a held-out set unless asked). */
  misses: string[];
}

/** What a search answered one request: the operations' names, best first, and whether it said no match was strong. */
export interface Found {
  names: readonly string[];
  weak?: boolean;
}

/** The search found what the request asks: its operation in the list, or, when no operation does it, no strong match. */
export function hit(r: RetrievalRequest, found: Found): boolean {
  return r.expected.length ? found.names.some((n) => r.expected.includes(n)) : found.weak === true;
}

const missLine = (r: RetrievalRequest, found: Found) =>
  `${r.query} -> expected ${r.expected.length ? r.expected.join(' or ') : 'no strong match'}, got ${found.weak ? '(no strong match) ' : ''}${found.names.join(', ')}`;

/** Score one set against a search, best first. */
export async function score(
  requests: readonly RetrievalRequest[],
  search: (query: string) => Found | Promise<Found>,
  showMisses: boolean,
): Promise<RetrievalScore> {
  const found: Found[] = [];
  for (const r of requests) found.push(await search(r.query));
  return tally(requests, found, showMisses);
}

/** The counts of one set, from what the search found for each of its requests. */
function tally(requests: readonly RetrievalRequest[], found: readonly Found[], showMisses: boolean): RetrievalScore {
  const at = (i: number) => found[i] as Found;
  const answerable = requests.flatMap((r, i) => (r.expected.length ? [i] : []));
  const unanswerable = requests.flatMap((r, i) => (r.expected.length ? [] : [i]));
  const hits = (ix: number[]) => ix.filter((i) => hit(requests[i] as RetrievalRequest, at(i))).length;
  return {
    hits: hits(answerable) + hits(unanswerable),
    total: requests.length,
    answerable: { hits: hits(answerable), total: answerable.length },
    doubted: answerable.filter((i) => at(i).weak === true).length,
    unanswerable: { hits: hits(unanswerable), total: unanswerable.length },
    misses: showMisses ? requests.flatMap((r, i) => (hit(r, at(i)) ? [] : [missLine(r, at(i))])) : [],
  };
}

/** Requests whose right operation a found list holds (a list that cannot say "no strong match": requests no operation answers count as missed). */
export function hitsOf(requests: readonly RetrievalRequest[], found: readonly (readonly string[])[]): number {
  return requests.filter((r, i) => hit(r, { names: found[i] ?? [] })).length;
}

let figures: Record<RetrievalSetName, RetrievalScore> | undefined;
/** Each set's top-3 score with the server's ranking, computed once per process (in-process: the figures docs/tools.md quotes). */
export function retrievalFigures(): Record<RetrievalSetName, RetrievalScore> {
  if (figures) return figures;
  const index = new OperationIndex(sandboxOperations());
  const out = {} as Record<RetrievalSetName, RetrievalScore>;
  for (const name of Object.keys(RETRIEVAL_SETS) as RetrievalSetName[]) {
    const set = retrievalSet(name);
    const found = set.map((r): Found => {
      const { matches, strong } = index.find(r.query, { limit: RETRIEVAL_TOP });
      return { names: matches.map((m) => m.op.name), weak: !strong };
    });
    out[name] = tally(set, found, !RETRIEVAL_SETS[name].heldOut);
  }
  figures = out;
  return out;
}

/**
 * The catalog's own askedAs phrases as requests, each asked of an index that does not hold it: the
 * phrases are dealt into five folds, and each fold is held out of the index its requests are asked of.
 * Twelve hundred phrasings the ranking has never seen, more than every set together, to compare two
 * rankings on (their operation is in the phrase's entry, and no expression was written for them).
 * Printed by the command line only: it builds five indexes.
 */
export function heldOutPhrases(): { hits: number; total: number } {
  const ops = sandboxOperations();
  const phrases = ops.flatMap((op) => (['en', 'fr'] as const).flatMap((lang) => (op.askedAs?.[lang] ?? []).map((text) => ({ op: op.name, lang, text }))));
  const FOLDS = 5;
  let hits = 0;
  for (let fold = 0; fold < FOLDS; fold++) {
    const held = new Set(phrases.filter((_, i) => i % FOLDS === fold));
    const kept = (name: string, lang: 'en' | 'fr', list: readonly string[] = []) =>
      list.filter((text) => ![...held].some((h) => h.op === name && h.lang === lang && h.text === text));
    const index = new OperationIndex(
      ops.map((op) => (op.askedAs ? { ...op, askedAs: { en: kept(op.name, 'en', op.askedAs.en), fr: kept(op.name, 'fr', op.askedAs.fr) } } : op)),
    );
    for (const h of held) if (index.search(h.text, { limit: RETRIEVAL_TOP }).some((m) => m.op.name === h.op)) hits++;
  }
  return { hits, total: phrases.length };
}

export const percent = (s: RetrievalScore) => `${((s.hits / s.total) * 100).toFixed(1)}%`;

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/').split('/').pop() ?? '\0')) {
  const all = retrievalFigures();
  for (const name of Object.keys(RETRIEVAL_SETS) as RetrievalSetName[]) {
    const s = all[name];
    const split = s.unanswerable.total
      ? `; answerable ${s.answerable.hits}/${s.answerable.total}, ${s.doubted} of them called weak; no operation ${s.unanswerable.hits}/${s.unanswerable.total} called weak`
      : s.doubted
        ? `; ${s.doubted} called weak`
        : '';
    process.stdout.write(`${RETRIEVAL_SETS[name].label}: ${s.hits}/${s.total} in the top ${RETRIEVAL_TOP} (${percent(s)})${split}\n`);
    for (const m of s.misses) process.stdout.write(`  miss: ${m}\n`);
  }
  const p = heldOutPhrases();
  process.stdout.write(
    `askedAs phrases, each held out of the index it is asked of: ${p.hits}/${p.total} in the top ${RETRIEVAL_TOP} (${((p.hits / p.total) * 100).toFixed(1)}%)\n`,
  );
}
