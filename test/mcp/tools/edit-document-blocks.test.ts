// edit_document_blocks over real parts: the SDK client on Streamable HTTP, the server talking to the
// sandbox over HTTP. Untouched blocks come back byte for byte; another writer's change that lands
// between the read and the write (injected by the sandbox's before hook, no timing) is kept; a bad
// reference is refused before anything is written.
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorDetail } from '../../../src/mcp/render/tool-result.js';
import { editDocumentBlocksOutput } from '../../../src/mcp/tools/edit-document-blocks.js';
import { ENGAGEMENT_AP } from '../../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { type Block, DOC_PATH, DOC_TEMPLATE, type Doc, KIND, workspaceApi } from '../../helpers/documents.js';
import { type Stack, startStack, textOf } from '../../helpers/stack.js';

let sandbox: SandboxHandle;
let stack: Stack;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  stack = await startStack({ sandboxHandle: sandbox, env: { WORKSPACE_TOOLSETS: 'default' } });
  // The client learns the output schema from the listing, and then validates every result against it.
  await stack.client.listTools();
});
afterAll(async () => {
  await stack.close();
  await sandbox.close();
});
beforeEach(() => {
  sandbox.admin.reset();
});

/** Another writer: the workspace API itself. */
const { api, read, writes } = workspaceApi(() => sandbox);
const json = (b: unknown) => JSON.stringify(b);
const byId = (blocks: Block[], id: string) => blocks.find((b) => b.id === id);

/** The document with a block the spec does not describe (fields of its own, its own key order). */
async function withForeignBlock(): Promise<Doc> {
  const doc = await read();
  const foreign = { text: 'Annexe importée', type: 'paragraph', x_source: { tool: 'word', para: 7 }, id: 'user-annexe' };
  const r = await api('PATCH', DOC_PATH, { updated_at: doc.updated_at, blocks: [...doc.blocks, foreign] });
  expect(r.status).toBe(200);
  const now = await read();
  // Stored as sent: its key order is not the schema's (id, type, text...), which a parsed copy would have.
  expect(json(byId(now.blocks, 'user-annexe'))).toBe(json(foreign));
  return now;
}

async function validatedFinding(): Promise<string> {
  const list = (await api('GET', `/engagements/${ENGAGEMENT_AP}/findings?limit=200`)).json.data as { id: string; review_status: string }[];
  const f = list.find((x) => x.review_status === 'validated');
  if (!f) throw new Error('no validated finding in the demo data');
  return f.id;
}

