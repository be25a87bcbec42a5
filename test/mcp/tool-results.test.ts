// The result contract (docs/tool-results.md): every tool declares an outputSchema, and what a call
// answers conforms to it under the SDK client's own validation (the client, once it holds the
// listing, checks structuredContent against the tool's schema on every callTool and rejects a call
// that does not match). Each tool of the default surface is called here on a fresh sandbox's
// deterministic demo data, and its result (structured and text) matches its reviewed snapshot in
// ./result-snapshots, written by `npm run snapshots` like the listing's. Every other read operation's
// tool is snapshotted the same way in read-results.test.ts; every catalog operation's tool is called,
// and validated the same way, in test/catalog/every-operation.test.ts.
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_META_KEY } from '../../src/mcp/render/tool-result.js';
import { ENGAGEMENT_AP, SESSION_AP_CLERK } from '../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { expectResultSnapshot } from '../helpers/result-snapshot.js';
import { type Stack, startStack, textOf } from '../helpers/stack.js';

const E = ENGAGEMENT_AP;
type Rec = Record<string, unknown> & { id: string };

let sandbox: SandboxHandle;
let stack: Stack;
const listed = new Map<string, Tool>();
const called = new Set<string>();

beforeAll(async () => {
  // Jobs stand still (a thousand times slower than real) and the calls that start one answer at once
  // (WORKSPACE_JOB_WAIT_SECONDS 0): no answer depends on how far a job got meanwhile. (The reads of
  // a finished export left the default surface: read-results.test.ts snapshots them.)
  sandbox = await startSandbox({ port: 0, rateLimit: false, timeScale: 1000 });
  stack = await startStack({ sandboxHandle: sandbox, env: { WORKSPACE_TOOLSETS: 'default', WORKSPACE_JOB_WAIT_SECONDS: '0' } });
  // The listing the client validates every result against.
  for (const t of (await stack.client.listTools()).tools) listed.set(t.name, t);
});
afterAll(async () => {
  await stack?.close();
  await sandbox?.close();
});

async function list(path: string, query: Record<string, unknown> = {}): Promise<Rec[]> {
  return (await stack.api.request({ method: 'GET', path, query: { limit: 200, ...query } })).data as Rec[];
}

/** Call a listed tool (the client validates its structuredContent), check it succeeded, compare with its snapshot. */
async function call(name: string, args: Record<string, unknown> = {}): Promise<any> {
  expect(listed.has(name), `${name} is listed`).toBe(true);
  // The listed definition, given to callTool: the client checks the result against its outputSchema
  // on this call whatever its cache holds.
  const r = (await stack.client.callTool({ name, arguments: args }, { toolDefinition: listed.get(name) as Tool })) as CallToolResult;
  expect(r.isError, `${name}: ${textOf(r)}`).toBeFalsy();
  expect(r.structuredContent, name).toBeTypeOf('object');
  called.add(name);
  await expectResultSnapshot(name, r, { folders: [stack.config.downloadDir] });
  return r.structuredContent;
}

describe('the result contract', () => {
  it('every tool of the default and all surfaces declares an object outputSchema', async () => {
    expect(listed.size).toBeGreaterThan(0);
    for (const t of listed.values()) expect(t.outputSchema, t.name).toMatchObject({ type: 'object' });
    const all = await startStack({ sandboxHandle: sandbox, env: { WORKSPACE_TOOLSETS: 'all' } });
    try {
      const tools = (await all.client.listTools()).tools;
      expect(tools.length).toBeGreaterThan(listed.size);
      for (const t of tools) expect(t.outputSchema, t.name).toMatchObject({ type: 'object' });
    } finally {
      await all.close();
    }
  });

  it('the client refuses a result that does not match the outputSchema it holds for the tool', async () => {
    // The same call with a listing whose schema the real answer cannot meet: proof that the client's
    // validation runs on callTool, so the calls below that pass are held to their declared schemas.
    const tool = listed.get('list_findings') as Tool;
    const stricter = { ...tool, outputSchema: { ...tool.outputSchema, required: ['items', 'next_cursor', 'not_in_any_answer'] } } as Tool;
    await expect(stack.client.callTool({ name: 'list_findings', arguments: { engagement: E, limit: 1 } }, { toolDefinition: stricter })).rejects.toThrow(
      /does not match the tool's output schema/,
    );
  });

  it('a 2026-07-28 client holds the results to the same schemas', async () => {
    const modern = await stack.connect('modern');
    const tools = (await modern.listTools()).tools;
    for (const t of tools) expect(t.outputSchema, t.name).toEqual(listed.get(t.name)?.outputSchema);
    // A list, a record, a workflow and the gateway: each validated by the modern client on the way in.
    for (const [name, args] of [
      ['list_findings', { engagement: E, limit: 2 }],
      ['get_session_transcript', { session: SESSION_AP_CLERK }],
      ['engagement_overview', { engagement: E }],
      ['find_operations', { query: 'findings' }],
    ] as const) {
      const r = await modern.callTool({ name, arguments: args });
      expect(r.isError, name).toBeFalsy();
      expect(r.structuredContent, name).toBeTypeOf('object');
    }
  });

  it("call_operation answers what describe_operation's output_schema says, checked by the client's own validator", async () => {
    for (const [operation, args] of [
      ['list_change_proposals', { engagement: E, limit: 2 }],
      ['get_engagement', { engagement: E }],
      ['get_deliverable_draft', { engagement: E }],
    ] as const) {
      const described = (await stack.call('describe_operation', { operation })).structuredContent as { output_schema: Record<string, unknown> };
      const r = await stack.call('call_operation', { operation, arguments: args });
      expect(r.isError, operation).toBeFalsy();
      expect(new AjvJsonSchemaValidator().getValidator(described.output_schema as never)(r.structuredContent), operation).toMatchObject({ valid: true });
    }
  });

  it("an error says what went wrong in its text, and its code (first) in _meta, not in structuredContent that the tool's schema would refuse", async () => {
    const refused = await stack.call('get_finding', { engagement: E, finding: 'not-an-id' });
    expect(refused.isError).toBe(true);
    expect(refused._meta).toMatchObject({ [ERROR_META_KEY]: { code: 'invalid_arguments', fields: { finding: expect.any(String) } } });
    const missing = await stack.call('get_finding', { engagement: E, finding: '01ZZZZZZZZZZZZZZZZZZZZZZZZ' });
    expect(missing.isError).toBe(true);
    expect(missing._meta).toMatchObject({ [ERROR_META_KEY]: { status: 404, code: expect.any(String) } });
    const unknown = await stack.call('describe_operation', { operation: 'no_such_operation' });
    expect(unknown._meta).toMatchObject({ [ERROR_META_KEY]: { code: 'unknown' } });
    for (const r of [refused, missing, unknown]) expect(r.structuredContent).toBeUndefined();
  });
});

