// One rule for the ids a document's blocks cite (docs/architecture.md, Cited ids), on every write path:
// the operation's own tool, call_operation, a script's api call and edit_document_blocks. A finding or
// evidence that does not exist, or belongs to another engagement, is refused in the same words before
// any write reaches the workspace; what the document already cites is not judged again.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorDetail } from '../../../src/mcp/render/tool-result.js';
import { CLIENT_BERTHIER, ENGAGEMENT_AP } from '../../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { KIND, workspaceApi } from '../../helpers/documents.js';
import { UNKNOWN_ID } from '../../helpers/error-calls.js';
import { type Stack, startStack } from '../../helpers/stack.js';

let sandbox: SandboxHandle;
let stack: Stack;
/** A finding of another engagement of the same workspace: it exists, but not here. */
let foreign: string;

const { api, read, writes } = workspaceApi(() => sandbox);

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  stack = await startStack({ sandboxHandle: sandbox, env: { WORKSPACE_TOOLSETS: 'default' } });
  const other = await api('POST', '/engagements', { client_company_id: CLIENT_BERTHIER, name: 'Order-to-cash review' });
  expect(other.status).toBe(201);
  const created = await api('POST', `/engagements/${other.json.data.id}/findings`, { type: 'risk', statement: 'Credit notes issued without approval.' });
  expect(created.status).toBe(201);
  foreign = created.json.data.id as string;
});
afterAll(async () => {
  await stack?.close();
  await sandbox?.close();
});
beforeEach(() => {
  sandbox.admin.reset();
});

const textOf = (r: { content: Array<{ type: string; text?: string }> }) => r.content.flatMap((c) => (c.type === 'text' && c.text ? [c.text] : [])).join('\n');

/** The document as read, with one callout citing `finding` at the end: what a model sends to add one. */
async function withCallout(finding: string): Promise<Record<string, unknown>> {
  const doc = await read();
  const blocks = [...doc.blocks, { type: 'callout', tone: 'info', text: 'Voir le constat.', refs: [{ type: 'finding', id: finding }] }];
  return { engagement: ENGAGEMENT_AP, kind: KIND, updated_at: doc.updated_at, blocks };
}

/** The words every path refuses an id with. */
const refusedWords = (id: string) => [`no finding of engagement ${ENGAGEMENT_AP} has this id; got "${id}"`, 'nothing was sent'];

describe('one rule for cited ids on every write path', () => {
  it.each([
    ['does not exist', () => UNKNOWN_ID],
    ['belongs to another engagement', () => foreign],
  ])('update_deliverable_document, called as its own tool: a finding that %s is refused before the write, naming the field', async (_what, id) => {
    const args = await withCallout(id());
    const before = await read();
    sandbox.clearRequests();
    const r = await stack.call('update_deliverable_document', args);
    expect(r.isError).toBe(true);
    for (const w of refusedWords(id())) expect(textOf(r)).toContain(w);
    const at = `blocks.${before.blocks.length}.refs.0.id`;
    expect(errorDetail(r)).toMatchObject({ code: 'unknown_reference', fields: { [at]: expect.stringContaining('has this id') } });
    expect(writes()).toEqual([]);
    expect(await read()).toEqual(before);
  });

  it('call_operation refuses it the same way', async () => {
    const args = await withCallout(UNKNOWN_ID);
    sandbox.clearRequests();
    const r = await stack.call('call_operation', { operation: 'update_deliverable_document', arguments: args });
    expect(r.isError).toBe(true);
    for (const w of refusedWords(UNKNOWN_ID)) expect(textOf(r)).toContain(w);
    expect(errorDetail(r)?.code).toBe('unknown_reference');
    expect(writes()).toEqual([]);
  });

  it("a script's api call is refused the same way: a ValidationError with the same words, no write made", async () => {
    const args = await withCallout(foreign);
    sandbox.clearRequests();
    const script = `try { await api.update_deliverable_document(${JSON.stringify(args)}); return 'saved'; } catch (e) { return { name: e.name, code: e.code, message: e.message }; }`;
    const r = await stack.call('run_write_script', { script });
    expect(r.isError, textOf(r)).toBeFalsy();
    const caught = (r.structuredContent as { result: { name: string; code: string; message: string }; writes: unknown[] }).result;
    expect(caught).toMatchObject({ name: 'ValidationError', code: 'unknown_reference' });
    for (const w of refusedWords(foreign)) expect(caught.message).toContain(w);
    expect((r.structuredContent as { writes: unknown[] }).writes).toEqual([]);
    expect(writes()).toEqual([]);
  });

  it('edit_document_blocks refuses it the same way, at the edit that gave it', async () => {
    sandbox.clearRequests();
    const r = await stack.call('edit_document_blocks', {
      engagement: ENGAGEMENT_AP,
      kind: KIND,
      edits: [{ op: 'insert', after: null, block: { type: 'callout', tone: 'info', text: 'Voir', refs: [{ type: 'finding', id: foreign }] } }],
    });
    expect(r.isError).toBe(true);
    for (const w of refusedWords(foreign)) expect(textOf(r)).toContain(w);
    expect(textOf(r)).toMatch(/^Invalid arguments for edit_document_blocks; nothing was sent\.\n- edits\.0\.block\.refs\.0\.id: /);
    expect(errorDetail(r)?.code).toBe('unknown_reference');
    expect(writes()).toEqual([]);
  });

  it('a write that re-sends what the document cites and adds a finding of the engagement goes through, once', async () => {
    const doc = await read();
    const findings = (await api('GET', `/engagements/${ENGAGEMENT_AP}/findings?limit=200`)).json.data as { id: string }[];
    const ours = findings.at(-1)?.id as string;
    sandbox.clearRequests();
    const r = await stack.call('update_deliverable_document', await withCallout(ours));
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(writes()).toHaveLength(1);
    expect((await read()).blocks).toHaveLength(doc.blocks.length + 1);
  });
});
