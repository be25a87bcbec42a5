// The concise form leaves out what only an auditor or a program reads, says what it left out, and
// keeps whatever the caller named.
import { describe, expect, it } from 'vitest';
import { concise } from '../../../src/mcp/render/concise.js';

const finding = {
  id: 'F1',
  type: 'risk',
  statement: 'Paiement en double',
  process_id: 'P1',
  interview_id: 'I1',
  reviewed_at: '2026-09-20T11:00:00Z',
  reviewed_by: 'M1',
  analysis_run_id: 'R1',
  created_at: '2026-09-18T16:04:12Z',
  updated_at: '2026-09-20T11:00:00Z',
  evidences: [{ id: 'V1', excerpt: 'en double', source_id: 'S1', created_at: '2026-09-18T16:04:12Z' }],
};

describe('the concise form', () => {
  it('leaves audit fields and references no operation reads out of a list, and counts nested records', () => {
    const c = concise([finding]);
    expect(c.value).toEqual([{ id: 'F1', type: 'risk', statement: 'Paiement en double', interview_id: 'I1', evidences_count: 1 }]);
    expect(c.leftOut).toEqual(['process_id', 'reviewed_at', 'reviewed_by', 'analysis_run_id', 'created_at', 'updated_at']);
    expect(c.counted).toEqual(['evidences']);
  });

  it('shows a single record its nested records, and keeps the updated_at a write echoes', () => {
    const c = concise(finding);
    expect(c.value).toMatchObject({ updated_at: finding.updated_at, evidences: [{ id: 'V1', excerpt: 'en double', source_id: 'S1' }] });
    expect((c.value as { evidences: object[] }).evidences[0]).not.toHaveProperty('created_at');
    expect(c.counted).toEqual([]);
  });

  it('leaves out the time of an action whose author it leaves out, not other times', () => {
    const c = concise([{ id: 'C1', resolved_at: 'x', resolved_by: 'M1', scheduled_at: 'y', started_at: 'z' }]);
    expect(c.value).toEqual([{ id: 'C1', scheduled_at: 'y', started_at: 'z' }]);
  });

  it('judges a time by the record it is in, each time its name comes again', () => {
    const c = concise([
      { id: 'C1', resolved_at: 'x', resolved_by: 'M1' },
      { id: 'C2', resolved_at: 'y' },
      { id: 'C3', resolved_at: 'z', resolved_by: 'M2' },
    ]);
    expect(c.value).toEqual([{ id: 'C1' }, { id: 'C2', resolved_at: 'y' }, { id: 'C3' }]);
  });

  it('keeps fields the caller named, audit fields and nested records included', () => {
    const c = concise([finding], { requested: ['id', 'created_at', 'evidences.excerpt'] });
    expect(c.value).toEqual([
      expect.objectContaining({ id: 'F1', created_at: finding.created_at, evidences: [expect.objectContaining({ excerpt: 'en double' })] }),
    ]);
    expect(c.counted).toEqual([]);
  });

  describe("an operation's render facet", () => {
    const comment = {
      id: 'C1',
      body: 'Sur quelle période ?',
      author: { id: 'M1', name: 'Hélène Roussel' },
      created_at: '2026-10-08T16:00:00Z',
      updated_at: '2026-10-08T16:00:00Z',
      replies: [{ id: 'R1', body: 'Juin à août.', created_at: '2026-10-08T17:00:00Z' }],
    };

    it('keeps the fields it names, at any depth, and leaves out the others as before', () => {
      const c = concise(comment, { render: { keep: ['created_at'] } });
      expect(c.value).toMatchObject({ created_at: comment.created_at, replies: [{ id: 'R1', created_at: '2026-10-08T17:00:00Z' }] });
      const rows = concise([comment], { render: { keep: ['created_at'] } });
      expect(rows.value).toEqual([
        { id: 'C1', body: 'Sur quelle période ?', author: { id: 'M1', name: 'Hélène Roussel' }, created_at: comment.created_at, replies_count: 1 },
      ]);
      expect(rows.leftOut).toEqual(['updated_at']);
    });

    it('shows the objects it flattens as columns named as `fields` names them, their own audit fields left out', () => {
      const c = concise([{ ...comment, author: { ...comment.author, created_at: 'x' } }], { render: { keep: ['created_at'], flatten: ['author'] } });
      expect(c.value).toEqual([
        {
          id: 'C1',
          body: 'Sur quelle période ?',
          'author.id': 'M1',
          'author.name': 'Hélène Roussel',
          'author.created_at': 'x',
          created_at: comment.created_at,
          replies_count: 1,
        },
      ]);
      const plain = concise([{ ...comment, author: { ...comment.author, updated_at: 'x' } }], { render: { flatten: ['author'] } });
      expect(plain.value).toEqual([{ id: 'C1', body: 'Sur quelle période ?', 'author.id': 'M1', 'author.name': 'Hélène Roussel', replies_count: 1 }]);
      expect(plain.leftOut).toEqual(['author.updated_at', 'created_at', 'updated_at']);
    });

    it('leaves a field it flattens as it is when it holds no object', () => {
      expect(concise([{ id: 'C2', author: null, created_at: 'x' }], { render: { flatten: ['author'] } }).value).toEqual([{ id: 'C2' }]);
      expect(concise([{ id: 'C3', author: 'Hélène' }], { render: { flatten: ['author'] } }).value).toEqual([{ id: 'C3', author: 'Hélène' }]);
    });
  });
});
