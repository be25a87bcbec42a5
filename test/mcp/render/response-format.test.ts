// response_format on read tools: concise by default (tables and lines, what matters), detailed on
// request (every field, as compact JSON); `fields` works in both; structuredContent is the same
// either way; a bad value, or the argument on a write, is refused before any request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compact } from '../../../src/mcp/render/index.js';
import { ENGAGEMENT_AP } from '../../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { type Stack, startStack, textOf } from '../../helpers/stack.js';

let sandbox: SandboxHandle;
let stack: Stack;
let surface: Stack;
let findingId: string;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  stack = await startStack({ sandboxHandle: sandbox, liveOpenApi: false });
  surface = await startStack({ sandboxHandle: sandbox, env: { WORKSPACE_TOOLSETS: 'default' } });
  findingId = (
    (await stack.api.request({ method: 'GET', path: '/engagements/{engagement}/findings', pathParams: { engagement: ENGAGEMENT_AP } })).data as { id: string }[]
  )[0]!.id;
});
afterAll(async () => {
  await surface.close();
  await stack.close();
  await sandbox.close();
});

const E = ENGAGEMENT_AP;
const dataBlock = (text: string) =>
  text
    .split('\n')
    .filter((l) => !/^(\d+ records?|Concise form|Cut to stay)/.test(l))
    .join('\n');

describe('response_format', () => {
  it('defaults to concise on reads: a list as one table, a record as lines', async () => {
    const list = textOf(await stack.call('list_findings', { engagement: E }));
    expect(list).toMatch(/^findings\[22\]\{id\|type\|statement\|/);
    expect(list).toMatch(/Concise form: left out .*created_at.*; evidences_count counts nested records/);
    const one = textOf(await stack.call('get_finding', { engagement: E, finding: findingId }));
    expect(one).toMatch(new RegExp(`^id: ${findingId}\\ntype: `));
    expect(one).toMatch(/\nevidences\[\d+\]\{id\|source_type\|/);
  });

  it('detailed shows every field of the records, as compact JSON', async () => {
    const api = await stack.api.request({
      method: 'GET',
      path: '/engagements/{engagement}/findings/{finding}',
      pathParams: { engagement: E, finding: findingId },
    });
    const one = textOf(await stack.call('get_finding', { engagement: E, finding: findingId, response_format: 'detailed' }));
    expect(JSON.parse(one.split('\n')[0]!)).toEqual(compact(api.data, [E, findingId]));
    const list = textOf(await stack.call('list_findings', { engagement: E, limit: 5, response_format: 'detailed' }));
    const listed = JSON.parse(list.split('\n')[0]!) as Record<string, unknown>[];
    expect(listed).toHaveLength(5);
    for (const f of listed) expect(f).toHaveProperty('created_at');
    expect(list).not.toMatch(/Concise form/);
  });

  it('gives structuredContent the same full records either way', async () => {
    const c = await stack.call('list_findings', { engagement: E, limit: 5 });
    const d = await stack.call('list_findings', { engagement: E, limit: 5, response_format: 'detailed' });
    expect(c.structuredContent).toEqual(d.structuredContent);
    expect((c.structuredContent as { items: object[] }).items[0]).toHaveProperty('evidences');
  });

  it('keeps fields working in both forms, even for fields the concise form leaves out', async () => {
    const c = textOf(await stack.call('list_findings', { engagement: E, limit: 3, fields: ['id', 'created_at'] }));
    expect(c.split('\n')[0]).toMatch(/^findings\[3\]\{id\}( all with created_at=\S+)?:$|^findings\[3\]\{id\|created_at\}:$/);
    expect(c).not.toMatch(/Concise form/);
    const d = textOf(await stack.call('list_findings', { engagement: E, limit: 3, fields: ['id', 'created_at'], response_format: 'detailed' }));
    for (const f of JSON.parse(d.split('\n')[0]!) as object[]) expect(Object.keys(f).sort()).toEqual(['created_at', 'id']);
    const nested = textOf(await stack.call('list_findings', { engagement: E, limit: 2, fields: ['id', 'evidences.excerpt'] }));
    expect(dataBlock(nested)).toMatch(/\|\[\{"excerpt":"/);
  });

  it('a value other than concise or detailed is refused before any request', async () => {
    sandbox.clearRequests();
    const r = await stack.call('list_findings', { engagement: E, response_format: 'short' });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/response_format: must be one of "concise", "detailed"/);
    expect(sandbox.requests()).toHaveLength(0);
  });

  it('a null value is the default, as clients send for an optional argument', async () => {
    const r = await stack.call('list_findings', { engagement: E, limit: 2, response_format: null });
    expect(r.isError).toBeFalsy();
    expect(textOf(r)).toMatch(/^findings\[2\]/);
  });

  it('is not an argument of writes, which answer the record written in full', async () => {
    sandbox.clearRequests();
    const refused = await stack.call('review_finding', { engagement: E, finding: findingId, review_status: 'validated', response_format: 'concise' });
    expect(refused.isError).toBe(true);
    expect(sandbox.requests().filter((q) => q.method === 'POST')).toHaveLength(0);
    const done = textOf(await stack.call('review_finding', { engagement: E, finding: findingId, review_status: 'validated' }));
    expect(JSON.parse(done.split('\n')[0]!)).toHaveProperty('updated_at');
  });

  it('is shown on the read tools of the default surface and on no write', async () => {
    const { tools } = await surface.client.listTools();
    for (const t of tools) {
      const meta = t._meta?.['workspace-consulting/operation'] as { method: string } | undefined;
      if (!meta) continue;
      const props = (t.inputSchema.properties ?? {}) as Record<string, unknown>;
      if (meta.method === 'GET' && !t.name.startsWith('download_'))
        expect(props.response_format, t.name).toEqual({ type: 'string', enum: ['concise', 'detailed'] });
      else expect(props.response_format, t.name).toBeUndefined();
    }
    const described = await surface.call('describe_operation', { operation: 'get_analysis_summary' });
    expect((described.structuredContent as { input_schema: { properties: Record<string, unknown> } }).input_schema.properties.response_format).toBeDefined();
  });
});
