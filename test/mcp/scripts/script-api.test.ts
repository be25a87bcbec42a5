// A script's `api` is everything the model can call: the session's tools (workflows, block edits, the
// apps' data tools) and every catalog or live operation, each call through the pipeline under the same
// policy, and what a read script may call decided by the one write check. Over real parts: the SDK
// client on Streamable HTTP, the sandbox over HTTP (its request log shows what was sent).
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ENGAGEMENT_AP } from '../../../src/sandbox/data/ids.js';
import type { SandboxHandle } from '../../../src/sandbox/index.js';
import { type Stack, startDefaultStack, stopDefaultStack, textOf } from '../../helpers/stack.js';

const KIND = 'executive_summary';
const E = JSON.stringify(ENGAGEMENT_AP);

let sandbox: SandboxHandle;
let stack: Stack;

beforeAll(async () => {
  ({ sandbox, stack } = await startDefaultStack());
});
afterAll(() => stopDefaultStack({ sandbox, stack }));
beforeEach(() => {
  sandbox.admin.reset();
});

const apiRequests = () => sandbox.requests().filter((r) => r.path.startsWith('/api/v1/'));
const result = (r: CallToolResult) => (r.structuredContent as { result?: unknown }).result;

describe('api reaches the tools of the surface and every operation', () => {
  it('a write script calls api.document_context, api.edit_document_blocks and a catalog operation', async () => {
    const r = await stack.call('run_write_script', {
      script: `
        const ctx = await api.document_context({ engagement: ${E}, kind: '${KIND}' });
        const first = ctx.document.blocks[0].id;
        const edit = await api.edit_document_blocks({ engagement: ${E}, kind: '${KIND}', edits: [
          { op: 'insert', after: first, block: { id: 'from-a-script', type: 'paragraph', text: 'Written by a script.' } },
        ] });
        const doc = await api.get_deliverable_document({ engagement: ${E}, kind: '${KIND}' });
        return {
          validated: ctx.findings.validated.length > 0,
          changes: edit.changes,
          second: doc.blocks[1],
          same: doc.updated_at === edit.updated_at,
        };
      `,
    });
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(result(r)).toEqual({
      validated: true,
      changes: [{ op: 'insert', id: 'from-a-script', at: 1 }],
      second: { id: 'from-a-script', type: 'paragraph', text: 'Written by a script.' },
      same: true,
    });
    expect((r.structuredContent as { writes: unknown }).writes).toEqual([{ operation: 'edit_document_blocks', ok: true }]);
  });

  it("a read script calls a read workflow and an app's data tool (its view aside)", async () => {
    const r = await stack.call('run_read_script', {
      script: `
        const o = await api.engagement_overview({ engagement: ${E} });
        const board = await api.review_board({ engagement: ${E} });
        return [typeof o.findings, Array.isArray(board.findings), typeof board.total];
      `,
    });
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(result(r)).toEqual(['object', true, 'number']);
  });

  it('a read script calling a write by any name is refused with nothing sent', async () => {
    sandbox.clearRequests();
    const r = await stack.call('run_read_script', {
      script: `
        const tries = {
          edit_document_blocks: () => api.edit_document_blocks({ engagement: ${E}, kind: '${KIND}', edits: [{ op: 'delete', id: 'x' }] }),
          review_findings: () => api.review_findings({ engagement: ${E}, reviews: [{ finding: '01ZZZZZZZZZZZZZZZZZZZZZZZZ', review_status: 'validated' }] }),
          update_finding: () => api.update_finding({ engagement: ${E}, finding: '01ZZZZZZZZZZZZZZZZZZZZZZZZ', statement: 'x' }),
          call_operation: () => api.call_operation({ operation: 'delete_finding', arguments: { engagement: ${E}, finding: '01ZZZZZZZZZZZZZZZZZZZZZZZZ' } }),
          run_write_script: () => api.run_write_script({ script: 'return 1' }),
        };
        const out = {};
        for (const [name, f] of Object.entries(tries)) {
          try { await f(); out[name] = 'sent'; } catch (e) { out[name] = e.name + ':' + e.code; }
        }
        return out;
      `,
    });
    expect(result(r)).toEqual({
      edit_document_blocks: 'RefusedError:read_script',
      review_findings: 'RefusedError:read_script',
      update_finding: 'RefusedError:read_script',
      call_operation: 'RefusedError:unknown',
      run_write_script: 'RefusedError:unknown',
    });
    expect(apiRequests()).toEqual([]);
  });

  it("the script tools' descriptions say api reaches the tools too", async () => {
    const tools = (await stack.client.listTools()).tools;
    expect(tools.find((t) => t.name === 'run_read_script')?.description).toMatch(
      /api\.<name>\(args\)` calls any tool listed here \(but call_operation and the scripts\) or any operation/,
    );
  });

  it('describe_operation gives the signature of a tool of the surface, as a script calls it', async () => {
    const r = await stack.call('describe_operation', { operation: 'document_context' });
    expect(r.isError, textOf(r)).toBeFalsy();
    const sig = (r.structuredContent as { signature: string }).signature;
    expect(sig).toMatch(/^api\.document_context\(args: \{engagement: string; kind: "[^}]*"executive_summary"[^}]*\}\)/);
    // Typed as deep as the answer's schema says: a script reads document.blocks without guessing.
    expect(sig).toMatch(/\): Promise<\{kind: string; document: \{[^}]*blocks\?: \{id\?: string\|null; type: string;/);
    expect(sig).toMatch(/findings\?: \{validated\?: \{id: string;/);
    const edit = (await stack.call('describe_operation', { operation: 'edit_document_blocks' })).structuredContent as { signature: string; scope: string };
    expect(edit.signature).toMatch(
      /^api\.edit_document_blocks\(args: \{engagement: string; kind: .*; edits: \{op: "insert"\|"replace"\|"update"\|"delete"\|"move"/,
    );
    expect(edit.scope).toBe('write');
  });
});