describe('every tool of the default surface, called on the demo data', () => {
  it('reads: each answer conforms to its schema and matches its snapshot', async () => {
    const findings = await list(`/engagements/${E}/findings`);
    await call('list_engagements');
    await call('list_interviews', { engagement: E });
    await call('get_session_transcript', { session: SESSION_AP_CLERK });
    await call('list_contradictions', { engagement: E });
    await call('list_findings', { engagement: E, limit: 5 });
    await call('get_finding', { engagement: E, finding: (findings[0] as Rec).id });
    await call('engagement_overview', { engagement: E });
    await call('document_context', { engagement: E, kind: 'executive_summary' });
    await call('review_board', { engagement: E });
    await call('preview_deliverable_document', { engagement: E, kind: 'executive_summary' });
    // A script that joins two reads and returns only the counts it computed.
    await call('run_read_script', {
      script: `const { items } = await api.list_findings({ engagement: ${JSON.stringify(E)}, limit: 200 });
        const open = (await api.list_contradictions({ engagement: ${JSON.stringify(E)} })).items.filter((c) => c.status === 'open');
        const byType = {};
        for (const f of items) byType[f.type] = (byType[f.type] ?? 0) + 1;
        console.log(items.length + ' findings');
        return { by_type: byType, open_contradictions: open.length };`,
    });
    await call('find_operations', { query: 'export the findings as a CSV file' });
    await call('describe_operation', { operation: 'create_export' });
    await call('call_operation', { operation: 'get_analysis_summary', arguments: { engagement: E } });
    await call('ask_audit_chat', { engagement: E, question: 'Que dit le service comptable de la double saisie des factures ?' });
  });

  it('writes and jobs: each answer conforms to its schema and matches its snapshot', async () => {
    const findings = await list(`/engagements/${E}/findings`);
    const proposed = findings.filter((f) => f.review_status === 'proposed');
    const contradiction = (await list(`/engagements/${E}/contradictions`)).find((c) => c.status === 'open') as Rec;
    await call('review_findings', { engagement: E, reviews: [{ finding: (proposed[0] as Rec).id, review_status: 'validated' }] });
    await call('resolve_contradiction', {
      engagement: E,
      contradiction: contradiction.id,
      status: 'dismissed',
      resolution_note: 'Délais confirmés par le contrôleur',
    });
    // A write script: it creates a finding (no destructive operation, so no allow) and returns its id.
    const created = await call('run_write_script', {
      script: `const f = await api.create_finding({ engagement: ${JSON.stringify(E)}, type: 're_entry', statement: 'Les factures PDF sont ressaisies à la main dans SAP' });
        return { id: f.id, review_status: f.review_status };`,
    });
    await call('update_finding', { engagement: E, finding: created.result.id, details: 'Environ 40 % des factures' });
    const doc = (await stack.api.request({ method: 'GET', path: `/engagements/${E}/deliverable/documents/executive_summary` })).data as {
      blocks: Rec[];
    };
    const [heading, paragraph] = doc.blocks as [Rec, Rec];
    await call('edit_document_blocks', {
      engagement: E,
      kind: 'executive_summary',
      edits: [
        { op: 'insert', after: heading.id, block: { id: 'user-ressaisie', type: 'paragraph', text: 'Les factures sont ressaisies à la main.' } },
        { op: 'move', id: paragraph.id, after: 'user-ressaisie' },
      ],
    });
    await call('publish_deliverable', { engagement: E, stage: 'interim', changelog: 'Ajout des constats validés' });
    await call('create_export', { engagement: E, kind: 'findings_csv' });
    await call('generate_deliverable_document', { engagement: E, kind: 'roadmap', mode: 'keep_edits', ai: false });
    await call('start_analysis_run', { engagement: E, mode: 'incremental' });
  });

  it('called every tool the default surface lists', () => {
    expect([...listed.keys()].filter((n) => !called.has(n))).toEqual([]);
  });
});
