// An export is a promise that another module uses it: one that none does is either dead code or a
// name that should stay inside its file (scripts/unused-exports.ts finds them).
import { describe, expect, it } from 'vitest';
import { exportedNames, unusedExports } from '../../scripts/unused-exports.js';

describe('exports', () => {
  it('reads declarations, export lists and re-exports, not default', () => {
    const text = [
      'export const A = 1;',
      'export async function b() {}',
      'export interface C {}',
      'export type D = string;',
      'const e = 1;',
      'export { e as E, type F };',
      "export { G } from './g.js';",
      'export default 1;',
    ].join('\n');
    expect(exportedNames(text).sort()).toEqual(['A', 'C', 'D', 'E', 'F', 'G', 'b']);
  });

  it('of src/ and catalog/ are each used by another file', () => {
    expect(unusedExports()).toEqual([]);
  });
});
