// The sandbox's areas against the operations it serves: one handler per operation, in the file of the
// operation's area, and nothing else; the check that stops the sandbox from starting otherwise.
import { describe, expect, it } from 'vitest';
import { areaProblems, areas, seedOrder } from '../../../src/sandbox/handlers/index.js';
import { sandboxOperations } from '../../../src/sandbox/server.js';
import type { SandboxArea } from '../../../src/sandbox/types.js';

const withHandlers = (toolset: string, edit: (h: SandboxArea['handlers']) => SandboxArea['handlers']): SandboxArea[] =>
  areas.map((a) => (a.toolset === toolset ? { ...a, handlers: edit({ ...a.handlers }) } : a));

describe('the sandbox areas and the catalog', () => {
  it('match one to one: every operation the sandbox serves has one handler, in its area file', () => {
    expect(areaProblems(areas, sandboxOperations)).toEqual([]);
    expect(new Set(areas.flatMap((a) => Object.keys(a.handlers)))).toEqual(new Set(sandboxOperations.map((o) => o.name)));
  });

  it('name a catalog entry without a handler, and where to add it', () => {
    const list = withHandlers('analysis', (h) => {
      delete h.review_finding;
      return h;
    });
    expect(areaProblems(list, sandboxOperations)).toEqual([
      expect.stringMatching(
        /^review_finding \(POST \/engagements\/\{engagement\}\/findings\/\{finding\}\/review\) has no handler: add one to handlers\/analysis\.ts$/,
      ),
    ]);
  });

  it('name a handler that answers no operation', () => {
    const list = withHandlers('analysis', (h) => ({ ...h, list_finding_remarks: () => ({ data: [] }) }));
    expect(areaProblems(list, sandboxOperations)).toEqual([
      'handlers/analysis.ts: list_finding_remarks answers no operation of the catalog (nor an assumed one)',
    ]);
  });

  it("name a handler kept in another area's file", () => {
    const review = areas.find((a) => a.toolset === 'analysis')?.handlers.review_finding;
    expect(review).toBeDefined();
    const list = withHandlers('chat', (h) => ({ ...h, review_finding: review! }));
    expect(areaProblems(list, sandboxOperations)).toEqual([
      'handlers/chat.ts: review_finding is an operation of analysis: its handler belongs in handlers/analysis.ts',
      'review_finding has handlers in both analysis and chat',
    ]);
  });

  it('name a $demo kind declared twice and a seeding cycle', () => {
    const list = areas.map((a) =>
      a.toolset === 'chat' ? { ...a, demo: { finding: () => 'x' } } : a.toolset === 'interviews' ? { ...a, after: ['deliverables' as const] } : a,
    );
    const problems = areaProblems(list, sandboxOperations);
    expect(problems).toContain('$demo.finding is declared by both analysis and chat');
    expect(problems.some((p) => p.startsWith('areas seed in a cycle: '))).toBe(true);
  });

  it('seed each area after the areas it reads, whatever order they are listed in', () => {
    for (const list of [areas, [...areas].reverse()]) {
      const order = seedOrder(list).map((a) => a.toolset);
      for (const a of list) for (const dep of a.after ?? []) expect(order.indexOf(dep), `${a.toolset} after ${dep}`).toBeLessThan(order.indexOf(a.toolset));
    }
  });
});

describe('$demo kinds', () => {
  it('name a value of the demo data each, and every kind an example names is declared', async () => {
    const { demoIds } = await import('../../../src/sandbox/index.js');
    const values = demoIds();
    for (const [kind, v] of Object.entries(values)) expect(v, kind).toMatch(/\S/);
    const named = sandboxOperations.flatMap((o) =>
      Object.values(o.example ?? {}).flatMap((v) => (typeof v === 'string' && v.startsWith('$demo.') ? [[o.name, v.slice(6)] as const] : [])),
    );
    expect(named.length).toBeGreaterThan(30);
    expect(named.filter(([, kind]) => !(kind in values))).toEqual([]);
  });
});
