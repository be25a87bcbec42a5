// find_operations against requests as consultants make them, in English and in French, ambiguous
// ones included. Three sets, kept as data in test/mcp/retrieval-sets: the one the ranking is tuned on
// (its misses are printed, add to it freely), and two held out, each written before the tuning it
// measures and never tuned on (only their hit rates are printed): the project's first held-out set,
// and the consultants' set, written before the tuning on consultants' words. Floors (top 3): tuned
// 98%, each held-out set 90%, below what the ranking reaches, so a change that loses ground fails. The
// docs quote the current figures, which bench/retrieval.ts computes in-process; the test checks that
// they are what find_operations answers over MCP. A request with several right answers lists them all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
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

const FRENCH = /[àâçéèêëîïôûùüÿœ’]|\b(les?|la|des|une?|du|de|au)\b/i;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ env: { WORKSPACE_TOOLSETS: 'default' } });
});
afterAll(async () => {
  await stack.close();
});

async function top(query: string, limit: number): Promise<string[]> {
  const r = await stack.call('find_operations', { query, limit });
  return (r.structuredContent as { operations: { name: string }[] }).operations.map((o) => o.name);
}

/** One set through find_operations over MCP; misses printed only for the set tuned on. */
async function measured(set: readonly RetrievalRequest[], label: string, heldOut: boolean, limit = RETRIEVAL_TOP): Promise<RetrievalScore> {
  const s = await score(set, (q) => top(q, limit), !heldOut);
  const shown = s.misses.length ? `; misses:\n${s.misses.join('\n')}` : '';
  process.stderr.write(`retrieval, ${label}: ${s.hits}/${s.total} in the top ${limit} (${percent(s)})${shown}\n`);
  return s;
}

describe('find_operations retrieval', () => {
  it("tunes on at least 80 requests and holds out two sets, the consultants' one of 40 or more covering every area, in English and in French", () => {
    const all = [...TUNING, ...HELD_OUT, ...CONSULTANTS];
    expect(TUNING.length).toBeGreaterThanOrEqual(80);
    expect(HELD_OUT.length).toBeGreaterThanOrEqual(30);
    expect(CONSULTANTS.length).toBeGreaterThanOrEqual(40);
    for (const set of [TUNING, CONSULTANTS]) {
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

  it('finds it in the top 3 for at least 90% of each held-out set, and the figures docs/tools.md quotes are these', async () => {
    // Their misses are not printed: whoever tunes the ranking must not tune it on them.
    const first = await measured(HELD_OUT, RETRIEVAL_SETS.heldOutFirst.label, true);
    const consultants = await measured(CONSULTANTS, RETRIEVAL_SETS.heldOutConsultants.label, true);
    const tuned = await score(TUNING, (q) => top(q, RETRIEVAL_TOP), false);
    expect(first.hits / first.total).toBeGreaterThanOrEqual(0.9);
    expect(consultants.hits / consultants.total).toBeGreaterThanOrEqual(0.9);
    // The top 8 that find_operations shows by default.
    expect((await measured(HELD_OUT, RETRIEVAL_SETS.heldOutFirst.label, true, 8)).hits / HELD_OUT.length).toBeGreaterThanOrEqual(0.9);
    const readme = retrievalFigures();
    expect([readme.tuning.hits, readme.heldOutFirst.hits, readme.heldOutConsultants.hits]).toEqual([tuned.hits, first.hits, consultants.hits]);
  });

  it('shows each match with its one-line purpose and the arguments it needs, with their values when few', async () => {
    const r = await stack.call('find_operations', { query: 'turn down this proposed finding', limit: 3 });
    const lines = textOf(r).split('\n');
    expect(lines[0]).toBe(
      "review_finding: Set a finding's review status: validated, rejected, or back to proposed. Needs engagement, finding, review_status (proposed|validated|rejected). [write]",
    );
    for (const line of lines) expect(line).toMatch(/^\w+: [^\n]+[.!?] Needs [^\n]+\. \[(read|write)[^\]]*\]$/);
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

  it('says when no match is strong and lists every operation of the likeliest areas, so the model chooses', async () => {
    const query = 'something about the voice and the budget for the chapters';
    const r = await stack.call('find_operations', { query, limit: 3 });
    const sc = r.structuredContent as { operations: { name: string }[]; weak?: boolean; areas?: { area: string; operations: string[] }[] };
    expect(sc.weak).toBe(true);
    expect(sc.operations.length).toBeGreaterThan(0);
    const areas = sc.areas ?? [];
    expect(areas.length).toBeGreaterThan(0);
    for (const a of areas) expect(a.operations).toEqual(expect.arrayContaining(catalog.filter((o) => o.toolset === a.area).map((o) => o.name)));
    const text = textOf(r);
    expect(text.split('\n')[0]).toBe(`No strong match for "${query}". Closest:`);
    for (const a of areas) expect(text).toContain(`${a.area}: ${a.operations.join(', ')}`);
    // A request one operation answers whole gets its matches alone.
    const sure = await stack.call('find_operations', { query: 'publish the final deliverable', limit: 3 });
    expect((sure.structuredContent as { weak?: boolean }).weak).toBeUndefined();
    expect(textOf(sure)).not.toContain('No strong match');
  });
});
