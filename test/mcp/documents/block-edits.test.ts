// Block edits as pure functions: applied in order, untouched blocks carried over as the very objects
// read, and what a concurrent change means for re-applying them.
import { describe, expect, it } from 'vitest';
import { applyEdits, type Block, changedBetween, citations, reapplicable } from '../../../src/mcp/documents/block-edits.js';

const doc = (): Block[] => [
  { id: 'h', type: 'heading', level: 1, text: 'Titre' },
  { text: 'Premier paragraphe', type: 'paragraph', id: 'p1', x_layout: { column: 2 } },
  { id: 'p2', type: 'paragraph', text: 'Deuxième' },
  { type: 'callout', text: 'Sans id' },
  { id: 'q', type: 'quote', evidence_id: 'E1' },
];

describe('applyEdits', () => {
  it('inserts, replaces, deletes and moves in order, and carries every other block over as the same object', () => {
    const read = doc();
    const r = applyEdits(read, [
      { op: 'insert', after: null, block: { id: 'new', type: 'paragraph', text: 'En tête' } },
      { op: 'replace', id: 'p2', block: { type: 'paragraph', text: 'Réécrit' } },
      { op: 'delete', id: 'q' },
      { op: 'move', id: 'p1', after: 'new' },
      { op: 'insert', after: 'p1', block: { type: 'message', text: 'sans id' } },
    ]);
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.blocks.map((b) => b.id ?? b.text)).toEqual(['new', 'p1', 'sans id', 'h', 'p2', 'Sans id']);
    // Untouched (and moved) blocks are the objects read, unknown fields and key order included.
    expect(r.blocks[1]).toBe(read[1]);
    expect(r.blocks[3]).toBe(read[0]);
    expect(r.blocks[5]).toBe(read[3]);
    // A replacement without an id keeps the replaced block's, so later edits can name it.
    expect(r.blocks[4]).toEqual({ id: 'p2', type: 'paragraph', text: 'Réécrit' });
    expect(r.changes).toEqual([
      { op: 'insert', id: 'new', at: 0 },
      { op: 'replace', id: 'p2', at: 4 },
      { op: 'delete', id: 'q', at: null },
      { op: 'move', id: 'p1', at: 1 },
      { op: 'insert', id: null, at: 2 },
    ]);
    // The blocks read are not changed.
    expect(read.map((b) => b.id ?? null)).toEqual(['h', 'p1', 'p2', null, 'q']);
  });

  it('reports every edit that names no block, a duplicate id or a block placed after itself, and applies none', () => {
    const r = applyEdits(doc(), [
      { op: 'delete', id: 'absent' },
      { op: 'insert', after: 'nowhere', block: { type: 'paragraph' } },
      { op: 'insert', after: null, block: { id: 'p1', type: 'paragraph' } },
      { op: 'move', id: 'h', after: 'h' },
    ]);
    expect(r).toEqual({
      ok: false,
      problems: [
        { edit: 0, rule: 'id: no block has the id absent' },
        { edit: 1, rule: 'after: no block has the id nowhere' },
        { edit: 2, rule: 'block.id: a block already has the id p1; give a new one or none' },
        { edit: 3, rule: 'after: a block cannot be placed after itself' },
      ],
    });
  });

  it('a replace is whole and names what it dropped; an update lays the fields given over the block read, its key order kept', () => {
    const read = doc();
    const replaced = applyEdits(read, [{ op: 'replace', id: 'p1', block: { type: 'paragraph', text: 'Réécrit' } }]);
    if (!replaced.ok) throw new Error(JSON.stringify(replaced.problems));
    expect(replaced.blocks[1]).toEqual({ id: 'p1', type: 'paragraph', text: 'Réécrit' });
    expect(replaced.changes).toEqual([{ op: 'replace', id: 'p1', at: 1, dropped: ['x_layout'] }]);
    const updated = applyEdits(read, [{ op: 'update', id: 'p1', block: { type: 'paragraph', text: 'Réécrit' } }]);
    if (!updated.ok) throw new Error(JSON.stringify(updated.problems));
    expect(JSON.stringify(updated.blocks[1])).toBe(JSON.stringify({ text: 'Réécrit', type: 'paragraph', id: 'p1', x_layout: { column: 2 } }));
    expect(updated.changes).toEqual([{ op: 'update', id: 'p1', at: 1 }]);
    // An update keeps the type: another one is a replace.
    const retyped = applyEdits(read, [{ op: 'update', id: 'p1', block: { type: 'heading' } }]);
    expect(retyped.ok).toBe(false);
  });

  it('refuses to guess between two blocks of the same id', () => {
    const r = applyEdits([...doc(), { id: 'p1', type: 'paragraph' }], [{ op: 'delete', id: 'p1' }]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems[0]?.rule).toMatch(/two blocks have the id p1/);
  });
});

describe('concurrent changes', () => {
  it('names the blocks another writer added, removed or changed', () => {
    const before = doc();
    const after = [before[0] as Block, { ...before[1], text: 'Modifié' }, before[3] as Block, before[4] as Block, { id: 'added', type: 'paragraph' }];
    expect(changedBetween(before, after)).toEqual(['p1', 'p2', 'added']);
  });

  it('re-applies only when every block named is still there and none replaced or deleted was changed', () => {
    const before = doc();
    const changedP1 = before.map((b) => (b.id === 'p1' ? { ...b, text: 'Modifié' } : b));
    // Moving a block someone edited, or inserting after it, keeps their edit.
    expect(reapplicable(before, changedP1, [{ op: 'move', id: 'p1', after: null }])).toEqual({ ok: true });
    expect(reapplicable(before, changedP1, [{ op: 'insert', after: 'p1', block: { type: 'paragraph' } }])).toEqual({ ok: true });
    // Replacing, updating or deleting it would throw their edit away.
    expect(reapplicable(before, changedP1, [{ op: 'replace', id: 'p1', block: { type: 'paragraph' } }])).toEqual({ ok: false, gone: [], changed: ['p1'] });
    expect(reapplicable(before, changedP1, [{ op: 'delete', id: 'p1' }])).toEqual({ ok: false, gone: [], changed: ['p1'] });
    expect(reapplicable(before, changedP1, [{ op: 'update', id: 'p1', block: { type: 'paragraph', text: 'x' } }])).toEqual({
      ok: false,
      gone: [],
      changed: ['p1'],
    });
    // A block named that is gone.
    const withoutQ = before.filter((b) => b.id !== 'q');
    expect(reapplicable(before, withoutQ, [{ op: 'insert', after: 'q', block: { type: 'paragraph' } }])).toEqual({ ok: false, gone: ['q'], changed: [] });
  });
});

describe('citations', () => {
  it("reads refs, an item list's ids by item_type, evidence_id and process_id, and asks what untyped ids are", () => {
    const c = citations(
      { type: 'item_list', item_type: 'opportunity', ids: ['O1'], refs: [{ type: 'finding', id: 'F1' }], evidence_id: 'E1', process_id: 'P1' },
      'b',
    );
    expect(c.cited).toEqual([
      { type: 'finding', id: 'F1', at: 'b.refs.0.id' },
      { type: 'opportunity', id: 'O1', at: 'b.ids.0' },
      { type: 'evidence', id: 'E1', at: 'b.evidence_id' },
      { type: 'process', id: 'P1', at: 'b.process_id' },
    ]);
    expect(citations({ type: 'item_list', ids: ['X'] }, 'b').problems).toEqual(['b.item_type: say what the ids are (finding, opportunity, process...)']);
  });
});
