// Arguments in the shapes models and clients really send, through every kind of tool (a direct
// tool, a workflow tool, the gateway), over stdio to the server on the sandbox: each shape with its
// expected outcome. A call that is read is checked in the request the workspace received (the values
// as read: 5 not "5", "incremental" not "Incremental", no layer argument); a refused call names its
// fields, says nothing was sent, and the sandbox's request log shows that nothing was.
import { Client, ProtocolError } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorDetail } from '../../../src/mcp/render/tool-result.js';
import { ENGAGEMENT_AP } from '../../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import type { RequestLogEntry } from '../../../src/sandbox/server.js';
import { apiRequests, type StdioServer, stdioServer } from '../../helpers/stdio-server.js';

const E = ENGAGEMENT_AP;
const FINDINGS = '/engagements/{engagement}/findings';
let finding = '';
let sandbox: SandboxHandle;
let server: StdioServer;
let client: Client;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  server = await stdioServer(sandbox, { WORKSPACE_JOB_WAIT_SECONDS: '0' });
  client = new Client({ name: 'argument-shapes', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ ...server, stderr: 'pipe' }));
  await client.listTools();
  const list = await client.callTool({ name: 'list_findings', arguments: { engagement: E, limit: 1 } });
  finding = ((list.structuredContent as { items: Array<{ id: string }> }).items[0] as { id: string }).id;
});
afterAll(async () => {
  await client?.close();
  await sandbox?.close();
  await server?.cleanup();
});

/** What the workspace must have received: method, path template, and the query or body (a subset). */
interface Sent {
  method: string;
  template: string;
  query?: Record<string, unknown>;
  body?: Record<string, unknown>;
  /** Query or body keys that must not have been sent (absent arguments, the layer's own). */
  without?: string[];
}
type Outcome = { sent: Sent } | { answered: (structured: Record<string, unknown>) => void } | { refused: string[]; says?: RegExp } | { protocolError: number };

interface Shape {
  shape: string;
  tool: string;
  /** The `arguments` of tools/call exactly as sent; a function when it needs ids read at start. */
  args: unknown | (() => unknown);
  expect: Outcome;
}

const JSON_OBJECT = (o: object) => JSON.stringify(o);

