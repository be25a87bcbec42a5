// catalog/spec-prose.ts is what scripts/spec-prose.ts writes from the API's specification (the copy in
// test/fixtures, beside its list of documented operations), and find_operations reads it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { catalog } from '../../catalog/index.js';
import { specProse } from '../../catalog/spec-prose.js';
import { specProse as fromSpec, SPEC } from '../../scripts/spec-prose.js';
import { OperationIndex } from '../../src/mcp/operations/search.js';
import { type Operation, TOOLSETS } from '../../src/operation.js';

const documented = readFileSync(new URL('../fixtures/documented-operations.tsv', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((l) => l.split('\t').slice(0, 2).join(' '));

describe('the spec prose find_operations searches', () => {
  it('is what scripts/spec-prose.ts writes from the spec (run it after the spec changes)', () => {
    expect(specProse).toEqual(fromSpec(readFileSync(SPEC, 'utf8'), catalog));
  });

  it('says something of every area and of every documented operation that takes a body, and names no operation outside the catalog', () => {
    expect(Object.keys(specProse.areas).sort()).toEqual([...TOOLSETS].sort());
    const names = new Set(catalog.map((o) => o.name));
    for (const [name, prose] of Object.entries(specProse.operations)) {
      expect(names.has(name), name).toBe(true);
      expect(prose.trim(), name).not.toBe('');
    }
    const bodies = catalog.filter((o) => documented.includes(`${o.method} ${o.path}`) && (o.body === 'json' || o.body === 'multipart'));
    for (const o of bodies) expect(specProse.operations[o.name], o.name).toBeTruthy();
  });

  it("is searched: a word only an operation's spec prose says finds that operation", () => {
    const twin = (name: string): Operation => ({ ...(catalog[0] as Operation), name, title: 'Twin', description: 'A twin.', input: z.object({}) });
    const ops = [twin('first_twin'), twin('second_twin')];
    const prose = { areas: {}, operations: { second_twin: 'Grants a zeppelin.' } };
    expect(new OperationIndex(ops, { prose }).search('zeppelin twin', { limit: 1 })[0]?.op.name).toBe('second_twin');
    expect(
      new OperationIndex(ops, { prose: { ...prose, operations: { first_twin: 'Grants a zeppelin.' } } }).search('zeppelin twin', { limit: 1 })[0]?.op.name,
    ).toBe('first_twin');
  });
});
