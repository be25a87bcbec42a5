import { describe, expect, it } from 'vitest';
import { compact } from '../../../src/mcp/render/index.js';

describe('the text copy of a result', () => {
  it('drops empty fields and ids the reader already has, and nothing else', () => {
    const finding = {
      id: 'F1',
      engagement_id: 'E1',
      process_id: 'P1',
      details: null,
      tags: [],
      evidences: [{ id: 'V1', finding_id: 'F1', engagement_id: 'E1', source_id: 'S1', excerpt: '' }],
    };
    expect(compact([finding], ['E1'])).toEqual([{ id: 'F1', process_id: 'P1', evidences: [{ id: 'V1', source_id: 'S1' }] }]);
    // Without the argument the engagement stays: only ids given to the reader are left out.
    expect(compact(finding)).toMatchObject({ engagement_id: 'E1', evidences: [{ engagement_id: 'E1' }] });
  });
});
