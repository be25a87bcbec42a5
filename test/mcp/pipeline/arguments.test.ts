// Arguments read as models and clients send them, then validated strictly (src/mcp/pipeline/arguments.ts):
// each reading rule, each value refused as ambiguous, and the refusal's words, on catalog schemas.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { findOperation } from '../../../catalog/index.js';
import { type ReadResult, readArguments, readCallOperation, readOperationArguments } from '../../../src/mcp/pipeline/arguments.js';
import { splitExtras } from '../../../src/mcp/pipeline/extras.js';
import { preview } from '../../../src/mcp/render/refusal.js';

const ENG = '01M1D4MS5080000000GGT70VZH';
const FIND = '01M1D4MS5080000000GGT70VZJ';

function op(name: string) {
  const o = findOperation(name);
  if (!o) throw new Error(`no ${name}`);
  return o;
}

function refused<T>(r: ReadResult<T>) {
  if (r.ok) throw new Error(`expected a refusal, got ${JSON.stringify(r.args)}`);
  return r;
}
function read<T>(r: ReadResult<T>): T {
  if (!r.ok) throw new Error(r.message);
  return r.args;
}

/** A call's arguments as the pipeline reads them: the operation's own, and the layer's extras taken off. */
function operationArgs(name: string, sent: unknown) {
  const o = op(name);
  const { api, extras } = splitExtras(o, read(readOperationArguments(o, sent)));
  return { args: api, ...extras };
}

// Every zod word a refusal must never show the model.
const JARGON = /expected (record|string|number|boolean|object|array|int)|received|Invalid input|Unrecognized key|too_big|invalid_type|ZodError|>=|<=/;

describe('values read as clients send them', () => {
  it.each([
    ['null for an optional parameter is absent', 'list_findings', { engagement: ENG, cursor: null, limit: null }, { engagement: ENG }],
    [
      'null stays null where the parameter accepts it',
      'update_finding',
      { engagement: ENG, finding: FIND, details: null },
      { engagement: ENG, finding: FIND, details: null },
    ],
    ['number text where a number is wanted', 'list_findings', { engagement: ENG, limit: '25' }, { engagement: ENG, limit: 25 }],
    [
      'boolean text, any case',
      'update_deliverable_document',
      { engagement: ENG, kind: 'roadmap', updated_at: 't', included: 'FALSE' },
      { engagement: ENG, kind: 'roadmap', updated_at: 't', included: false },
    ],
    [
      'an enum value in another case',
      'create_finding',
      { engagement: ENG, type: 'Key_Person_Dependency', statement: 's' },
      { engagement: ENG, type: 'key_person_dependency', statement: 's' },
    ],
    [
      'JSON text where an array is wanted, its items read too',
      'create_finding',
      { engagement: ENG, type: 'risk', statement: 's', evidences: `[{"source_type":"PIN","source_id":"${FIND}","locator":null}]` },
      { engagement: ENG, type: 'risk', statement: 's', evidences: [{ source_type: 'pin', source_id: FIND, locator: null }] },
    ],
    [
      'JSON text where an object is wanted',
      'update_finding',
      { engagement: ENG, finding: FIND, quantity: '{"per_week": 40}' },
      { engagement: ENG, finding: FIND, quantity: { per_week: 40 } },
    ],
  ])('%s', (_what, name, sent, expected) => {
    expect(operationArgs(name, sent).args).toEqual(expected);
  });

  it('no arguments at all (absent or null) is an empty object', () => {
    expect(operationArgs('get_workspace', undefined).args).toEqual({});
    expect(operationArgs('get_workspace', null).args).toEqual({});
  });

  it('the whole arguments object as JSON text is read', () => {
    expect(operationArgs('get_finding', JSON.stringify({ engagement: ENG, finding: FIND })).args).toEqual({
      engagement: ENG,
      finding: FIND,
    });
  });

  it('a value accepted as sent is never converted: JSON text where a text is wanted stays text', () => {
    expect(operationArgs('create_finding', { engagement: ENG, type: 'risk', statement: '{"a":1}' }).args.statement).toBe('{"a":1}');
  });

  it('the layer arguments are read too, and taken off the operation arguments', () => {
    const r = operationArgs('start_analysis_run', { engagement: ENG, mode: 'full', wait: '30', cancel_on_abort: 'true' });
    expect(r).toEqual({ args: { engagement: ENG, mode: 'full' }, wait: 30, cancelOnAbort: true });
    expect(operationArgs('start_analysis_run', { engagement: ENG, mode: 'full', wait: false }).wait).toBe(0);
    expect(operationArgs('start_analysis_run', { engagement: ENG, mode: 'full', wait: 0 }).wait).toBe(0);
    // true is "the configured wait", as if absent.
    expect(operationArgs('start_analysis_run', { engagement: ENG, mode: 'full', wait: 'TRUE' }).wait).toBeUndefined();
    expect(operationArgs('list_findings', { engagement: ENG, fields: '["id","statement"]' }).fields).toEqual(['id', 'statement']);
  });
});

