// The ranking's own rules, on the catalog in-process (find_operations over MCP is tested in
// retrieval.test.ts): word forms folded alike in English and French, the order of a phrase's words,
// a past participle read as a state, and the words of the vocabulary read from data.
import { describe, expect, it } from 'vitest';
import { catalog } from '../../../catalog/index.js';
import { vocabulary } from '../../../catalog/vocabulary.js';
import { OperationIndex, terms } from '../../../src/mcp/operations/search.js';

const index = new OperationIndex(catalog);
const first = (query: string) => index.search(query, { limit: 1 })[0]?.op.name;

describe('search', () => {
  it('folds the forms of one word alike, in English and in French, accents and case aside', () => {
    const same = (...words: string[]) => expect(new Set(words.map((w) => terms(w).join(' '))).size, words.join(', ')).toBe(1);
    same('propose', 'proposed', 'proposé', 'proposée', 'proposés', 'proposer', 'proposez');
    same('publier', 'publié', 'publiée', 'Publiées');
    same('valider', 'validé', 'validez', 'VALIDE');
    same('generate', 'generated');
    same('findings', 'finding');
    same('speech-to-text', 'speech to text');
  });

  it('reads who sent what to whom from the order of the words', () => {
    expect(first('the files the client sent us')).toBe('list_artifacts');
    expect(['get_deliverable_snapshot', 'get_deliverable_version', 'list_deliverable_versions']).toContain(first('the version we sent the client'));
  });

  it('reads an English past participle as a state, not as a change asked for', () => {
    const top = index.search('comments on the version we published', { limit: 3 }).map((m) => m.op);
    expect(top[0]?.method).toBe('GET');
    expect(top.map((o) => o.name)).toContain('list_deliverable_comments');
  });

  it('takes its words from the vocabulary data: an expression rewritten there changes what is found', () => {
    // "kick ... out" is an expression of catalog/vocabulary.ts, not a word of any entry.
    expect(vocabulary.phrases.some(([re]) => new RegExp(re).test('kick marc out'))).toBe(true);
    expect(first('kick Marc out of the workspace')).toBe('remove_member');
  });
});
