// WORKSPACE_TOOLSETS=code: code mode only, for agent builders. tools/list shows the two script tools,
// find_operations and describe_operation, within 1,000 o200k tokens of what the model sees, and the
// deliverable job (list, read the document, insert a paragraph, add a key figure, rewrite a paragraph,
// delete a block, save, export) is done through them: one search to learn the names, one script.
// Over real parts: the SDK client on Streamable HTTP, the sandbox over HTTP.
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUDGETS, modelVisibleTokens, sandboxOperations, toolListFor } from '../../../bench/tokens.js';
import { ENGAGEMENT_AP } from '../../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { type Stack, startStack, textOf } from '../../helpers/stack.js';

const KIND = 'executive_summary';
const CODE_TOOLS = ['run_read_script', 'run_write_script', 'find_operations', 'describe_operation'];

type Block = Record<string, unknown> & { id: string; type: string };

let sandbox: SandboxHandle;
let stack: Stack;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  stack = await startStack({ sandboxHandle: sandbox, env: { WORKSPACE_TOOLSETS: 'code' } });
});
afterAll(async () => {
  await stack.close();
  await sandbox.close();
});

async function documentNow(): Promise<{ blocks: Block[] }> {
  const res = await fetch(`${sandbox.api}/engagements/${ENGAGEMENT_AP}/deliverable/documents/${KIND}`, {
    headers: { authorization: `Bearer ${sandbox.tokens.write}` },
  });
  return ((await res.json()) as { data: { blocks: Block[] } }).data;
}

describe('WORKSPACE_TOOLSETS=code', () => {
  it('lists only the two script tools, find_operations and describe_operation, within 1,000 tokens', async () => {
    const { tools } = await stack.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(CODE_TOOLS);
    expect(modelVisibleTokens(tools)).toBeLessThanOrEqual(BUDGETS.codeTokens);
    // The same listing the token bench measures, over the live description's operations too.
    const offline = toolListFor({ toolsets: 'code', readOnly: false }, sandboxOperations()).tools;
    expect(offline.map((t) => t.name)).toEqual(CODE_TOOLS);
    expect(modelVisibleTokens(offline)).toBeLessThanOrEqual(BUDGETS.codeTokens);
  });

  it('names the tools a script can call that are not listed, and find_operations answers signatures', async () => {
    const { tools } = await stack.client.listTools();
    const read = tools.find((t) => t.name === 'run_read_script')?.description ?? '';
    for (const name of ['engagement_overview', 'document_context', 'edit_document_blocks', 'review_findings']) expect(read).toContain(name);
    const found = await stack.call('find_operations', { query: 'export a deliverable document as a PDF file', limit: 3 });
    const lines = textOf(found).split('\n');
    expect(lines.some((l) => l.startsWith('api.create_export(args: {engagement: string; kind: '))).toBe(true);
  });

  it("find_operations finds the server's tools a script calls too, first, by their signature", async () => {
    const edits = await stack.call('find_operations', { query: 'edit the blocks of a deliverable document', limit: 3 });
    expect(textOf(edits).split('\n')[1]).toMatch(/^api\.edit_document_blocks\(args: \{engagement: string; .*\[write\]$/);
    expect((edits.structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name)).toContain('edit_document_blocks');
    const brief = await stack.call('find_operations', { query: 'brief me on an engagement', limit: 3 });
    expect(textOf(brief).split('\n')[0]).toMatch(/^api\.engagement_overview\(args: \{engagement: string\}\): Promise<\{engagement: unknown; /);
    // A request no tool says is answered with operations alone.
    const exports = await stack.call('find_operations', { query: 'export a deliverable document as a PDF file', limit: 3 });
    expect(exports.structuredContent).not.toHaveProperty('tools');
  });

  it("answers at most limit entries, the server's tools counted, and types what document_context and create_export answer", async () => {
    for (const limit of [1, 2, 4]) {
      const r = await stack.call('find_operations', { query: 'edit the blocks of a deliverable document', limit });
      const sc = r.structuredContent as { operations: unknown[]; tools?: unknown[] };
      expect(sc.operations.length + (sc.tools?.length ?? 0)).toBe(limit);
      expect(
        textOf(r)
          .split('\n')
          .filter((l) => l.startsWith('api.')),
      ).toHaveLength(limit);
    }
    const context = textOf(await stack.call('find_operations', { query: 'what drafting a deliverable document needs', limit: 2 }));
    // The document's blocks and the findings to cite, typed: a script need not guess document.blocks.
    expect(context).toMatch(
      /^api\.document_context\(args: \{engagement: string; kind: [^)]*\): Promise<\{kind: string; document: \{updated_at\?: string; blocks\?: \{id\?: string\|null; type: string;[^\n]*findings\?: \{validated\?: \{id: string;/m,
    );
    const exports = textOf(await stack.call('find_operations', { query: 'export a deliverable document as a PDF file', limit: 1 }));
    expect(exports).toMatch(/^api\.create_export\(.*; file\?: \{path: string; name: string; size: number; content_type: string\}\}> \[write\]$/);
  });

  it('does the deliverable job: list, read, insert a paragraph, add a key figure, rewrite a paragraph, delete a block, save, export', async () => {
    const before = await documentNow();
    const script = `
      const engagement = ${JSON.stringify(ENGAGEMENT_AP)}, kind = ${JSON.stringify(KIND)};
      const docs = await api.list_deliverable_documents({ engagement });
      const doc = await api.get_deliverable_document({ engagement, kind });
      const paragraph = doc.blocks.find((b) => b.type === 'paragraph');
      const figures = doc.blocks.find((b) => b.type === 'key_figures');
      const stale = doc.blocks.filter((b) => b.type === 'callout').at(-1);
      const saved = await api.edit_document_blocks({ engagement, kind, edits: [
        { op: 'insert', after: paragraph.id, block: { id: 'agent-paragraph', type: 'paragraph', text: 'Un paragraphe ajouté.' } },
        { op: 'replace', id: figures.id, block: { ...figures, items: [...figures.items, '2 constats validés'] } },
        { op: 'replace', id: paragraph.id, block: { ...paragraph, text: 'Paragraphe réécrit.' } },
        { op: 'delete', id: stale.id },
      ] });
      const exported = await api.create_export({ engagement, kind: 'document_pdf', document_kind: kind });
      return { documents: docs.items.length, removed: stale.id, changes: saved.changes.length, export: exported.state, file: exported.file?.file?.name ?? null };
    `;
    const r: CallToolResult = await stack.call('run_write_script', { script });
    expect(r.isError, textOf(r)).toBeFalsy();
    const out = (r.structuredContent as { result: { documents: number; removed: string; changes: number; export: string } }).result;
    expect(out).toMatchObject({ changes: 4, export: 'succeeded' });
    expect(out.documents).toBeGreaterThan(0);

    const after = await documentNow();
    const paragraph = before.blocks.find((b) => b.type === 'paragraph') as Block;
    const figures = before.blocks.find((b) => b.type === 'key_figures') as Block;
    expect(after.blocks.find((b) => b.id === paragraph.id)?.text).toBe('Paragraphe réécrit.');
    expect(after.blocks.find((b) => b.id === 'agent-paragraph')).toEqual({ id: 'agent-paragraph', type: 'paragraph', text: 'Un paragraphe ajouté.' });
    expect(after.blocks.find((b) => b.id === figures.id)?.items).toEqual([...(figures.items as string[]), '2 constats validés']);
    expect(after.blocks.some((b) => b.id === out.removed)).toBe(false);
    expect(after.blocks).toHaveLength(before.blocks.length);
  });
});
