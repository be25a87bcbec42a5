// The gateway reaches everything: every documented operation and every operation the sandbox's live
// openapi.json adds can be found with find_operations and run with call_operation, over real HTTP;
// read-only mode and read consent bind it like any tool.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { catalog } from '../../../catalog/index.js';
import type { Operation } from '../../../src/operation.js';
import { ENGAGEMENT_AP, INTERVIEW_AP_CLERK, SESSION_AP_CLERK } from '../../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { type Stack, startStack, textOf } from '../../helpers/stack.js';

type Json = Record<string, unknown>;

const documented = readFileSync(new URL('../../fixtures/documented-operations.tsv', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => {
    const [method, path] = line.split('\t') as [string, string];
    return { method, path };
  });

const UNKNOWN_ID = '01ZZZZZZZZZZZZZZZZZZZZZZZZ';
const KNOWN_IDS: Record<string, string> = { engagement: ENGAGEMENT_AP, interview: INTERVIEW_AP_CLERK, session: SESSION_AP_CLERK };

/** A value a JSON Schema accepts: the simplest one, enough to pass validation and reach the API. */
function example(s: Json): unknown {
  if (Array.isArray(s.enum)) return s.enum[0];
  if (Array.isArray(s.anyOf)) return example(s.anyOf[0] as Json);
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'string':
      if (s.format === 'date') return '2026-10-01';
      if (s.format === 'email') return 'someone@example.com';
      if (s.pattern === '^[0-9A-Za-z]{26}$') return UNKNOWN_ID;
      return 'x'.repeat(Math.max(1, Number(s.minLength ?? 1)));
    case 'integer':
    case 'number':
      return Number(s.minimum ?? 1);
    case 'boolean':
      return true;
    case 'array':
      return Number(s.minItems ?? 0) > 0 ? [example((s.items ?? {}) as Json)] : [];
    case 'object': {
      const out: Json = {};
      const props = (s.properties ?? {}) as Record<string, Json>;
      for (const k of (s.required ?? []) as string[]) if (props[k]) out[k] = example(props[k]);
      return out;
    }
    default:
      return 'x';
  }
}

const VALID_EXTERNAL_SOURCE = {
  format_version: '1',
  source: { name: 'Tickets', system: 'Helpdesk' },
  items: [{ external_id: 'T-1', title: 'Invoice', body: 'Typed twice.' }],
};

/** Arguments that pass the operation's validation: known ids where the sandbox has them, required fields only. */
function argumentsFor(op: Operation): Json {
  const args: Json = {};
  for (const [k, field] of Object.entries(op.input.shape) as [string, z.ZodType][]) {
    if (field.safeParse(undefined).success) continue;
    if (KNOWN_IDS[k]) args[k] = KNOWN_IDS[k];
    // An external source is checked against the workspace's format before upload: give a valid one.
    else if (k === 'file' && op.path.endsWith('/external-sources')) args[k] = { text: JSON.stringify(VALID_EXTERNAL_SOURCE) };
    else if (k === 'file') args[k] = { text: 'hello', filename: 'note.txt' };
    else if (k === 'path') args[k] = 'demo/file.png';
    else args[k] = example(z.toJSONSchema(field, { io: 'input', unrepresentable: 'any' }) as Json);
  }
  return args;
}

let sandbox: SandboxHandle;
let stack: Stack;
const live: { method: string; path: string; name: string; title: string }[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  // Some 160 requests: a one-second window keeps the client's limiter out of the way.
  // Job tools answer once started (WORKSPACE_JOB_WAIT_SECONDS 0): this suite checks reach, not jobs.
  stack = await startStack({ sandboxHandle: sandbox, env: { WORKSPACE_TOOLSETS: 'default', WORKSPACE_RATE_LIMIT: '120/1', WORKSPACE_JOB_WAIT_SECONDS: '0' } });
  const doc = (await stack.api.request({ method: 'GET', path: '/openapi.json' })).data as { paths: Record<string, Record<string, Json>> };
  const known = new Set(catalog.map((o) => `${o.method} ${o.path}`));
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [m, o] of Object.entries(item)) {
      const method = m.toUpperCase();
      if (!known.has(`${method} ${path}`)) live.push({ method, path, name: String(o.operationId), title: String(o.summary) });
    }
  }
});
afterAll(async () => {
  await stack.close();
  await sandbox.close();
});

async function find(query: string, limit = 5): Promise<string[]> {
  const r = await stack.call('find_operations', { query, limit });
  return (r.structuredContent as { operations: { name: string }[] }).operations.map((o) => o.name);
}