describe('edit_document_blocks', () => {
  it('inserts, replaces, deletes and moves in one write; every other block comes back byte for byte, foreign fields and key order included', async () => {
    const before = await withForeignBlock();
    const ids = before.blocks.map((b) => b.id as string);
    const [heading, paragraph, figures, , callout] = ids as [string, string, string, string, string];
    const finding = await validatedFinding();
    sandbox.clearRequests();

    const r = await stack.call('edit_document_blocks', {
      engagement: ENGAGEMENT_AP,
      kind: KIND,
      edits: [
        { op: 'insert', after: heading, block: { id: 'user-chiffre', type: 'paragraph', text: 'Un chiffre clé', refs: [{ type: 'finding', id: finding }] } },
        { op: 'replace', id: paragraph, block: { type: 'paragraph', text: 'Paragraphe réécrit.' } },
        { op: 'delete', id: figures },
        { op: 'move', id: 'user-annexe', after: null },
      ],
    });
    expect(r.isError, textOf(r)).toBeFalsy();
    const out = editDocumentBlocksOutput.parse(r.structuredContent);
    const after = await read();
    expect(out.updated_at).toBe(after.updated_at);
    expect(out.blocks).toBe(after.blocks.length);
    expect(out.reapplied).toBe(false);
    expect(out.changes).toEqual([
      { op: 'insert', id: 'user-chiffre', at: 2 },
      { op: 'replace', id: paragraph, at: 3 },
      { op: 'delete', id: figures, at: null },
      { op: 'move', id: 'user-annexe', at: 0 },
    ]);
    // The answer is the diff, not the document.
    expect(textOf(r)).not.toContain(String(byId(before.blocks, heading)?.text));

    // One write, and in it (and in the document read back) every block not named is byte for byte
    // what was read: the seeded callouts keep their own key order, the foreign block its fields.
    expect(writes()).toHaveLength(1);
    const sent = (writes()[0]?.body as { blocks: Block[] } | undefined)?.blocks ?? [];
    const untouched = before.blocks.filter((b) => ![paragraph, figures].includes(b.id as string));
    expect(untouched.map((b) => b.id)).toContain(callout);
    for (const b of untouched) {
      expect(json(byId(sent, b.id as string)), b.id).toBe(json(b));
      expect(json(byId(after.blocks, b.id as string)), b.id).toBe(json(b));
    }
    expect(after.blocks.map((b) => b.id)).toEqual(['user-annexe', heading, 'user-chiffre', paragraph, ...ids.slice(3).filter((i) => i !== 'user-annexe')]);
    expect(byId(after.blocks, paragraph)).toEqual({ id: paragraph, type: 'paragraph', text: 'Paragraphe réécrit.' });
  });

  it('a replace is whole: a key_figures block sent with its items and no title loses its title, and the answer names what it dropped', async () => {
    const before = await read();
    const figures = before.blocks.find((b) => b.type === 'key_figures') as Block;
    expect(figures.title).toBeTruthy();
    const items = [...(figures.items as string[]), '4 pistes validées'];
    const r = await stack.call('edit_document_blocks', {
      engagement: ENGAGEMENT_AP,
      kind: KIND,
      edits: [{ op: 'replace', id: figures.id, block: { type: 'key_figures', items } }],
    });
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(byId((await read()).blocks, figures.id as string)).toEqual({ id: figures.id, type: 'key_figures', items });
    expect(editDocumentBlocksOutput.parse(r.structuredContent).changes).toEqual([{ op: 'replace', id: figures.id, at: 2, dropped: ['title'] }]);
    expect(textOf(r)).toContain('the replace left out title, now gone');
    // The listing says so before the call.
    const listed = (await stack.client.listTools()).tools.find((t) => t.name === 'edit_document_blocks');
    expect(listed?.description).toMatch(/replace \{id, block\} \(the whole block: fields left out are dropped\)/);
  });

  it('an update changes only the fields it gives: a key_figures block updated with its items keeps its title and key order', async () => {
    const before = await read();
    const figures = before.blocks.find((b) => b.type === 'key_figures') as Block;
    const items = [...(figures.items as string[]), '4 pistes validées'];
    const r = await stack.call('edit_document_blocks', {
      engagement: ENGAGEMENT_AP,
      kind: KIND,
      // As a strict-mode model writes it: every field of the block, null where it has nothing to say.
      edits: [{ op: 'update', id: figures.id, block: { type: 'key_figures', items, title: null, text: null } }],
    });
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(editDocumentBlocksOutput.parse(r.structuredContent).changes).toEqual([{ op: 'update', id: figures.id, at: 2 }]);
    const after = byId((await read()).blocks, figures.id as string);
    expect(json(after)).toBe(json({ ...figures, items }));
    const listed = (await stack.client.listTools()).tools.find((t) => t.name === 'edit_document_blocks');
    expect(listed?.description).toMatch(/update \{id, block\} \(only the fields given change\)/);
  });

  it("refuses an update that changes a block's type, naming the type it keeps, and writes nothing", async () => {
    const before = await read();
    const figures = before.blocks.find((b) => b.type === 'key_figures') as Block;
    sandbox.clearRequests();
    const r = await stack.call('edit_document_blocks', {
      engagement: ENGAGEMENT_AP,
      kind: KIND,
      edits: [{ op: 'update', id: figures.id, block: { type: 'paragraph', text: 'Trois entretiens.' } }],
    });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain("an update keeps the block's type (key_figures)");
    expect(writes()).toHaveLength(0);
  });

  it("keeps another writer's change that lands between the read and the write, and applies the edits to it once", async () => {
    const before = await read();
    const [, paragraph, figures] = before.blocks.map((b) => b.id as string) as [string, string, string];
    let theirs: Doc | undefined;
    // The server's write is held at the sandbox until another writer has saved: exactly between read and write.
    sandbox.admin.fault({
      count: 1,
      match: { method: 'PATCH', path: DOC_TEMPLATE },
      before: async () => {
        const now = await read();
        const blocks = now.blocks.map((b) => (b.id === figures ? { ...b, title: 'Chiffres clés (revus)' } : b));
        const r = await api('PATCH', DOC_PATH, {
          updated_at: now.updated_at,
          blocks: [...blocks, { id: 'user-autre', type: 'paragraph', text: 'Ajout concurrent' }],
        });
        expect(r.status).toBe(200);
        theirs = r.json.data;
      },
    });
    sandbox.clearRequests();

    const r = await stack.call('edit_document_blocks', {
      engagement: ENGAGEMENT_AP,
      kind: KIND,
      edits: [{ op: 'replace', id: paragraph, block: { type: 'paragraph', text: 'Ma version.' } }],
    });
    expect(r.isError, textOf(r)).toBeFalsy();
    const out = editDocumentBlocksOutput.parse(r.structuredContent);
    expect(out.reapplied).toBe(true);
    expect(out.changed_by_others).toEqual([figures, 'user-autre']);
    expect(textOf(r)).toMatch(/Someone else saved the document meanwhile/);

    const after = await read();
    // Their change is kept, block for block; ours is applied on top.
    for (const b of theirs?.blocks ?? []) if (b.id !== paragraph) expect(json(byId(after.blocks, b.id as string)), b.id).toBe(json(b));
    expect(byId(after.blocks, figures)?.title).toBe('Chiffres clés (revus)');
    expect(byId(after.blocks, 'user-autre')).toBeDefined();
    expect(byId(after.blocks, paragraph)?.text).toBe('Ma version.');
    // The stale write was refused (the spec's 422 on updated_at), the second one went through: never
    // a write sent blind, and theirs between them.
    expect(writes().map((w) => w.status)).toEqual([200, 422, 200]);
  });

  it('reports a conflict naming the block when another writer changed one the edits replace, and loses neither side', async () => {
    const before = await read();
    const [, paragraph] = before.blocks.map((b) => b.id as string) as [string, string];
    let theirs: Doc | undefined;
    sandbox.admin.fault({
      count: 1,
      match: { method: 'PATCH', path: DOC_TEMPLATE },
      before: async () => {
        const now = await read();
        const blocks = now.blocks.map((b) => (b.id === paragraph ? { ...b, text: 'Leur version.' } : b));
        theirs = (await api('PATCH', DOC_PATH, { updated_at: now.updated_at, blocks })).json.data;
      },
    });
    sandbox.clearRequests();

    const r = await stack.call('edit_document_blocks', {
      engagement: ENGAGEMENT_AP,
      kind: KIND,
      edits: [
        { op: 'replace', id: paragraph, block: { type: 'paragraph', text: 'Ma version.' } },
        { op: 'insert', after: null, block: { type: 'heading', level: 2, text: 'Nouveau' } },
      ],
    });
    expect(r.isError).toBe(true);
    expect(errorDetail(r)).toMatchObject({ code: 'conflict', changed: [paragraph], gone: [] });
    expect(textOf(r)).toContain(`${paragraph} (changed)`);
    expect(textOf(r)).toMatch(/Their change is kept; none of these edits was applied/);
    // The document is theirs, exactly: nothing of ours half-applied, nothing of theirs lost.
    expect(json(await read())).toBe(json({ ...theirs }));
    expect(writes().map((w) => w.status)).toEqual([200, 422]);
  });

  it('reports a conflict when a block the edits place after was deleted meanwhile', async () => {
    const before = await read();
    const figures = before.blocks[2]?.id as string;
    sandbox.admin.fault({
      count: 1,
      match: { method: 'PATCH', path: DOC_TEMPLATE },
      before: async () => {
        const now = await read();
        await api('PATCH', DOC_PATH, { updated_at: now.updated_at, blocks: now.blocks.filter((b) => b.id !== figures) });
      },
    });
    const r = await stack.call('edit_document_blocks', {
      engagement: ENGAGEMENT_AP,
      kind: KIND,
      edits: [{ op: 'insert', after: figures, block: { type: 'paragraph', text: 'Après les chiffres' } }],
    });
    expect(r.isError).toBe(true);
    expect(errorDetail(r)).toMatchObject({ code: 'conflict', changed: [], gone: [figures] });
    expect(byId((await read()).blocks, figures)).toBeUndefined();
  });

  it('refuses an unknown finding, evidence or process before anything is written', async () => {
    const before = await read();
    sandbox.clearRequests();
    const unknown = '01M1D4MS5080000000GGT70V00';
    const r = await stack.call('edit_document_blocks', {
      engagement: ENGAGEMENT_AP,
      kind: KIND,
      edits: [
        { op: 'insert', after: null, block: { type: 'callout', tone: 'info', text: 'Voir constat', refs: [{ type: 'finding', id: unknown }] } },
        { op: 'insert', after: null, block: { type: 'quote', evidence_id: unknown } },
        { op: 'insert', after: null, block: { type: 'process', process_id: unknown } },
      ],
    });
    expect(r.isError).toBe(true);
    expect(errorDetail(r)).toMatchObject({ code: 'unknown_reference' });
    const fields = Object.keys(errorDetail(r)?.fields as Record<string, string>);
    expect(fields).toEqual(['edits.0.block.refs.0.id', 'edits.1.block.evidence_id', 'edits.2.block.process_id']);
    expect(textOf(r)).toContain(`no finding of engagement ${ENGAGEMENT_AP} has this id`);
    // Reads to check against, and no write at all.
    expect(writes()).toHaveLength(0);
    expect(sandbox.requests().every((q) => q.method === 'GET')).toBe(true);
    expect(json(await read())).toBe(json(before));
  });

  it('accepts what the engagement does hold: a validated finding, one of its evidences, a process its documents name', async () => {
    const findings = (await api('GET', `/engagements/${ENGAGEMENT_AP}/findings?limit=200`)).json.data as { id: string; evidences: { id: string }[] }[];
    const evidence = findings.flatMap((f) => f.evidences)[0]?.id as string;
    const sheets = (await api('GET', `/engagements/${ENGAGEMENT_AP}/deliverable/documents/process_sheets`)).json.data as Doc;
    const process = sheets.blocks.find((b) => b.type === 'process')?.process_id as string;
    const r = await stack.call('edit_document_blocks', {
      engagement: ENGAGEMENT_AP,
      kind: KIND,
      edits: [
        { op: 'insert', after: null, block: { type: 'quote', evidence_id: evidence } },
        { op: 'insert', after: null, block: { type: 'process', process_id: process, show_map: false } },
      ],
    });
    expect(r.isError, textOf(r)).toBeFalsy();
    // Inserted without ids, each is given one (the answer says which).
    const minted = expect.stringMatching(/^user-[0-9a-z]{10}$/);
    expect((await read()).blocks.slice(0, 2)).toEqual([
      { id: minted, type: 'process', process_id: process, show_map: false },
      { id: minted, type: 'quote', evidence_id: evidence },
    ]);
  });

  it('refuses edits naming a block the document does not have, listing the ids it has, and writes nothing', async () => {
    const before = await read();
    sandbox.clearRequests();
    const r = await stack.call('edit_document_blocks', { engagement: ENGAGEMENT_AP, kind: KIND, edits: [{ op: 'delete', id: 'gen-nope' }] });
    expect(r.isError).toBe(true);
    expect(errorDetail(r)).toMatchObject({ code: 'unknown_block', fields: { 'edits.0': 'id: no block has the id gen-nope' } });
    expect(textOf(r)).toContain(`Block ids of ${KIND}: ${before.blocks.map((b) => b.id).join(', ')}`);
    expect(writes()).toHaveLength(0);
  });

  it('refuses an edit missing what its op needs, naming the field, with no request at all', async () => {
    sandbox.clearRequests();
    const r = await stack.call('edit_document_blocks', {
      engagement: ENGAGEMENT_AP,
      kind: KIND,
      // As strict-mode clients send them: null for every field left out.
      edits: [
        { op: 'insert', id: null, after: null, block: null },
        { op: 'move', id: 'x', after: undefined, block: null },
      ],
    });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain('edits.0.block: required for insert: the whole new block');
    expect(textOf(r)).toContain('edits.1.after: required for move');
    expect(sandbox.requests()).toHaveLength(0);
  });

  it('refuses a field the spec does not list in a block the model writes, with no request', async () => {
    sandbox.clearRequests();
    const r = await stack.call('edit_document_blocks', {
      engagement: ENGAGEMENT_AP,
      kind: KIND,
      edits: [{ op: 'insert', after: null, block: { type: 'paragraph', text: 'x', colour: 'red' } }],
    });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain('edits.0.block: unknown field colour: remove it');
    expect(sandbox.requests()).toHaveLength(0);
  });

  it('answers a 2026-07-28 client the same way, its result checked against the listed output schema', async () => {
    const before = await read();
    const modern = await stack.connect('modern');
    const listed = (await modern.listTools()).tools.find((t) => t.name === 'edit_document_blocks');
    expect(listed?.outputSchema).toBeDefined();
    const r = await modern.callTool({
      name: 'edit_document_blocks',
      arguments: { engagement: ENGAGEMENT_AP, kind: KIND, edits: [{ op: 'move', id: before.blocks[0]?.id, after: before.blocks[1]?.id }] },
    });
    expect(r.isError, textOf(r as never)).toBeFalsy();
    expect(editDocumentBlocksOutput.parse(r.structuredContent).changes).toEqual([{ op: 'move', id: before.blocks[0]?.id, at: 1 }]);
    expect((await read()).blocks.map((b) => json(b))).toEqual([before.blocks[1], before.blocks[0], ...before.blocks.slice(2)].map((b) => json(b)));
  });

  it('reports a write whose answer was lost as outcome unknown, and does not send it again', async () => {
    const before = await read();
    sandbox.admin.fault({ count: 1, status: 502, after_handler: true, match: { method: 'PATCH', path: DOC_TEMPLATE } });
    sandbox.clearRequests();
    const r = await stack.call('edit_document_blocks', {
      engagement: ENGAGEMENT_AP,
      kind: KIND,
      edits: [{ op: 'delete', id: before.blocks[1]?.id }],
    });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/may or may not have been applied/);
    expect(writes()).toHaveLength(1);
  });

  it('chains: an inserted block without an id gets one, returned, and a second call replaces it by that id', async () => {
    const before = await read();
    const heading = before.blocks[0]?.id as string;
    const first = await stack.call('edit_document_blocks', {
      engagement: ENGAGEMENT_AP,
      kind: KIND,
      edits: [{ op: 'insert', after: heading, block: { type: 'paragraph', text: 'Brouillon' } }],
    });
    expect(first.isError, textOf(first)).toBeFalsy();
    const minted = editDocumentBlocksOutput.parse(first.structuredContent).changes[0]?.id;
    expect(minted).toMatch(/^user-[0-9a-z]{10}$/);
    expect(textOf(first)).toContain(`insert: ${minted}`);
    expect(byId((await read()).blocks, minted as string)).toEqual({ id: minted, type: 'paragraph', text: 'Brouillon' });

    const second = await stack.call('edit_document_blocks', {
      engagement: ENGAGEMENT_AP,
      kind: KIND,
      edits: [{ op: 'replace', id: minted, block: { type: 'paragraph', text: 'Version finale' } }],
    });
    expect(second.isError, textOf(second)).toBeFalsy();
    expect(editDocumentBlocksOutput.parse(second.structuredContent).changes).toEqual([{ op: 'replace', id: minted, at: 1 }]);
    const after = await read();
    expect(byId(after.blocks, minted as string)).toEqual({ id: minted, type: 'paragraph', text: 'Version finale' });
    expect(after.blocks).toHaveLength(before.blocks.length + 1);
  });

  it("keeps the caller's id on an inserted block, and mints a different id for each block inserted without one", async () => {
    const r = await stack.call('edit_document_blocks', {
      engagement: ENGAGEMENT_AP,
      kind: KIND,
      edits: [
        { op: 'insert', after: null, block: { id: 'user-mine', type: 'paragraph', text: 'A' } },
        { op: 'insert', after: 'user-mine', block: { type: 'paragraph', text: 'B' } },
        { op: 'insert', after: 'user-mine', block: { id: null, type: 'paragraph', text: 'C' } },
      ],
    });
    expect(r.isError, textOf(r)).toBeFalsy();
    const ids = editDocumentBlocksOutput.parse(r.structuredContent).changes.map((c) => c.id);
    expect(ids[0]).toBe('user-mine');
    expect(new Set(ids).size).toBe(3);
    expect((await read()).blocks.slice(0, 3).map((b) => [b.id, b.text])).toEqual([
      ['user-mine', 'A'],
      [ids[2], 'C'],
      [ids[1], 'B'],
    ]);
  });

  it("takes a block's options as an object or as its JSON text, and stores the object either way", async () => {
    const table = (options: unknown, id: string) => ({
      op: 'insert',
      after: null,
      block: { id, type: 'table', title: 'Entretiens', data_ref: 'interviews', options },
    });
    const options = { columns: ['Rôle', 'Service'], rows: [['Comptable', 'Finance']] };
    const r = await stack.call('edit_document_blocks', {
      engagement: ENGAGEMENT_AP,
      kind: KIND,
      edits: [table(options, 'user-table-object'), table(JSON.stringify(options), 'user-table-text')],
    });
    expect(r.isError, textOf(r)).toBeFalsy();
    const after = await read();
    expect(byId(after.blocks, 'user-table-object')?.options).toEqual(options);
    expect(byId(after.blocks, 'user-table-text')?.options).toEqual(options);
  });

  it('points to the outline read, which gives every block id, type and first words and the updated_at in at most 300 tokens', async () => {
    const listed = (await stack.client.listTools()).tools;
    expect(listed.find((t) => t.name === 'edit_document_blocks')?.description).toMatch(/document_context with outline: true/);
    const doc = await read();
    const r = await stack.call('document_context', { engagement: ENGAGEMENT_AP, kind: KIND, outline: true });
    expect(r.isError, textOf(r)).toBeFalsy();
    const text = textOf(r);
    const [outline, findings] = text.split('Validated findings to cite') as [string, string];
    expect(outline).toContain(`updated_at ${doc.updated_at}`);
    for (const b of doc.blocks) expect(outline).toContain(`${b.id} ${String(b.type)}`);
    // First words, not the text: the demo's long paragraph is cut.
    const paragraph = doc.blocks.find((b) => b.type === 'paragraph');
    expect(outline).not.toContain(String(paragraph?.text));
    expect(outline).toContain(String(paragraph?.text).split(' ').slice(0, 5).join(' '));
    expect(encode(outline).length).toBeLessThanOrEqual(300);
    // The findings a new block may cite: the validated ones, by id.
    const validated = (await api('GET', `/engagements/${ENGAGEMENT_AP}/findings?limit=200`)).json.data.filter(
      (f: { review_status: string }) => f.review_status === 'validated',
    );
    for (const f of validated) expect(findings).toContain(f.id);
    const structured = r.structuredContent as { document: { updated_at: string; blocks: Array<{ id: string }> } };
    expect(structured.document.updated_at).toBe(doc.updated_at);
    expect(structured.document.blocks.map((b) => b.id)).toEqual(doc.blocks.map((b) => b.id));
  });

  it('answers an outline of an engagement the workspace does not have with an error, and no outline', async () => {
    const r = await stack.call('document_context', { engagement: '01ZZZZZZZZZZZZZZZZZZZZZZZZ', kind: KIND, outline: true });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/404|not found/i);
    expect(textOf(r)).not.toContain('blocks (id type');
  });
});
