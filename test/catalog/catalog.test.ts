import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { catalog } from '../../catalog/index.js';
import { catalogProblems } from '../../catalog/shared.js';
import { pathParams, TOOLSETS } from '../../src/operation.js';

// The spec's list of documented operations, shipped beside the repo in shared/.
const tsvPath = fileURLToPath(new URL('../fixtures/documented-operations.tsv', import.meta.url));
const documented = readFileSync(tsvPath, 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((l) => {
    const [method, path, scope] = l.split('\t');
    return { method, path, scope };
  });

describe('catalog', () => {
  it('has exactly the documented operations of the spec, with their scopes, and marks the others undocumented', () => {
    const got = catalog
      .filter((o) => o.documented)
      .map((o) => `${o.method} ${o.path} ${o.scope}`)
      .sort();
    const want = documented.map((d) => `${d.method} ${d.path} ${d.scope}`).sort();
    expect(got).toEqual(want);
  });

  it('says what people call every operation, in English and in French, for find_operations to match', () => {
    for (const o of catalog) {
      expect(o.askedAs?.en.length, `${o.name}: askedAs.en`).toBeGreaterThan(0);
      expect(o.askedAs?.fr.length, `${o.name}: askedAs.fr`).toBeGreaterThan(0);
      for (const phrase of [...(o.askedAs?.en ?? []), ...(o.askedAs?.fr ?? [])]) expect(phrase.trim(), o.name).not.toBe('');
    }
  });

  it('job facets name sibling operations the catalog holds, checked when it loads', () => {
    expect(catalogProblems(catalog)).toEqual([]);
    const start = catalog.find((o) => o.name === 'start_analysis_run');
    expect(start?.job).toBeDefined();
    const job = start?.job as NonNullable<NonNullable<typeof start>['job']>;
    const broken = {
      ...start,
      name: 'start_broken',
      job: { ...job, reads: [{ ...job.reads[0], operation: 'get_analysis_runz' }] },
    } as (typeof catalog)[number];
    expect(catalogProblems([...catalog, broken])).toEqual(['start_broken: job.reads[0] names get_analysis_runz, which is not a catalog operation']);
    expect(catalogProblems([...catalog, { ...broken, job: { ...job, cancel: { operation: 'nope', args: {} } } }])).toEqual([
      'start_broken: job.cancel names nope, which is not a catalog operation',
    ]);
  });

  it('completions come from list entries: one list per completed argument, a GET that pages', () => {
    const listers = catalog.filter((o) => o.completes);
    expect(listers.map((o) => o.completes?.argument).sort()).toEqual(['chapter', 'engagement', 'export', 'finding', 'interview']);
    for (const o of listers) expect({ name: o.name, method: o.method, paginated: o.paginated }).toEqual({ name: o.name, method: 'GET', paginated: true });
  });

  it('names are unique snake_case verb_noun', () => {
    const names = catalog.map((o) => o.name);
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) expect(n).toMatch(/^[a-z]+(_[a-z0-9]+)+$/);
  });

  it('every path parameter is a required argument', () => {
    for (const o of catalog) {
      const shape = o.input.shape;
      for (const p of pathParams(o.path)) {
        expect(shape[p], `${o.name}: {${p}}`).toBeDefined();
        expect(shape[p]!.safeParse(undefined).success, `${o.name}: {${p}} optional`).toBe(false);
      }
    }
  });

  it('annotations follow the method; descriptions are short and present', () => {
    for (const o of catalog) {
      expect(TOOLSETS).toContain(o.toolset);
      // A GET reads; so does a POST a read token may make (asking the audit chat changes nothing).
      expect(o.annotations.readOnlyHint, o.name).toBe(o.method === 'GET' || o.scope === 'read');
      if (o.method === 'DELETE') expect(o.annotations.destructiveHint).toBe(true);
      if (o.method === 'PUT' || o.method === 'DELETE') expect(o.annotations.idempotentHint).toBe(true);
      expect(o.title.length).toBeGreaterThan(3);
      expect(o.description.length, o.name).toBeGreaterThan(20);
      expect(o.description.length, o.name).toBeLessThan(400);
      if (o.paginated) expect(Object.keys(o.input.shape)).toEqual(expect.arrayContaining(['cursor', 'limit']));
    }
  });

  it('irreversible actions are flagged destructive', () => {
    const destructive = new Set(catalog.filter((o) => o.annotations.destructiveHint).map((o) => `${o.method} ${o.path}`));
    for (const p of [
      'POST /engagements/{engagement}/deliverable/publish',
      'POST /engagements/{engagement}/change-proposals/reject-all',
      'POST /engagements/{engagement}/analysis/runs/{run}/cancel',
    ])
      expect(destructive.has(p), p).toBe(true);
  });
});