describe('ambiguous values are refused, not guessed', () => {
  it.each(['1', '0', 'yes', 'No', 'on', 'off'])('%s for a boolean', (text) => {
    const r = refused(readOperationArguments(op('update_deliverable_document'), { engagement: ENG, kind: 'roadmap', updated_at: 't', included: text }));
    expect(r.fields.included).toBe(`must be true or false; got ${JSON.stringify(text)}, which is not read as either: send true or false`);
  });

  it('an enum value matching two values once case is ignored', () => {
    const schema = z.strictObject({ level: z.enum(['high', 'HIGH', 'low']) });
    expect(refused(readArguments(schema, { level: 'High' }, 't')).fields.level).toMatch(/which matches 2 of them once case is ignored/);
    expect(read(readArguments(schema, { level: 'HIGH' }, 't'))).toEqual({ level: 'HIGH' });
  });

  it('JSON text where the field takes both a text and the structure it holds', () => {
    const schema = z.strictObject({ filter: z.union([z.string(), z.record(z.string(), z.unknown())]) });
    expect(refused(readArguments(schema, { filter: '{"a":1}' }, 't')).fields.filter).toMatch(/reads both as text and as the JSON it holds/);
    expect(read(readArguments(schema, { filter: 'plain words' }, 't'))).toEqual({ filter: 'plain words' });
  });

  it('text that reads as two different accepted values, while one reading is taken', () => {
    const schema = z.strictObject({ x: z.union([z.enum(['High', 'low']), z.enum(['HIGH', 'medium'])]).optional() });
    expect(refused(readArguments(schema, { x: 'high' }, 't')).fields.x).toMatch(
      /^must be one of "High", "low" or one of "HIGH", "medium"; got "high", which reads as 2 different values: send the one you mean$/,
    );
    expect(read(readArguments(schema, { x: 'MEDIUM' }, 't'))).toEqual({ x: 'medium' });
    // "1" is no boolean text, so where a number or a boolean would do it is the number 1.
    const wait = z.strictObject({ wait: z.union([z.boolean(), z.number()]) });
    expect(read(readArguments(wait, { wait: '1' }, 't'))).toEqual({ wait: 1 });
  });

  it('text that names a property of every object is no boolean', () => {
    for (const text of ['constructor', 'toString', '__proto__', 'valueOf']) {
      const r = refused(readOperationArguments(op('update_deliverable_document'), { engagement: ENG, kind: 'roadmap', updated_at: 't', included: text }));
      expect(r.fields.included).toBe(`must be true or false; got ${JSON.stringify(text)}`);
    }
  });

  it('number text outside JSON number grammar is not read as a number', () => {
    for (const text of ['0x10', '1e', ' 5', '5 ', '007', 'Infinity', '', '1_000']) {
      expect(refused(readOperationArguments(op('list_findings'), { engagement: ENG, limit: text })).fields.limit, text).toMatch(
        /^must be a whole number from 1 to 200 \(page size, default 50\); got /,
      );
    }
  });
});

describe('prototype keys are refused by name', () => {
  it('as own properties, at the top level and at any depth, also inside JSON text', () => {
    const sent = JSON.parse(`{"engagement":"${ENG}","type":"risk","statement":"s","__proto__":{"x":1}}`) as unknown;
    expect(Object.keys(refused(readOperationArguments(op('create_finding'), sent)).fields)).toEqual(['__proto__']);
    const nested = JSON.parse(
      `{"engagement":"${ENG}","type":"risk","statement":"s","evidences":[{"source_type":"pin","source_id":"${FIND}","constructor":1}]}`,
    ) as unknown;
    expect(Object.keys(refused(readOperationArguments(op('create_finding'), nested)).fields)).toEqual(['evidences.0.constructor']);
    const inText = { engagement: ENG, finding: FIND, quantity: '{"prototype": {"a": 1}}' };
    expect(Object.keys(refused(readOperationArguments(op('update_finding'), inText)).fields)).toEqual(['quantity.prototype']);
  });

  it('as an object whose prototype was replaced (a copy made by assignment)', () => {
    const sent: Record<string, unknown> = { engagement: ENG, finding: FIND };
    Object.setPrototypeOf(sent, { polluted: true });
    const r = refused(readOperationArguments(op('get_finding'), sent));
    expect(r.message).toMatch(/^- __proto__: a key named __proto__ is refused/m);
  });

  it('inside JSON text read for a field of several types', () => {
    const schema = z.strictObject({ filter: z.union([z.number(), z.record(z.string(), z.unknown())]) });
    expect(Object.keys(refused(readArguments(schema, { filter: '{"__proto__": {"a": 1}}' }, 't')).fields)).toEqual(['filter.__proto__']);
    expect(read(readArguments(schema, { filter: '{"a": 1}' }, 't'))).toEqual({ filter: { a: 1 } });
  });

  it('even where any keys are allowed (a free-form object)', () => {
    const r = refused(
      readOperationArguments(op('update_finding'), JSON.parse(`{"engagement":"${ENG}","finding":"${FIND}","quantity":{"__proto__":{"admin":true}}}`)),
    );
    expect(Object.keys(r.fields)).toEqual(['quantity.__proto__']);
  });
});

