// Tool calls through the SDK client against the sandbox over real HTTP: what reaches the sandbox, and
// what does not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorDetail } from '../../../src/mcp/render/tool-result.js';
import { ENGAGEMENT_AP } from '../../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { type Stack, startStack, textOf } from '../../helpers/stack.js';

let sandbox: SandboxHandle;
let stack: Stack;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  stack = await startStack({ sandboxHandle: sandbox });
});
afterAll(async () => {
  await stack.close();
  await sandbox.close();
});

const apiRequests = () => sandbox.requests().filter((r) => r.path.startsWith('/api/v1/'));

describe('tool calls', () => {
  it('a list call reaches exactly its endpoint and returns items with the next-page hint', async () => {
    sandbox.clearRequests();
    const r = await stack.call('list_findings', { engagement: ENGAGEMENT_AP, limit: 2 });
    expect(r.isError).toBeFalsy();
    const reqs = apiRequests();
    expect(reqs).toHaveLength(1);
    expect(reqs[0]).toMatchObject({ method: 'GET', template: '/engagements/{engagement}/findings', query: { limit: '2' }, status: 200 });
    const sc = r.structuredContent as { items: unknown[]; next_cursor: string | null };
    expect(sc.items).toHaveLength(2);
    expect(typeof sc.next_cursor).toBe('string');
    expect(textOf(r)).toContain(`cursor "${sc.next_cursor}"`);

    const next = await stack.call('list_findings', { engagement: ENGAGEMENT_AP, limit: 2, cursor: sc.next_cursor });
    const ids = (next.structuredContent as { items: { id: string }[] }).items.map((f) => f.id);
    expect(ids).not.toContain((sc.items[0] as { id: string }).id);
  });

  it('invalid input sends no request and names the field', async () => {
    sandbox.clearRequests();
    const bad = [
      ['list_findings', { engagement: ENGAGEMENT_AP, limit: 500 }],
      ['create_finding', { engagement: ENGAGEMENT_AP, type: 'nope', statement: 'x' }],
      ['get_finding', { engagement: ENGAGEMENT_AP }],
      ['review_finding', { engagement: ENGAGEMENT_AP, finding: ENGAGEMENT_AP, review_status: 'validated', extra: true }],
      ['list_findings', { engagement: 42 }],
    ] as const;
    for (const [name, args] of bad) {
      const r = await stack.call(name, args as Record<string, unknown>);
      expect(r.isError, name).toBe(true);
      expect(textOf(r)).toMatch(/nothing was sent/);
    }
    expect(apiRequests()).toHaveLength(0);
  });

  it('an id like ../../workspace is refused before any request', async () => {
    sandbox.clearRequests();
    for (const id of ['../../workspace', '..%2F..%2Fworkspace', '01M1D4MS5080000000GGT70VZ/', `${'.'.repeat(26)}`]) {
      const r = await stack.call('get_finding', { engagement: ENGAGEMENT_AP, finding: id });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(/finding: must be a 26-character ULID/);
    }
    expect(apiRequests()).toHaveLength(0);
  });

  it('API errors come back as tool errors with code, message and what to do', async () => {
    const r = await stack.call('get_finding', { engagement: ENGAGEMENT_AP, finding: '01ZZZZZZZZZZZZZZZZZZZZZZZZ' });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/HTTP 404/);
    expect(textOf(r)).toMatch(/list the parent resource/);
    // The given ids are named, so the model knows which to check.
    expect(textOf(r)).toContain('finding "01ZZZZZZZZZZZZZZZZZZZZZZZZ"');
    expect(errorDetail(r)).toMatchObject({ status: 404, code: 'resource.not_found' });
    expect(r.structuredContent).toBeUndefined();
  });

  it('a 422 from the API lists the fields', async () => {
    const r = await stack.call('create_finding', {
      engagement: ENGAGEMENT_AP,
      type: 'risk',
      statement: 'Evidence pointing nowhere',
      evidences: [{ source_type: 'transcript_segment', source_id: '01ZZZZZZZZZZZZZZZZZZZZZZZZ' }],
    });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/422 validation\.failed/);
    expect(textOf(r)).toMatch(/evidences\.0\.source_id/);
  });

  it('reference reads are cached: asking twice costs one request', async () => {
    sandbox.clearRequests();
    await stack.call('list_ai_drivers', {});
    const again = await stack.call('list_ai_drivers', {});
    expect(again.isError).toBeFalsy();
    expect(apiRequests().filter((r) => r.template === '/ai/enums/drivers')).toHaveLength(1);
  });
});

describe('read-only mode', () => {
  it('lists no write tool and refuses one if called, sending nothing', async () => {
    const ro = await startStack({ sandboxHandle: sandbox, env: { WORKSPACE_READ_ONLY: 'true' } });
    try {
      const { tools } = await ro.client.listTools();
      expect(tools.length).toBeGreaterThan(0);
      for (const t of tools) expect(t.annotations?.readOnlyHint, t.name).toBe(true);
      sandbox.clearRequests();
      const r = await ro.call('delete_finding', { engagement: ENGAGEMENT_AP, finding: '01ZZZZZZZZZZZZZZZZZZZZZZZZ' });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(/read-only/);
      expect(apiRequests()).toHaveLength(0);
    } finally {
      await ro.close();
    }
  });
});

describe('cancellation', () => {
  it('cancelling a call aborts its HTTP request', async () => {
    const controller = new AbortController();
    // Cancelled once the request has reached the sandbox, which holds its answer until the server
    // hangs up: it is answered and logged then, and never if the server does not.
    sandbox.clearRequests();
    sandbox.admin.fault({
      count: 1,
      before: ({ hungUp }) => {
        controller.abort('user cancelled');
        return hungUp;
      },
      match: { method: 'GET', path: '/engagements/{engagement}/findings' },
    });
    const call = stack.client.callTool(
      { name: 'list_findings', arguments: { engagement: ENGAGEMENT_AP } },
      {
        signal: controller.signal,
      },
    );
    await expect(call).rejects.toThrow();
    const answered = await sandbox.waitForRequest((r) => r.template === '/engagements/{engagement}/findings', 5_000, 'answer after the hang-up');
    expect(answered.client_closed).toBe(true);
  });
});
