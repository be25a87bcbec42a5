// The concise text notation: alike records as one table, a record as lines, every value on one line.
import { describe, expect, it } from 'vitest';
import { formatValue, listParts } from '../../../src/mcp/render/notation.js';

describe('the concise notation', () => {
  it('writes alike records as one table: name, count and columns once, then one row each, id first', () => {
    const text = formatValue(
      [
        { type: 'risk', statement: 'Paiement en double', id: 'F1' },
        { type: 'tool', statement: 'Tracker Excel', id: 'F2', quantity: { value: 3 } },
      ],
      'findings',
    );
    expect(text).toBe('findings[2]{id|type|statement|quantity}:\nF1|risk|Paiement en double|\nF2|tool|Tracker Excel|{"value":3}');
  });

  it('writes a column shared by every row of a longer table once, in the head', () => {
    const rows = ['a', 'b', 'c'].map((id, i) => ({ id, locale: 'fr', position: i + 1 }));
    expect(formatValue(rows, 'segments')).toBe('segments[3]{id|position} all with locale=fr:\na|1\nb|2\nc|3');
  });

  it('keeps every row on one line: newlines and the delimiter are escaped', () => {
    const text = formatValue([{ id: 'a', text: 'one\ntwo | three' }], 'items');
    expect(text.split('\n')).toEqual(['items[1]{id|text}:', 'a|one\\ntwo \\| three']);
  });

  it('writes plain lists bare and other lists as JSON', () => {
    expect(formatValue({ session_ids: ['S1', 'S2'], items: ['3 entretiens', '6 constats'] })).toBe(
      'session_ids: [S1,S2]\nitems[2]:\n  - 3 entretiens\n  - 6 constats',
    );
  });

  it('writes records that are not alike one JSON object per line', () => {
    const parts = listParts('blocks', [
      { id: 'b1', type: 'heading', level: 1 },
      { id: 'b2', type: 'quote', evidence_id: 'V1', text: 'Je ressaisis' },
      { id: 'b3', refs: [{ type: 'finding', id: 'F1' }], tone: 'info', chart: 'bars' },
    ]);
    expect(parts.head).toBe('blocks[3]:');
    expect(parts.parts[2]).toBe('- {"id":"b3","refs":[{"type":"finding","id":"F1"}],"tone":"info","chart":"bars"}');
  });

  it('writes a record as lines, nested records indented and its lists of records as indented tables', () => {
    const text = formatValue({ name: 'Audit', id: 'E1', client_company: { name: 'Berthier' }, evidences: [{ id: 'V1', excerpt: 'à la main' }] });
    expect(text).toBe('id: E1\nname: Audit\nclient_company:\n  name: Berthier\nevidences[1]{id|excerpt}:\n  V1|à la main');
  });
});