describe('the refusal', () => {
  it('names every field with what it must be and what was given, in plain words, and says nothing was sent', () => {
    const r = refused(readOperationArguments(op('create_finding'), { engagement: '../../workspace', type: 'bad', statement: 'x'.repeat(1001), extra: 1 }));
    expect(r.fields).toEqual({
      engagement: 'must be a 26-character ULID; got "../../workspace"',
      type: 'must be one of "irritant", "re_entry", "volume", "duration", "business_rule", "tool", "key_person_dependency", "risk", "good_practice", "other"; got "bad"',
      statement: 'at most 1000 characters; got 1001 characters',
      '(arguments)': 'unknown argument extra: remove it',
    });
    expect(r.message.split('\n')[0]).toBe('Invalid arguments for create_finding; nothing was sent.');
    expect(r.message).toMatch(/Fix these and call again\. Arguments: engagement, type, statement, [^.]*evidences\.$/);
    expect(r.message).not.toMatch(JARGON);
  });

  it('says which argument is required', () => {
    expect(refused(readOperationArguments(op('get_finding'), { engagement: ENG })).fields.finding).toBe('required; must be a 26-character ULID');
  });

  it('text that is not the JSON it should hold is said so', () => {
    const r = refused(readOperationArguments(op('reorder_guide_topics'), { ownerType: 'method', ownerId: ENG, ids: '["a"' }));
    expect(r.fields.ids).toMatch(/^must be an array.*; got "\[\\"a\\"", a text that is not a JSON array$/);
    expect(refused(readOperationArguments(op('list_findings'), { engagement: ENG, fields: 'id' })).fields.fields).toMatch(
      /^must be an array of at least 1 item, each non-empty text; got "id", a text that is not a JSON array/,
    );
  });

  it('never echoes a huge value or name back', () => {
    const huge = 'x'.repeat(1_000_000);
    const r = refused(readOperationArguments(op('list_findings'), { engagement: huge, [huge]: 1, limit: Array.from({ length: 100_000 }, (_, i) => i) }));
    expect(r.message.length).toBeLessThan(1_000);
    expect(r.fields.engagement).toBe(`must be a 26-character ULID; got "${'x'.repeat(40)}…" (1000000 characters)`);
    expect(r.fields.limit).toMatch(/got an array of 100000 items$/);
    expect(r.message).toContain(`unknown argument ${'x'.repeat(40)}…: remove it`);
  });

  it('arguments that are not an object are refused as such', () => {
    for (const sent of [[1, 2], 'plain text', 42, true]) {
      expect(refused(readOperationArguments(op('get_finding'), sent)).fields['(arguments)']).toBe(`must be an object of named arguments; got ${preview(sent)}`);
    }
  });

  it('a job that cannot be cancelled says so for cancel_on_abort', () => {
    expect(refused(readOperationArguments(op('create_export'), { engagement: ENG, kind: 'findings_csv', cancel_on_abort: true })).fields.cancel_on_abort).toBe(
      'an export cannot be cancelled; leave it out',
    );
  });
});

describe('call_operation arguments', () => {
  const callInput = z.strictObject({ operation: z.string().min(1).max(100), arguments: z.record(z.string(), z.unknown()).optional() });

  it.each([
    ['under arguments', { operation: 'get_finding', arguments: { engagement: ENG } }, { engagement: ENG }],
    ['under arguments, as JSON text', { operation: 'get_finding', arguments: `{"engagement":"${ENG}"}` }, { engagement: ENG }],
    ['beside operation when arguments is absent', { operation: 'get_finding', engagement: ENG, finding: FIND }, { engagement: ENG, finding: FIND }],
    ['beside operation when arguments is null', { operation: 'get_finding', arguments: null, engagement: ENG }, { engagement: ENG }],
    ['none', { operation: 'get_workspace' }, {}],
  ])('%s', (_what, sent, expected) => {
    expect(read(readCallOperation(callInput, sent, 'call_operation')).arguments).toEqual(expected);
  });

  it('both under arguments and beside it is refused: which set was meant?', () => {
    const r = refused(readCallOperation(callInput, { operation: 'get_finding', arguments: { engagement: ENG }, finding: FIND }, 'call_operation'));
    expect(r.fields['(arguments)']).toMatch(/both under arguments and beside it \(finding\): send them in one place/);
  });
});
