// document_context's outline of a document, as a pure function: a line's worth per block, enough to
// name it in edit_document_blocks and, for key figures, to re-send what a replace of it needs.
import { describe, expect, it } from 'vitest';
import type { Pipeline } from '../../../src/mcp/pipeline/pipeline.js';
import { documentContextTool, outlineOf } from '../../../src/mcp/tools/document-context.js';

describe('outlineOf', () => {
  it('gives each block its id, type and first words, cut with an ellipsis', () => {
    const long = 'un deux trois quatre cinq six sept huit neuf dix onze douze';
    expect(outlineOf([{ id: 'p', type: 'paragraph', text: long }])).toEqual([
      { id: 'p', type: 'paragraph', words: 'un deux trois quatre cinq six sept huit neuf dix…' },
    ]);
    expect(outlineOf([{ id: 'h', type: 'heading', level: 1, text: 'Synthèse' }])[0]?.words).toBe('Synthèse');
  });

  it("gives a block's title, a key_figures block's items (all of them), an item list's count, a chart's kind, and a block without id as such", () => {
    expect(
      outlineOf([
        { id: 'k', type: 'key_figures', title: 'Chiffres clés', items: ['3 entretiens', '6 constats'] },
        { id: 'l', type: 'item_list', title: 'Constats', item_type: 'finding', ids: ['a', 'b', 'c'] },
        { id: 'c', type: 'chart', chart: 'pain_heatmap', title: 'Irritants' },
        { type: 'quote', evidence_id: 'E' },
      ]),
    ).toEqual([
      { id: 'k', type: 'key_figures', title: 'Chiffres clés', words: '3 entretiens; 6 constats', items: ['3 entretiens', '6 constats'] },
      { id: 'l', type: 'item_list', title: 'Constats', words: '3 finding ids' },
      { id: 'c', type: 'chart', title: 'Irritants', words: 'pain_heatmap' },
      { id: null, type: 'quote', words: '' },
    ]);
  });

  it("gives a key_figures block's items whole, however many words they take, as the tool's description says", () => {
    const items = Array.from({ length: 12 }, (_, i) => `${i + 1} factures bloquées par semaine en moyenne`);
    const [figures] = outlineOf([{ id: 'k', type: 'key_figures', title: 'Chiffres clés', items }]);
    expect(figures?.words).toBe(items.join('; '));
    const described = documentContextTool({ pipeline: {} as Pipeline, budget: 1000 }).definition;
    expect(described.description).toMatch(/outline: true, a line per block \(its title and first words; a key_figures block's items whole/);
    expect(JSON.stringify(described.inputSchema)).toMatch(/key figures whole/);
  });
});
