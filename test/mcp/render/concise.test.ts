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

  it('keeps fields the caller named, audit fields and nested records included', () => {
    const c = concise([finding], { requested: ['id', 'created_at', 'evidences.excerpt'] });
    expect(c.value).toEqual([
      expect.objectContaining({ id: 'F1', created_at: finding.created_at, evidences: [expect.objectContaining({ excerpt: 'en double' })] }),
    ]);
    expect(c.counted).toEqual([]);
  });
});
