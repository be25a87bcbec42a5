// An operation's signature as a TypeScript declaration: derived from the schema its calls are
// validated against, compact, and given by describe_operation and find_operations (over real HTTP).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../../catalog/index.js';
import { signatureOf, tsType } from '../../../src/mcp/scripts/signatures.js';
import { ENGAGEMENT_AP } from '../../../src/sandbox/data/ids.js';
import { type Stack, startStack } from '../../helpers/stack.js';

const op = (name: string) => {
  const found = catalog.find((o) => o.name === name);
  if (!found) throw new Error(`no operation ${name}`);
  return found;
};

describe('signatureOf', () => {
  it('writes required and optional arguments, enums as unions, and what a list resolves to', () => {
    expect(signatureOf(op('review_finding'))).toBe(
      'api.review_finding(args: {engagement: string; finding: string; review_status: "proposed"|"validated"|"rejected"}): Promise<object>',
    );
    expect(signatureOf(op('list_findings'))).toBe(
      'api.list_findings(args: {engagement: string; cursor?: string; limit?: number; fields?: string[]}): Promise<{items: object[]; next_cursor: string|null}>',
    );
  });

  it('says what a job and a file operation resolve to', () => {
    expect(signatureOf(op('create_export'))).toMatch(/\): Promise<\{job: \{id: string; status: string\}; state: "succeeded"\|/);
    expect(signatureOf(op('download_export'))).toMatch(/\): Promise<\{file: \{path: string;/);
  });

  it('is a declaration for every operation of the catalog: one line, no response_format', () => {
    for (const o of catalog) {
      const sig = signatureOf(o);
      expect(sig, o.name).toMatch(new RegExp(`^api\\.${o.name}\\(args\\??: \\{.*\\}\\): Promise<.+>$`));
      expect(sig, o.name).not.toContain('response_format');
      expect(sig, o.name).not.toContain('\n');
    }
  });

  it('parenthesises a union before [] and keeps nested objects whole', () => {
    expect(tsType({ type: 'array', items: { type: ['string', 'null'] } })).toBe('(string|null)[]');
    expect(tsType({ type: 'array', items: { type: 'object', properties: { a: { enum: ['x', 'y'] } } } })).toBe('{a?: "x"|"y"}[]');
    expect(tsType({ type: 'object', additionalProperties: { type: 'number' } })).toBe('Record<string, number>');
    expect(tsType({ type: 'object', properties: { 'not-an-identifier': { type: 'boolean' } }, required: ['not-an-identifier'] })).toBe(
      '{"not-an-identifier": boolean}',
    );
  });
});

describe('the gateway gives it', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ env: { WORKSPACE_TOOLSETS: 'default' } });
  });
  afterAll(async () => {
    await stack.close();
  });

  it('describe_operation shows the signature, for catalog and live-description operations alike', async () => {
    const r = await stack.call('describe_operation', { operation: 'review_finding' });
    expect((r.structuredContent as { signature: string }).signature).toBe(signatureOf(op('review_finding')));
    const live = await stack.call('describe_operation', { operation: 'list_engagements' });
    expect((live.structuredContent as { signature: string }).signature).toMatch(/^api\.list_engagements\(args\?: \{/);
  });

  it('find_operations gives each match its signature', async () => {
    const r = await stack.call('find_operations', { query: 'validate a finding', limit: 3 });
    const ops = (r.structuredContent as { operations: { name: string; signature: string }[] }).operations;
    expect(ops.length).toBeGreaterThan(0);
    for (const o of ops) expect(o.signature.startsWith(`api.${o.name}(`), o.name).toBe(true);
  });

  it('a script calls an operation as its signature says', async () => {
    const r = await stack.call('run_read_script', {
      script: `const page = await api.list_findings({engagement: ${JSON.stringify(ENGAGEMENT_AP)}, limit: 2, fields: ['id']}); return [page.items.length, Object.keys(page.items[0]), typeof page.next_cursor];`,
    });
    expect((r.structuredContent as { result: unknown }).result).toEqual([2, ['id'], 'string']);
  });
});
