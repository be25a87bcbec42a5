// The listed input schemas are portable (test/helpers/portable-schema.ts) on the default surface and
// on `all`, and say what validation enforces: an id's pattern, a free-form object as its JSON text
// (which the arguments reader parses), job waits as a number of seconds.
import { describe, expect, it } from 'vitest';
import { sandboxOperations, toolListFor } from '../../../bench/tokens.js';
import { findOperation } from '../../../catalog/index.js';
import { readOperationArguments } from '../../../src/mcp/pipeline/arguments.js';
import { splitExtras } from '../../../src/mcp/pipeline/extras.js';
import { listingProblems, portabilityProblems } from '../../helpers/portable-schema.js';

const ops = sandboxOperations();
const listing = (toolsets: 'default' | 'all') => toolListFor({ toolsets, readOnly: false }, ops).tools;

describe('listed schemas', () => {
  it.each(['default', 'all'] as const)('on %s: nothing a client library cannot convert', (toolsets) => {
    const tools = listing(toolsets);
    // The listings checked hold the tools with the deepest schemas (arrays of nested objects).
    const deepest = toolsets === 'default' ? ['edit_document_blocks', 'review_findings'] : ['update_deliverable_document', 'create_finding'];
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(deepest));
    expect(listingProblems(tools)).toEqual([]);
  });

  it('the portability check finds what the earlier schemas had', () => {
    expect(portabilityProblems({ type: 'object', properties: { quantity: { type: ['object', 'null'] }, wait: { type: ['boolean', 'number'] } } })).toEqual([
      '(input).quantity: an object with no declared property that is not closed',
      '(input).wait: a union of types ["boolean","number"]',
    ]);
    expect(portabilityProblems({ type: 'object' })).toEqual(['(input): an object with no declared property that is not closed']);
    expect(
      portabilityProblems({ type: 'object', properties: { r: { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } } } }),
    ).toEqual(['(input).r[]: a nested object that is not closed']);
  });

  it('a tool without arguments says it takes none', () => {
    const t = listing('all').find((x) => x.name === 'delete_usage_budget');
    expect(t?.inputSchema).toEqual({ type: 'object', properties: {}, additionalProperties: false });
    // A read without API arguments takes only how to answer.
    expect(Object.keys(listing('all').find((x) => x.name === 'get_workspace')?.inputSchema.properties ?? {})).toEqual(['response_format']);
  });

  it('a free-form object is shown as its JSON text, and that text is read back as the object', () => {
    const t = listing('default').find((x) => x.name === 'update_finding');
    expect(t?.inputSchema.properties?.quantity).toEqual({ type: ['string', 'null'], description: 'JSON object' });
    const op = findOperation('update_finding');
    if (!op) throw new Error('no update_finding');
    const r = readOperationArguments(op, { engagement: '01M1D4MS5080000000GGT70VZH', finding: '01M1D4MS5080000000GGT70VZJ', quantity: '{"per_week":40}' });
    expect(r.ok && splitExtras(op, r.args).api.quantity).toEqual({ per_week: 40 });
  });

  it('job tools show wait as a number of seconds, and ids show the pattern validation enforces', () => {
    const t = listing('default').find((x) => x.name === 'start_analysis_run');
    expect(t?.inputSchema.properties?.wait).toMatchObject({ type: 'number', minimum: 0, maximum: 600 });
    for (const tool of listing('default')) {
      for (const [name, p] of Object.entries(tool.inputSchema.properties ?? {})) {
        // Every argument that is an id of the workspace (engagement, finding, process_id...) says it is one.
        if (/^(engagement|finding|session|contradiction|run|export)$|_id$/.test(name))
          expect((p as { pattern?: string }).pattern, `${tool.name}.${name}`).toBe('^[0-9A-Za-z]{26}$');
      }
    }
  });
});
