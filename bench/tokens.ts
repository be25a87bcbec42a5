// What tools/list costs an assistant's context, per surface: the default surface, each toolset, and
// `all`, in o200k tokens of the JSON of the tools/list result. The listing is built by the very
// functions the server answers tools/list with, over the catalog plus the operations the sandbox's
// live description adds (as a workspace's would), so the numbers are the ones a client pays.
// Run: `npx tsx bench/tokens.ts` (`--json` for machine output); the README table comes from here too.
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { liveOperations } from '../src/mcp/live-openapi.js';
import type { SurfacePolicy } from '../src/mcp/registry.js';
import { toolListFor as listedTools } from '../src/mcp/session.js';
import { type Operation, TOOLSETS } from '../src/operation.js';
import { assumedOperations } from '../src/sandbox/assumed.js';
import { buildOpenApi } from '../src/sandbox/openapi.js';
import { catalog } from '../tools/index.js';

export const BUDGETS = { defaultTools: 30, defaultTokens: 5_000, allTokens: 17_000 } as const;

export interface ToolListCost {
  surface: string;
  tools: number;
  tokens: number;
}

/** The catalog and the operations a live description like the sandbox's adds to it. */
export function sandboxOperations(): Operation[] {
  return [...catalog, ...liveOperations(buildOpenApi([...catalog, ...assumedOperations]), catalog)];
}

/** The tools/list result for one policy, as the server builds it. */
export function toolListFor(policy: SurfacePolicy, operations: readonly Operation[]) {
  return { tools: listedTools(policy, operations) };
}

export function tokenCost(surface: string, policy: SurfacePolicy, operations: readonly Operation[]): ToolListCost {
  const result = toolListFor(policy, operations);
  return { surface, tools: result.tools.length, tokens: encode(JSON.stringify(result)).length };
}

/** Default surface, each toolset, and all. */
export function measureToolLists(operations: readonly Operation[] = sandboxOperations()): ToolListCost[] {
  return [
    tokenCost('default', { toolsets: 'default', readOnly: false }, operations),
    ...TOOLSETS.map((t) => tokenCost(t, { toolsets: [t], readOnly: false }, operations)),
    tokenCost('all', { toolsets: 'all', readOnly: false }, operations),
  ];
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/').split('/').pop() ?? '\0')) {
  const rows = measureToolLists();
  if (process.argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify({ budgets: BUDGETS, rows })}\n`);
  } else {
    const lines = ['tools/list cost (o200k tokens of the JSON result)', 'surface        tools   tokens'];
    for (const r of rows) lines.push(`${r.surface.padEnd(14)} ${String(r.tools).padStart(5)}  ${String(r.tokens).padStart(7)}`);
    const def = rows[0]!;
    const all = rows[rows.length - 1]!;
    lines.push(
      `default: ${def.tools} tools (budget ${BUDGETS.defaultTools}), ${def.tokens} tokens (budget ${BUDGETS.defaultTokens}); all: ${all.tokens} tokens (budget ${BUDGETS.allTokens})`,
    );
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}
