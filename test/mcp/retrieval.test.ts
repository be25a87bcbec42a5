// find_operations against requests as consultants make them, in English and in French, ambiguous
// ones included. Fifteen sets, kept as data in test/mcp/retrieval-sets: eight the ranking is tuned on
// (requests phrased around the API's objects, requests phrased by the outcome wanted, situations in
// every area, the shapes of requests a blind set missed, everyday verbs and nouns for the API's
// actions and objects, and three blind sets once measured; their misses are printed, add to them
// freely), and seven held out, each written before the tuning it measures and never tuned on (only
// their hit rates are printed): the project's first held-out set, the consultants' set, written before
// the tuning on consultants' words, the outcome-phrased set, written before the tuning on outcomes, the
// situations set, drawn at random from the pool the tuned situations came from, before the ranking was
// made to generalise, the shapes set, the other half of the shapes pool, the everyday set, the other
// half of the everyday pool, and the fourth blind set, written from the API's specification alone. A
// request no operation answers counts when the answer says no match is strong; on the tuned sets, the
// share of such requests flagged and the share of answered requests wrongly called weak have floors
// of their own. Floors (top 3): tuned 98% and 95% (situations and shapes 85%, everyday words and
// the blind sets 80%), the first and consultants' held-out sets 90%, the outcome-phrased one 75%, the
// situations one and the blind one 80%, the shapes one 70% and the everyday one 60%, below what the
// ranking reaches, so a change that loses
// ground fails. The docs quote the current figures, which bench/retrieval.ts
// computes in-process; the test checks that they are what find_operations answers over MCP. A request
// with several right answers lists them all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Found,
  percent,
  RETRIEVAL_SETS,
  RETRIEVAL_TOP,
  type RetrievalRequest,
  type RetrievalScore,
  retrievalFigures,
  retrievalSet,
  score,
} from '../../bench/retrieval.js';
import { catalog } from '../../catalog/index.js';
import { type Stack, startStack, textOf } from '../helpers/stack.js';

const TUNING = retrievalSet('tuning');
const HELD_OUT = retrievalSet('heldOutFirst');
const CONSULTANTS = retrievalSet('heldOutConsultants');
const OUTCOMES = retrievalSet('outcomes');
const HELD_OUT_OUTCOMES = retrievalSet('heldOutOutcomes');
const SITUATIONS = retrievalSet('situations');
const HELD_OUT_SITUATIONS = retrievalSet('heldOutSituations');
const SHAPES = retrievalSet('shapes');
const HELD_OUT_SHAPES = retrievalSet('heldOutShapes');
const EVERYDAY = retrievalSet('everyday');
const HELD_OUT_EVERYDAY = retrievalSet('heldOutEveryday');
const BLIND_FIRST = retrievalSet('blindFirst');
const BLIND_SECOND = retrievalSet('blindSecond');
const BLIND_THIRD = retrievalSet('blindThird');
const BLIND_FOURTH = retrievalSet('heldOutBlindFourth');

const FRENCH = /[àâçéèêëîïôûùüÿœ’]|\b(les?|la|des|une?|du|de|au)\b/i;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ env: { WORKSPACE_TOOLSETS: 'default' } });
});
afterAll(async () => {
  await stack.close();
});

async function found(query: string, limit: number): Promise<Found> {
  const r = await stack.call('find_operations', { query, limit });
  const sc = r.structuredContent as { operations: { name: string }[]; weak?: boolean };
  return { names: sc.operations.map((o) => o.name), weak: sc.weak === true };
}

async function top(query: string, limit: number): Promise<readonly string[]> {
  return (await found(query, limit)).names;
}

/** One set through find_operations over MCP; misses printed only for the set tuned on. */
async function measured(set: readonly RetrievalRequest[], label: string, heldOut: boolean, limit = RETRIEVAL_TOP): Promise<RetrievalScore> {
  const s = await score(set, (q) => found(q, limit), !heldOut);
  const shown = s.misses.length ? `; misses:\n${s.misses.join('\n')}` : '';
  process.stderr.write(`retrieval, ${label}: ${s.hits}/${s.total} in the top ${limit} (${percent(s)})${shown}\n`);
  return s;
}