describe('every operation is reachable through the gateway', () => {
  it('the live description adds operations the catalog lacks', () => {
    expect(live.map((o) => o.name).sort()).toEqual(['get_client_company', 'list_compliance_documents']);
  });

  it('every documented operation is found by its title and runs through call_operation', async () => {
    const problems: string[] = [];
    for (const { method, path } of documented) {
      const op = catalog.find((o) => o.method === method && o.path === path);
      if (!op) {
        problems.push(`${method} ${path}: not in the catalog`);
        continue;
      }
      if (!(await find(op.title)).includes(op.name)) problems.push(`${op.name}: not in the top 5 for "${op.title}"`);
      sandbox.clearRequests();
      const r = await stack.call('call_operation', { operation: op.name, arguments: argumentsFor(op) });
      const reached = sandbox.requests().some((q) => q.method === method && q.template === path);
      if (!reached) problems.push(`${op.name}: no request reached ${method} ${path} (${textOf(r).slice(0, 200)})`);
    }
    expect(problems).toEqual([]);
  });

  it('every operation only the live description has is found and runs through call_operation', async () => {
    const problems: string[] = [];
    for (const { method, path, name, title } of live) {
      if (!(await find(title)).includes(name)) problems.push(`${name}: not in the top 5 for "${title}"`);
      const described = await stack.call('describe_operation', { operation: name });
      const schema = (described.structuredContent as { input_schema: Json }).input_schema;
      const args = example(schema) as Json;
      for (const k of Object.keys(args)) if (KNOWN_IDS[k]) args[k] = KNOWN_IDS[k];
      sandbox.clearRequests();
      const r = await stack.call('call_operation', { operation: name, arguments: args });
      const reached = sandbox.requests().some((q) => q.method === method && q.template === path);
      if (!reached) problems.push(`${name}: no request reached ${method} ${path} (${textOf(r).slice(0, 200)})`);
    }
    expect(problems).toEqual([]);
  });

  it('a generated operation answers like a catalog one', async () => {
    const r = await stack.call('call_operation', { operation: 'get_engagement', arguments: { engagement: ENGAGEMENT_AP } });
    expect(r.isError).toBeFalsy();
    expect((r.structuredContent as { id: string }).id).toBe(ENGAGEMENT_AP);
  });
});

describe('gateway details', () => {
  it('describe_operation gives the full schema (id patterns included) and the notes', async () => {
    const r = await stack.call('describe_operation', { operation: 'delete_finding' });
    const info = r.structuredContent as { input_schema: { properties: Record<string, Json> }; notes: string[]; method: string };
    expect(info.method).toBe('DELETE');
    expect(info.input_schema.properties.finding?.pattern).toBe('^[0-9A-Za-z]{26}$');
    expect(info.notes.join(' ')).toMatch(/Destructive/);
  });

  it('call_operation takes its arguments as an object or as their JSON text, and sends the same request either way', async () => {
    const args = { engagement: ENGAGEMENT_AP, limit: 2 };
    sandbox.clearRequests();
    const asObject = await stack.call('call_operation', { operation: 'list_findings', arguments: args });
    const asText = await stack.call('call_operation', { operation: 'list_findings', arguments: JSON.stringify(args) });
    expect(asObject.isError, textOf(asObject)).toBeFalsy();
    expect(asText.isError, textOf(asText)).toBeFalsy();
    expect(asText.structuredContent).toEqual(asObject.structuredContent);
    const sent = sandbox.requests().map((q) => `${q.method} ${q.path} ${JSON.stringify(q.query)}`);
    expect(sent).toHaveLength(2);
    expect(sent[1]).toBe(sent[0]);
  });

  it('call_operation validates before sending and names the operation and its field', async () => {
    sandbox.clearRequests();
    const r = await stack.call('call_operation', { operation: 'get_finding', arguments: { engagement: ENGAGEMENT_AP, finding: '../../workspace' } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/Invalid arguments for get_finding; nothing was sent/);
    expect(textOf(r)).toMatch(/finding: must be a 26-character ULID/);
    expect(sandbox.requests()).toHaveLength(0);
  });

  it('an unknown operation is refused with the way to find one', async () => {
    const r = await stack.call('call_operation', { operation: 'drop_everything' });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/find_operations/);
  });

  it('call_operation continues a list with the cursor hint pointing back at itself', async () => {
    const r = await stack.call('call_operation', { operation: 'list_findings', arguments: { engagement: ENGAGEMENT_AP, limit: 2 } });
    expect(textOf(r)).toMatch(/call call_operation \(operation "list_findings"\) again with the same arguments and cursor/);
  });
});

describe('the policy binds the gateway', () => {
  it('read-only mode: writes are neither found nor run, nothing is sent', async () => {
    const ro = await startStack({ sandboxHandle: sandbox, env: { WORKSPACE_TOOLSETS: 'default', WORKSPACE_READ_ONLY: 'true' } });
    try {
      const found = (await ro.call('find_operations', { query: 'delete a finding' })).structuredContent as { operations: { name: string; scope: string }[] };
      expect(found.operations.every((o) => o.scope === 'read')).toBe(true);
      sandbox.clearRequests();
      const r = await ro.call('call_operation', { operation: 'delete_finding', arguments: { engagement: ENGAGEMENT_AP, finding: UNKNOWN_ID } });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(/read-only/);
      const w = await ro.call('review_findings', { engagement: ENGAGEMENT_AP, reviews: [{ finding: UNKNOWN_ID, review_status: 'validated' }] });
      expect(w.isError).toBe(true);
      expect(sandbox.requests()).toHaveLength(0);
    } finally {
      await ro.close();
    }
  });

  it('read consent: a write through the gateway asks for write consent and sends nothing', async () => {
    const rs = await startStack({ sandboxHandle: sandbox, token: 'read', grantedScope: 'read', env: { WORKSPACE_TOOLSETS: 'default' } });
    try {
      sandbox.clearRequests();
      const r = await rs.call('call_operation', {
        operation: 'review_finding',
        arguments: { engagement: ENGAGEMENT_AP, finding: UNKNOWN_ID, review_status: 'validated' },
      });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(/write consent/);
      expect(sandbox.requests().filter((q) => q.path.startsWith('/api/v1/engagements'))).toHaveLength(0);
      // A read-scoped POST (the audit chat question) is still allowed.
      const ask = await rs.call('call_operation', {
        operation: 'ask_audit_chat',
        arguments: { engagement: ENGAGEMENT_AP, question: 'What slows invoice approval?' },
      });
      expect(ask.isError, textOf(ask)).toBeFalsy();
    } finally {
      await rs.close();
    }
  });
});