const SHAPES: Shape[] = [
  // A direct tool (one operation of the default surface).
  {
    shape: 'null for optional parameters',
    tool: 'list_findings',
    args: { engagement: E, cursor: null, limit: null, fields: null },
    expect: { sent: { method: 'GET', template: FINDINGS, without: ['cursor', 'limit', 'fields'] } },
  },
  {
    shape: 'number text',
    tool: 'list_findings',
    args: { engagement: E, limit: '5' },
    expect: { sent: { method: 'GET', template: FINDINGS, query: { limit: '5' } } },
  },
  {
    shape: 'JSON text for an array (fields)',
    tool: 'list_findings',
    args: { engagement: E, fields: '["id","statement"]' },
    expect: { sent: { method: 'GET', template: FINDINGS, without: ['fields'] } },
  },
  {
    shape: 'JSON text for an object, null for an optional id',
    tool: 'update_finding',
    args: () => ({ engagement: E, finding, quantity: '{"per_week": 40}', process_id: null }),
    expect: { sent: { method: 'PATCH', template: `${FINDINGS}/{finding}`, body: { quantity: { per_week: 40 }, process_id: null } } },
  },
  {
    shape: 'enum in another case, wait as text',
    tool: 'start_analysis_run',
    args: { engagement: E, mode: 'Incremental', wait: '0' },
    expect: { sent: { method: 'POST', template: '/engagements/{engagement}/analysis/runs', body: { mode: 'incremental' }, without: ['wait'] } },
  },
  {
    shape: 'boolean text',
    tool: 'update_deliverable_document',
    args: { engagement: E, kind: 'roadmap', updated_at: '2026-01-01T00:00:00Z', included: 'False' },
    expect: { sent: { method: 'PATCH', template: '/engagements/{engagement}/deliverable/documents/{kind}', body: { included: false } } },
  },
  {
    shape: 'the whole arguments as JSON text',
    tool: 'list_findings',
    args: JSON_OBJECT({ engagement: E, limit: 2 }),
    expect: { sent: { method: 'GET', template: FINDINGS, query: { limit: '2' } } },
  },
  {
    shape: 'ambiguous boolean text',
    tool: 'update_deliverable_document',
    args: { engagement: E, kind: 'roadmap', updated_at: 't', included: 'yes' },
    expect: { refused: ['included'], says: /got "yes", which is not read as either: send true or false/ },
  },
  {
    shape: 'missing arguments (none sent)',
    tool: 'get_finding',
    args: undefined,
    expect: { refused: ['engagement', 'finding'], says: /- finding: required; must be a 26-character ULID\./ },
  },
  { shape: 'arguments: null', tool: 'get_finding', args: null, expect: { refused: ['engagement', 'finding'] } },
  {
    shape: 'a number where text is wanted',
    tool: 'list_findings',
    args: { engagement: 42 },
    expect: { refused: ['engagement'], says: /- engagement: must be a 26-character ULID; got 42\./ },
  },
  {
    shape: 'an unknown argument',
    tool: 'list_findings',
    args: { engagement: E, colour: 'red' },
    expect: { refused: ['(arguments)'], says: /unknown argument colour: remove it/ },
  },
  {
    shape: 'a __proto__ key (publish, a destructive write)',
    tool: 'publish_deliverable',
    args: JSON.parse(`{"engagement":"${E}","__proto__":{"stage":"final"}}`),
    expect: { refused: ['__proto__'] },
  },
  {
    shape: 'a constructor key in a nested object',
    tool: 'update_finding',
    args: () => ({ engagement: E, finding, quantity: { constructor: { prototype: 1 } } }),
    expect: { refused: ['quantity.constructor'] },
  },
  { shape: 'arguments as an array', tool: 'list_findings', args: [E], expect: { protocolError: -32602 } },
  { shape: 'arguments as plain text', tool: 'list_findings', args: 'engagement please', expect: { protocolError: -32602 } },

  // A workflow tool (several operations behind one tool).
  {
    shape: 'workflow: the whole arguments as JSON text',
    tool: 'engagement_overview',
    args: JSON_OBJECT({ engagement: E }),
    expect: { sent: { method: 'GET', template: '/engagements/{engagement}/analysis/summary' } },
  },
  {
    shape: 'workflow: enum in another case',
    tool: 'document_context',
    args: { engagement: E, kind: 'Executive_Summary' },
    expect: { sent: { method: 'GET', template: '/engagements/{engagement}/deliverable/documents/{kind}' } },
  },
  {
    shape: 'workflow: JSON text for an array of objects, enum case inside',
    tool: 'review_findings',
    args: () => ({ engagement: E, reviews: JSON.stringify([{ finding, review_status: 'VALIDATED' }]) }),
    expect: { sent: { method: 'POST', template: `${FINDINGS}/{finding}/review`, body: { review_status: 'validated' } } },
  },
  { shape: 'workflow: missing arguments', tool: 'engagement_overview', args: undefined, expect: { refused: ['engagement'] } },
  {
    shape: 'workflow: JSON text that is no array',
    tool: 'review_findings',
    args: { engagement: E, reviews: '[{"finding":' },
    expect: { refused: ['reviews'], says: /a text that is not a JSON array/ },
  },
  {
    shape: 'workflow: an empty list',
    tool: 'review_findings',
    args: { engagement: E, reviews: '[]' },
    expect: { refused: ['reviews'], says: /reviews: at least 1 item; got 0 items/ },
  },
  {
    shape: 'workflow: a __proto__ key',
    tool: 'engagement_overview',
    args: JSON.parse(`{"engagement":"${E}","__proto__":null}`),
    expect: { refused: ['__proto__'] },
  },
  {
    shape: 'workflow: an ambiguous enum is impossible, an unknown one refused',
    tool: 'document_context',
    args: { engagement: E, kind: 'summary' },
    expect: { refused: ['kind'], says: /must be one of "coverage"/ },
  },

  // The gateway: call_operation runs any operation, find_operations searches.
  {
    shape: 'gateway: arguments beside operation',
    tool: 'call_operation',
    args: () => ({ operation: 'get_finding', engagement: E, finding }),
    expect: { sent: { method: 'GET', template: `${FINDINGS}/{finding}` } },
  },
  {
    shape: 'gateway: arguments as JSON text',
    tool: 'call_operation',
    args: { operation: 'list_findings', arguments: JSON_OBJECT({ engagement: E, limit: '3' }) },
    expect: { sent: { method: 'GET', template: FINDINGS, query: { limit: '3' } } },
  },
  {
    shape: 'gateway: null arguments, the rest beside',
    tool: 'call_operation',
    args: { operation: 'list_findings', arguments: null, engagement: E, cursor: null },
    expect: { sent: { method: 'GET', template: FINDINGS, without: ['cursor'] } },
  },
  {
    shape: 'gateway: no arguments needed',
    tool: 'call_operation',
    args: { operation: 'get_workspace' },
    expect: { sent: { method: 'GET', template: '/workspace' } },
  },
  {
    shape: 'gateway: boolean text inside arguments',
    tool: 'call_operation',
    args: { operation: 'update_deliverable_document', arguments: { engagement: E, kind: 'ROADMAP', updated_at: 't', included: 'TRUE' } },
    expect: { sent: { method: 'PATCH', template: '/engagements/{engagement}/deliverable/documents/{kind}', body: { included: true } } },
  },
  {
    shape: 'gateway: ambiguous boolean inside arguments',
    tool: 'call_operation',
    args: { operation: 'update_deliverable_document', engagement: E, kind: 'roadmap', updated_at: 't', included: '1' },
    expect: { refused: ['included'] },
  },
  {
    shape: 'gateway: arguments both under arguments and beside',
    tool: 'call_operation',
    args: { operation: 'get_finding', arguments: { engagement: E }, finding: 'x' },
    expect: { refused: ['(arguments)'], says: /send them in one place/ },
  },
  {
    shape: 'gateway: arguments beside that do not fit the operation',
    tool: 'call_operation',
    args: { operation: 'get_workspace', args: { x: 1 } },
    expect: { refused: ['(arguments)'], says: /Invalid arguments for get_workspace; nothing was sent\.\n- \(arguments\): unknown argument args: remove it/ },
  },
  { shape: 'gateway: missing arguments', tool: 'call_operation', args: undefined, expect: { refused: ['operation'] } },
  {
    shape: 'gateway: a __proto__ key inside arguments',
    tool: 'call_operation',
    args: JSON.parse(`{"operation":"publish_deliverable","arguments":{"engagement":"${E}","__proto__":{}}}`),
    expect: { refused: ['arguments.__proto__'] },
  },
  {
    shape: 'gateway search: number text, enum case, null',
    tool: 'find_operations',
    args: { query: 'validate a finding', limit: '2', area: 'ANALYSIS' },
    expect: {
      answered: (s) => {
        const ops = s.operations as Array<{ area: string }>;
        expect(ops.length).toBeGreaterThan(0);
        expect(ops.length).toBeLessThanOrEqual(2);
        for (const o of ops) expect(o.area).toBe('analysis');
      },
    },
  },
  {
    shape: 'gateway search: null for optional parameters',
    tool: 'find_operations',
    args: { query: 'export findings', limit: null, area: null },
    expect: { answered: (s) => expect((s.operations as unknown[]).length).toBeGreaterThan(0) },
  },
];

