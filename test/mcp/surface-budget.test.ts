// Bounded responses: a result over the budget is cut at a record boundary with a note saying how much
// was left and how to get it; following the note gets exactly the records left out; `fields` keeps
// only the named fields; empty and null fields never reach the text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundList, boundObject, pickFields } from '../../src/mcp/budget.js';
import { ENGAGEMENT_AP, SESSION_AP_CLERK } from '../../src/sandbox/data/ids.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { startStack, textOf, type Stack } from '../helpers/stack.js';

type Item = { id: string; [k: string]: unknown };

let sandbox: SandboxHandle;
let small: Stack;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  small = await startStack({ sandboxHandle: sandbox, env: { WORKSPACE_TOOLSETS: 'default', WORKSPACE_RESPONSE_BUDGET: '3000' } });
});
afterAll(async () => {
  await small.close();
  await sandbox.close();
});

describe('a list over the budget', () => {
  it('is cut at a record boundary, says how much was left, and the way back gets exactly the rest', async () => {
    const r = await small.call('list_findings', { engagement: ENGAGEMENT_AP, limit: 20 });
    const text = textOf(r);
    const sc = r.structuredContent as { items: Item[]; next_cursor: string | null; truncated: { shown: number; omitted: number; retry_with_limit: number } };
    expect(sc.truncated.omitted).toBeGreaterThan(0);
    const [json = '', note = ''] = text.split('\n');
    expect(json.length).toBeLessThanOrEqual(3000);
    // Whole records: the text parses, and holds exactly the items reported shown.
    expect((JSON.parse(json) as Item[]).map((f) => f.id)).toEqual(sc.items.map((f) => f.id));
    expect(note).toMatch(new RegExp(`${sc.items.length} of 20 items shown; ${sc.truncated.omitted} more on this page \\(.*characters\\) were left out`));
    expect(note).toContain(`limit ${sc.truncated.shown}`);
    // The page cursor would skip what was left out, so none is offered.
    expect(sc.next_cursor).toBeNull();

    // Following the note: pages of the size that fits walk every finding, none skipped, none twice.
    const full = (await small.api.request({ method: 'GET', path: '/engagements/{engagement}/findings', pathParams: { engagement: ENGAGEMENT_AP }, query: { limit: 20 } })).data as Item[];
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 30 && seen.length < full.length; i++) {
      const page = await small.call('list_findings', { engagement: ENGAGEMENT_AP, limit: sc.truncated.retry_with_limit, ...(cursor ? { cursor } : {}) });
      const p = page.structuredContent as { items: Item[]; next_cursor: string | null };
      seen.push(...p.items.map((f) => f.id));
      if (!p.next_cursor) break;
      cursor = p.next_cursor;
    }
    expect(seen.slice(0, full.length)).toEqual(full.map((f) => f.id));
  });

  it('fields keeps only the named fields, so more records fit', async () => {
    const r = await small.call('list_findings', { engagement: ENGAGEMENT_AP, limit: 20, fields: ['id', 'review_status'] });
    const sc = r.structuredContent as { items: Item[]; truncated?: unknown };
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
    expect(text).toMatch(/Cut to stay within the response budget: ".+": \d+ of \d+ items shown; .* left out\. To get the rest, read the resource workspace:\/\/sessions\/.+\/transcript/);
    expect(text.split('\n(Cut')[0]!.length).toBeLessThanOrEqual(3000);
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
    const cut = boundObject({ body: 'word '.repeat(1000) }, 500);
    expect(cut.text.length).toBeLessThanOrEqual(500);
    expect(cut.cut).toMatchObject({ path: '' });
  });
});
