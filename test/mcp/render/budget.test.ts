// Bounded responses, in tokens: a result over the budget is cut at a record boundary with a note
// saying how many records were left out and the exact call that gets them; that call gets exactly
// those; `fields` keeps only the named fields; a record too big is cut in its longest list, with the
// resource that holds all of it. Never silent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundList, boundObject, estimateTokens, pickFields } from '../../../src/mcp/render/index.js';
import { ENGAGEMENT_AP, SESSION_AP_CLERK } from '../../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { type Stack, startStack, textOf } from '../../helpers/stack.js';

type Item = { id: string; [k: string]: unknown };
type Page = { items: Item[]; next_cursor: string | null; truncated?: { shown: number; omitted: number } };

const BUDGET = 1000;

let sandbox: SandboxHandle;
let small: Stack;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  small = await startStack({ sandboxHandle: sandbox, env: { WORKSPACE_TOOLSETS: 'default', WORKSPACE_RESPONSE_BUDGET: String(BUDGET) } });
});
afterAll(async () => {
  await small.close();
  await sandbox.close();
});

async function allFindings(): Promise<Item[]> {
  const res = await small.api.request({
    method: 'GET',
    path: '/engagements/{engagement}/findings',
    pathParams: { engagement: ENGAGEMENT_AP },
    query: { limit: 200 },
  });
  return res.data as Item[];
}

/** The call a cut note names: `call TOOL with {...}`. */
function namedCall(text: string): { tool: string; arguments: Record<string, unknown> } {
  const m = /To get them, call (\w+) with (\{.*?\})\.$/m.exec(text);
  expect(m, text.slice(-600)).not.toBeNull();
  return { tool: m![1]!, arguments: JSON.parse(m![2]!) as Record<string, unknown> };
}

describe('a page over the budget', () => {
  for (const format of ['concise', 'detailed'] as const) {
    it(`(${format}) is cut at a record boundary, says how many were left out, and the call it names gets exactly them`, async () => {
      const limit = format === 'concise' ? 22 : 8;
      const r = await small.call('list_findings', { engagement: ENGAGEMENT_AP, limit, ...(format === 'detailed' ? { response_format: format } : {}) });
      const text = textOf(r);
      const sc = r.structuredContent as Page;
      expect(sc.truncated?.omitted).toBeGreaterThan(0);
      const data = text.slice(0, text.indexOf('\nCut to stay within the response budget'));
      expect(estimateTokens(data)).toBeLessThanOrEqual(BUDGET);
      // Whole records: every record shown is there with its statement, none of the others.
      for (const f of sc.items) expect(data).toContain(String(f.statement));
      expect(text).toContain(`${sc.items.length} of the ${limit} records of this page shown, ${sc.truncated!.omitted} left out`);

      // Following the notes: the records left out come next, then the following pages; none twice, none skipped.
      const full = (await allFindings()).slice(0, 22);
      const seen = sc.items.map((f) => f.id);
      let call = namedCall(text);
      for (let i = 0; i < 30 && seen.length < full.length; i++) {
        expect(call.tool).toBe('list_findings');
        const next = await small.call(call.tool, call.arguments);
        const p = next.structuredContent as Page;
        seen.push(...p.items.map((f) => f.id));
        if (p.truncated) call = namedCall(textOf(next));
        else if (p.next_cursor) call = { tool: 'list_findings', arguments: { ...call.arguments, cursor: p.next_cursor } };
        else break;
      }
      expect(seen.slice(0, full.length)).toEqual(full.map((f) => f.id));
    });
  }

  it('fields keeps only the named fields, so more records fit', async () => {
    const r = await small.call('list_findings', { engagement: ENGAGEMENT_AP, limit: 20, fields: ['id', 'review_status'], response_format: 'detailed' });
    const sc = r.structuredContent as Page;
    expect(sc.truncated).toBeUndefined();
    expect(sc.items).toHaveLength(20);
    for (const f of sc.items) expect(Object.keys(f).sort()).toEqual(['id', 'review_status']);
  });

  it('fields that is not a list of names is refused before any request', async () => {
    sandbox.clearRequests();
    const r = await small.call('list_findings', { engagement: ENGAGEMENT_AP, fields: 'id' });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/fields: must be an array of at least 1 item, each non-empty text; got "id"/);
    expect(sandbox.requests()).toHaveLength(0);
  });
});

describe('one record over the budget', () => {
  it('a transcript is cut in its longest list, with a link to read all of it as a resource', async () => {
    const r = await small.call('get_session_transcript', { session: SESSION_AP_CLERK });
    const text = textOf(r);
    expect(text).toMatch(
      /Cut to stay within the response budget of 1000 tokens: "segments": \d+ of \d+ items shown; about \d+ tokens left out\. To get the rest, read the resource workspace:\/\/sessions\/.+\/transcript/,
    );
    expect(estimateTokens(text.split('\n(Cut')[0]!)).toBeLessThanOrEqual(BUDGET);
    const link = r.content.find((c) => c.type === 'resource_link');
    expect(link).toMatchObject({ uri: `workspace://sessions/${SESSION_AP_CLERK}/transcript` });
  });
});

describe('the text rendering', () => {
  it('drops empty and null fields, keeps false and zero', () => {
    const { text } = boundList([{ id: 'a', note: null, tags: [], meta: {}, name: '', ok: false, n: 0 }], 1000);
    expect(JSON.parse(text)).toEqual([{ id: 'a', ok: false, n: 0 }]);
  });

  it('pickFields reaches into nested records with dotted names', () => {
    expect(pickFields({ id: 'a', client_company: { id: 'c', name: 'Berthier' }, x: 1 }, ['id', 'client_company.name'])).toEqual({
      id: 'a',
      client_company: { name: 'Berthier' },
    });
  });

  it('a record with no list to cut is cut as text, within the budget', () => {
    const cut = boundObject({ body: 'word '.repeat(3000) }, 500);
    expect(estimateTokens(cut.text)).toBeLessThanOrEqual(500);
    expect(cut.cut).toMatchObject({ path: '' });
  });

  it('a single row larger than the budget is still cut to the budget', () => {
    const cut = boundList([{ id: 'a', text: 'mot '.repeat(4000) }, { id: 'b' }], 300, { format: 'concise' });
    expect(cut.shown).toHaveLength(1);
    expect(cut.omitted).toBe(1);
    expect(estimateTokens(cut.text)).toBeLessThanOrEqual(300);
  });
});