function matches(r: RequestLogEntry, sent: Sent): boolean {
  if (r.method !== sent.method || r.template !== sent.template) return false;
  const given = (r.method === 'GET' || r.method === 'DELETE' ? r.query : r.body) as Record<string, unknown> | null;
  const want = sent.query ?? sent.body ?? {};
  for (const [k, v] of Object.entries(want)) if (JSON.stringify(given?.[k]) !== JSON.stringify(v)) return false;
  return (sent.without ?? []).every((k) => !(given && k in given));
}

async function call(tool: string, args: unknown) {
  const params = args === undefined ? { name: tool } : { name: tool, arguments: args };
  return (await client.request({ method: 'tools/call', params } as never)) as {
    isError?: boolean;
    content: Array<{ type: string; text?: string }>;
    structuredContent?: Record<string, unknown>;
    _meta?: Record<string, unknown>;
  };
}

describe('argument shapes, through every kind of tool, over stdio', () => {
  it.each(SHAPES.map((s) => [s.shape, s] as const))('%s', async (_shape, s) => {
    sandbox.clearRequests();
    const args = typeof s.args === 'function' ? (s.args as () => unknown)() : s.args;
    const o = s.expect;
    if ('protocolError' in o) {
      const err = await call(s.tool, args).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ProtocolError);
      expect((err as ProtocolError).code).toBe(o.protocolError);
      expect((err as Error).message).toMatch(/arguments must be an object of named arguments/);
      expect(apiRequests(sandbox)).toEqual([]);
      return;
    }
    const r = await call(s.tool, args);
    const text = r.content.map((c) => c.text ?? '').join('\n');
    if ('refused' in o) {
      expect(r.isError, text).toBe(true);
      expect(text.split('\n')[0]).toMatch(/^Invalid arguments for \w+; nothing was sent\.$/);
      const { code, fields } = errorDetail(r) as { code: string; fields: Record<string, string> };
      expect(code).toBe('invalid_arguments');
      expect(Object.keys(fields).sort()).toEqual([...o.refused].sort());
      for (const f of o.refused) expect(text).toContain(`\n- ${f}: `);
      if (o.says) expect(text).toMatch(o.says);
      // No zod words reach the model.
      expect(text).not.toMatch(/expected (record|string|number|object|array)|received|Invalid input|Unrecognized key/);
      expect(apiRequests(sandbox)).toEqual([]);
      return;
    }
    if ('answered' in o) {
      expect(r.isError, text).toBeFalsy();
      o.answered(r.structuredContent ?? {});
      return;
    }
    const seen = apiRequests(sandbox);
    expect(
      seen.some((q) => matches(q, o.sent)),
      `${s.tool}: no ${o.sent.method} ${o.sent.template} as expected among ${JSON.stringify(seen.map((q) => [q.method, q.template, q.query, q.body]))}; answer: ${text.slice(0, 300)}`,
    ).toBe(true);
  });
});