describe('find_operations retrieval', () => {
  it("tunes on at least 80 requests and holds out two sets, the consultants' one of 40 or more covering every area, in English and in French", () => {
    const all = [
      ...TUNING,
      ...HELD_OUT,
      ...CONSULTANTS,
      ...OUTCOMES,
      ...HELD_OUT_OUTCOMES,
      ...SITUATIONS,
      ...HELD_OUT_SITUATIONS,
      ...SHAPES,
      ...HELD_OUT_SHAPES,
      ...EVERYDAY,
      ...HELD_OUT_EVERYDAY,
      ...BLIND_FIRST,
      ...BLIND_SECOND,
      ...BLIND_THIRD,
      ...BLIND_FOURTH,
    ];
    expect(TUNING.length).toBeGreaterThanOrEqual(80);
    expect(HELD_OUT.length).toBeGreaterThanOrEqual(30);
    expect(CONSULTANTS.length).toBeGreaterThanOrEqual(40);
    for (const set of [
      TUNING,
      CONSULTANTS,
      OUTCOMES,
      HELD_OUT_OUTCOMES,
      SITUATIONS,
      HELD_OUT_SITUATIONS,
      SHAPES,
      HELD_OUT_SHAPES,
      EVERYDAY,
      HELD_OUT_EVERYDAY,
    ]) {
      expect(set.filter((r) => FRENCH.test(r.query)).length).toBeGreaterThanOrEqual(set.length / 4);
      expect(set.filter((r) => !FRENCH.test(r.query)).length).toBeGreaterThanOrEqual(set.length / 4);
    }
    // Every area of the API, in the consultants' set, asked for an operation that is one of that area's.
    const names = new Map(catalog.map((o) => [o.name, o.toolset as string]));
    expect(new Set(CONSULTANTS.map((r) => r.area))).toEqual(new Set(catalog.map((o) => o.toolset)));
    for (const r of CONSULTANTS) for (const e of r.expected) expect(names.get(e), `${r.query}: ${e}`).toBe(r.area);
    for (const r of all) for (const e of r.expected) expect(names.has(e), `${r.query}: ${e}`).toBe(true);
    // No request is in two sets (nor twice in one): a held-out request tuned on would not be held out.
    expect(new Set(all.map((r) => r.query.toLowerCase())).size).toBe(all.length);
  });

  it('finds the right operation in the top 3 for at least 98% of the requests it was tuned on', async () => {
    expect((await measured(TUNING, RETRIEVAL_SETS.tuning.label, false)).hits / TUNING.length).toBeGreaterThanOrEqual(0.98);
  });

  it('finds the right operation, or says no match is strong, for at least 95% of the outcome-phrased requests it was tuned on', async () => {
    expect((await measured(OUTCOMES, RETRIEVAL_SETS.outcomes.label, false)).hits / OUTCOMES.length).toBeGreaterThanOrEqual(0.95);
  });

  it('finds it for at least 85% of the situations it was tuned on; says "no strong match" to 80% of the tuned requests no operation answers, and to at most 15% of those one does', async () => {
    const situations = await measured(SITUATIONS, RETRIEVAL_SETS.situations.label, false);
    expect(situations.hits / situations.total).toBeGreaterThanOrEqual(0.85);
    const tuned = [
      situations,
      await score(TUNING, (q) => found(q, RETRIEVAL_TOP), false),
      await score(OUTCOMES, (q) => found(q, RETRIEVAL_TOP), false),
      await score(SHAPES, (q) => found(q, RETRIEVAL_TOP), false),
      await score(EVERYDAY, (q) => found(q, RETRIEVAL_TOP), false),
    ];
    const sum = (f: (s: RetrievalScore) => number) => tuned.reduce((n, s) => n + f(s), 0);
    process.stderr.write(
      `retrieval, tuned sets: ${sum((s) => s.unanswerable.hits)}/${sum((s) => s.unanswerable.total)} requests no operation answers said no strong match; ${sum((s) => s.doubted)}/${sum((s) => s.answerable.total)} answered ones called weak\n`,
    );
    expect(sum((s) => s.unanswerable.hits) / sum((s) => s.unanswerable.total)).toBeGreaterThanOrEqual(0.8);
    expect(sum((s) => s.doubted) / sum((s) => s.answerable.total)).toBeLessThanOrEqual(0.15);
  });

  it('finds it for at least 85% of the shapes of requests a blind set missed that it was tuned on', async () => {
    expect((await measured(SHAPES, RETRIEVAL_SETS.shapes.label, false)).hits / SHAPES.length).toBeGreaterThanOrEqual(0.85);
  });

  it('finds it for at least 80% of the requests in everyday verbs and nouns it was tuned on', async () => {
    expect((await measured(EVERYDAY, RETRIEVAL_SETS.everyday.label, false)).hits / EVERYDAY.length).toBeGreaterThanOrEqual(0.8);
  });

  it('finds it, or says no match is strong, for at least 80% of each blind set it was tuned on once measured', async () => {
    for (const [set, name] of [
      [BLIND_FIRST, 'blindFirst'],
      [BLIND_SECOND, 'blindSecond'],
      [BLIND_THIRD, 'blindThird'],
    ] as const) {
      expect((await measured(set, RETRIEVAL_SETS[name].label, false)).hits / set.length, name).toBeGreaterThanOrEqual(0.8);
    }
  });

  it('finds it in the top 3 for at least 90% of each held-out set (75% of the outcome-phrased one, 80% of the situations and of the blind one, 70% of the shapes, 60% of the everyday words), and the figures docs/tools.md quotes are these', async () => {
    // Their misses are not printed: whoever tunes the ranking must not tune it on them.
    const first = await measured(HELD_OUT, RETRIEVAL_SETS.heldOutFirst.label, true);
    const consultants = await measured(CONSULTANTS, RETRIEVAL_SETS.heldOutConsultants.label, true);
    const outcomes = await measured(HELD_OUT_OUTCOMES, RETRIEVAL_SETS.heldOutOutcomes.label, true);
    const situations = await measured(HELD_OUT_SITUATIONS, RETRIEVAL_SETS.heldOutSituations.label, true);
    const shapes = await measured(HELD_OUT_SHAPES, RETRIEVAL_SETS.heldOutShapes.label, true);
    const everyday = await measured(HELD_OUT_EVERYDAY, RETRIEVAL_SETS.heldOutEveryday.label, true);
    const blindFourth = await measured(BLIND_FOURTH, RETRIEVAL_SETS.heldOutBlindFourth.label, true);
    const blindFirst = await score(BLIND_FIRST, (q) => found(q, RETRIEVAL_TOP), false);
    const blindSecond = await score(BLIND_SECOND, (q) => found(q, RETRIEVAL_TOP), false);
    const blindThird = await score(BLIND_THIRD, (q) => found(q, RETRIEVAL_TOP), false);
    const tuned = await score(TUNING, (q) => found(q, RETRIEVAL_TOP), false);
    const tunedOutcomes = await score(OUTCOMES, (q) => found(q, RETRIEVAL_TOP), false);
    const tunedSituations = await score(SITUATIONS, (q) => found(q, RETRIEVAL_TOP), false);
    const tunedShapes = await score(SHAPES, (q) => found(q, RETRIEVAL_TOP), false);
    const tunedEveryday = await score(EVERYDAY, (q) => found(q, RETRIEVAL_TOP), false);
    expect(first.hits / first.total).toBeGreaterThanOrEqual(0.9);
    expect(consultants.hits / consultants.total).toBeGreaterThanOrEqual(0.9);
    expect(outcomes.hits / outcomes.total).toBeGreaterThanOrEqual(0.75);
    expect(situations.hits / situations.total).toBeGreaterThanOrEqual(0.8);
    expect(shapes.hits / shapes.total).toBeGreaterThanOrEqual(0.7);
    expect(everyday.hits / everyday.total).toBeGreaterThanOrEqual(0.6);
    expect(blindFourth.hits / blindFourth.total).toBeGreaterThanOrEqual(0.8);
    // The top 8 that find_operations shows by default.
    expect((await measured(HELD_OUT, RETRIEVAL_SETS.heldOutFirst.label, true, 8)).hits / HELD_OUT.length).toBeGreaterThanOrEqual(0.9);
    const readme = retrievalFigures();
    expect(
      [
        readme.tuning,
        readme.heldOutFirst,
        readme.heldOutConsultants,
        readme.outcomes,
        readme.heldOutOutcomes,
        readme.situations,
        readme.heldOutSituations,
        readme.shapes,
        readme.heldOutShapes,
        readme.everyday,
        readme.heldOutEveryday,
        readme.blindFirst,
        readme.blindSecond,
        readme.blindThird,
        readme.heldOutBlindFourth,
      ].map((f) => [f.hits, f.doubted]),
    ).toEqual(
      [
        tuned,
        first,
        consultants,
        tunedOutcomes,
        outcomes,
        tunedSituations,
        situations,
        tunedShapes,
        shapes,
        tunedEveryday,
        everyday,
        blindFirst,
        blindSecond,
        blindThird,
        blindFourth,
      ].map((f) => [f.hits, f.doubted]),
    );
  });

  it('shows each match with its one-line purpose and the arguments it requires, with the values each takes', async () => {
    const r = await stack.call('find_operations', { query: 'turn down this proposed finding', limit: 3 });
    const lines = textOf(r).split('\n');
    expect(lines[0]).toBe(
      "review_finding: Set a finding's review status: validated, rejected, or back to proposed. Needs engagement, finding, review_status (proposed|validated|rejected). [write]",
    );
    for (const line of lines) expect(line).toMatch(/^\w+: [^\n]+[.!?] Needs [^\n]+\. \[(read|write)[^\]]*\]$/);
    // An enumeration of more than a few values is listed all the same: a model needs one of them to call.
    const exports = textOf(await stack.call('find_operations', { query: 'export the roadmap as a Word file', limit: 1 }));
    expect(exports).toMatch(/^create_export: .* Needs engagement, kind \(bpmn\|findings_csv\|[a-z_|]*deliverable_pdf\)\. \[write\]$/);
    // What it does not show, the tool's description says describe_operation does.
    const { tools } = await stack.client.listTools();
    expect(tools.find((t) => t.name === 'find_operations')?.description).toMatch(/with the arguments they require \(describe_operation shows the rest\)/);
    const first = (r.structuredContent as { operations: { purpose: string; required: string[] }[] }).operations[0]!;
    expect(first).toMatchObject({
      purpose: "Set a finding's review status: validated, rejected, or back to proposed.",
      required: ['engagement', 'finding', 'review_status'],
    });
  });

  it('reads "client" as what it means there: their remarks, the files they sent, what we sent them, or the company', async () => {
    const first = async (query: string) => (await top(query, 1))[0];
    expect(await first("the client's remarks on the deliverable")).toBe('list_deliverable_comments');
    expect(await first('les remarques du client sur le livrable')).toBe('list_deliverable_comments');
    expect(await first('documents the client sent us')).toBe('list_artifacts');
    expect(await first('les pièces que le client nous a transmises')).toBe('list_artifacts');
    expect(['get_deliverable_snapshot', 'get_deliverable_version', 'list_deliverable_versions']).toContain(await first('the version we sent to the client'));
    expect(await first('add a new client company')).toBe('create_client_company');
    expect(['list_client_companies', 'get_client_company']).toContain(await first('our clients'));
  });

  it('says when no match is strong, with the closest as unsure and the likeliest areas to search within', async () => {
    const query = 'something about the voice and the budget for the chapters';
    const r = await stack.call('find_operations', { query, limit: 3 });
    const sc = r.structuredContent as { operations: { name: string }[]; weak?: boolean; areas?: string[] };
    expect(sc.weak).toBe(true);
    expect(sc.operations).toHaveLength(3);
    expect(sc.areas?.length).toBeGreaterThan(0);
    const lines = textOf(r).split('\n');
    expect(lines[0]).toBe(`No strong match for "${query}"; the closest, none sure:`);
    expect(lines.slice(1, 4).map((l) => l.slice(0, l.indexOf(':')))).toEqual(sc.operations.map((o) => o.name));
    expect(lines[4]).toMatch(new RegExp(`^Likeliest areas?: ${sc.areas?.join(', ')}\\.`));
    expect(lines).toHaveLength(5);
    // A request one operation answers whole gets its matches alone.
    const sure = await stack.call('find_operations', { query: 'publish the final deliverable', limit: 3 });
    expect((sure.structuredContent as { weak?: boolean }).weak).toBeUndefined();
    expect(textOf(sure)).not.toContain('No strong match');
  });

  it('says no match is strong for a request that no operation answers, rather than a confident list', async () => {
    // The trade's words for a finding and its review, beside a word that names another area (onboarding).
    expect((await found('approve the onboarding conclusion', 3)).names[0]).toBe('review_finding');
    for (const query of ['order lunch for the workshop', 'planifier un atelier avec la DAF jeudi', 'create a Jira ticket for this bug'])
      expect((await found(query, 3)).weak, query).toBe(true);
  });

  it('answers at most limit entries, and 8 when the call says none', async () => {
    const entries = (text: string) => text.split('\n').filter((l) => /^\w+: /.test(l) && !l.startsWith('No strong match'));
    for (const [query, limit] of [
      ['list the findings of the engagement', 4],
      ['something about the voice and the budget for the chapters', 2],
      ['findings', undefined],
    ] as const) {
      const r = await stack.call('find_operations', { query, ...(limit ? { limit } : {}) });
      const sc = r.structuredContent as { operations: unknown[]; tools?: unknown[] };
      expect(sc.operations.length + (sc.tools?.length ?? 0), query).toBe(limit ?? 8);
      expect(entries(textOf(r)), query).toHaveLength(limit ?? 8);
    }
  });
});
