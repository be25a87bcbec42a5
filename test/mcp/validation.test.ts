import { describe, expect, it } from 'vitest';
import { validateArguments } from '../../src/mcp/validation.js';
import { findOperation } from '../../tools/index.js';

const ENG = '01M1D4MS5080000000GGT70VZH';

function op(name: string) {
  const o = findOperation(name);
  if (!o) throw new Error(`no ${name}`);
  return o;
}

describe('argument validation', () => {
  it('accepts valid arguments', () => {
    const r = validateArguments(op('list_findings').input, { engagement: ENG, limit: 10 }, 'list_findings');
    expect(r.ok).toBe(true);
  });

  it('names every bad field with the fix', () => {
    const r = validateArguments(op('create_finding').input, { engagement: '../../workspace', type: 'bad', statement: 'x'.repeat(1001), extra: 1 }, 'create_finding');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(Object.keys(r.fields).sort()).toEqual(['(arguments)', 'engagement', 'statement', 'type'].sort());
    expect(r.fields.engagement).toMatch(/26-character ULID/);
    expect(r.fields.statement).toBe('at most 1000 characters');
    expect(r.fields.type).toMatch(/one of "irritant"/);
    expect(r.fields['(arguments)']).toMatch(/unknown argument extra/);
    expect(r.message).toMatch(/nothing was sent/);
  });

  it('tells a client that sent JSON text instead of an array', () => {
    const r = validateArguments(op('reorder_guide_topics').input, { ownerType: 'method', ownerId: ENG, ids: '["a"]' }, 'reorder_guide_topics');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.fields.ids).toMatch(/not JSON text/);
  });

  it('says which argument is required', () => {
    const r = validateArguments(op('get_finding').input, { engagement: ENG }, 'get_finding');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.fields.finding).toMatch(/^required/);
  });
});
