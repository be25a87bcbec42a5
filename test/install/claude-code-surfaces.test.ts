// Which surface does best in Claude Code, measured with the real Claude Code CLI (bench/claude-code.ts):
// Claude Code defers MCP tools and searches them itself (tool search, on by default), so its first turn
// carries only tool names and the server's instructions. No model is reachable: a stand-in for the
// Messages API records what Claude Code sends and, for the search, calls Claude Code's own ToolSearch
// with each request's words as they are (a model would choose its own keywords). Tokens are o200k
// estimates. docs/tools.md (Which surface for which client) quotes the bounds asserted here.
import { describe, expect, it } from 'vitest';
import { firstTurnCost, toolSearch } from '../../bench/claude-code.js';
import { hitsOf, RETRIEVAL_TOP, retrievalFigures, retrievalSet } from '../../bench/retrieval.js';
import { catalog } from '../../catalog/index.js';

describe('Claude Code with tool search', () => {
  it('loads only names in the first turn: the default surface adds under 600 tokens, all under 2,200, and all names every operation', async () => {
    const cost = await firstTurnCost(true);
    const gateway = ['find_operations', 'describe_operation', 'call_operation'];
    expect(cost.default.loaded).toEqual([]);
    expect(cost.default.deferred).toEqual(expect.arrayContaining(gateway));
    expect(cost.default.instructions).toBe(true);
    expect(cost.default.added).toBeLessThan(600);
    expect(cost.all.loaded).toEqual([]);
    expect(cost.all.deferred).toEqual(expect.arrayContaining(catalog.map((o) => o.name)));
    expect(cost.all.instructions).toBe(true);
    expect(cost.all.added).toBeLessThan(2_200);
  }, 300_000);

  it("finds more held-out requests through find_operations than its own ToolSearch finds among all's tools, given the same words", async () => {
    const held = [...retrievalSet('heldOutFirst'), ...retrievalSet('heldOutConsultants')];
    const found = await toolSearch(
      'all',
      held.map((r) => r.query),
      RETRIEVAL_TOP,
    );
    expect(found).toHaveLength(held.length);
    const native = hitsOf(held, found);
    const figures = retrievalFigures();
    const gateway = figures.heldOutFirst.hits + figures.heldOutConsultants.hits;
    process.stderr.write(
      `held-out requests in the top ${RETRIEVAL_TOP}: Claude Code ToolSearch over all ${native}/${held.length}, find_operations ${gateway}/${held.length}\n`,
    );
    expect(gateway).toBeGreaterThan(native);
  }, 300_000);
});
