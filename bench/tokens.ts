// What tools/list costs an assistant's context, per surface: the default surface, each toolset, and
// `all`, in o200k tokens. Two figures: what the model sees (each tool's name, title, description,
// input schema and annotations: what clients put in its context; the outputSchema they validate
// results with and the _meta they read are not shown to it), the figure the budgets hold; and the
// whole JSON of the tools/list result, what travels on the wire. The listing is built by the very
// functions the server answers tools/list with, over the catalog plus the operations the sandbox's
// live description adds (as a workspace's would), so the numbers are the ones a client pays.
// Run: `npx tsx bench/tokens.ts` (`--json` for machine output); docs/tools.md's table comes from here too.
import type { Tool } from '@modelcontextprotocol/server';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { catalog } from '../catalog/index.js';
import { liveOperations } from '../src/mcp/operations/live-openapi.js';
import type { SurfacePolicy } from '../src/mcp/operations/registry.js';
import { toolListFor as listedTools } from '../src/mcp/server/session.js';
import { type Operation, TOOLSETS } from '../src/operation.js';
import { assumedOperations } from '../src/sandbox/assumed.js';
import { buildOpenApi } from '../src/sandbox/openapi.js';

/** Tools and model-visible tokens (see above) the default and code surfaces stay within, and the target for `all`. */
export const BUDGETS = { defaultTools: 30, defaultTokens: 5_000, codeTokens: 1_000, allTokens: 17_000 } as const;

export interface ToolListCost {
  surface: string;
  tools: number;
  /** What the model sees of the listing (name, title, description, inputSchema, annotations). */
  tokens: number;
  /** The whole tools/list result as sent (outputSchema and _meta included). */
  listTokens: number;
}

/** What a client shows the model of one tool: the outputSchema and _meta it keeps to itself are left out. */
export function modelView(tool: Tool): Partial<Tool> {
  const { name, title, description, inputSchema, annotations } = tool;
  return {
    name,
    ...(title !== undefined ? { title } : {}),
    ...(description !== undefined ? { description } : {}),
    inputSchema,
    ...(annotations ? { annotations } : {}),
  };
}

/** o200k tokens of what the model sees of these tools. */
export function modelVisibleTokens(tools: readonly Tool[]): number {
  return encode(JSON.stringify(tools.map(modelView))).length;
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
  return { surface, tools: result.tools.length, tokens: modelVisibleTokens(result.tools), listTokens: encode(JSON.stringify(result)).length };
}

/** Default surface, code mode, each toolset, and all. */
export function measureToolLists(operations: readonly Operation[] = sandboxOperations()): ToolListCost[] {
  return [
    tokenCost('default', { toolsets: 'default', readOnly: false }, operations),
    tokenCost('code', { toolsets: 'code', readOnly: false }, operations),
    ...TOOLSETS.map((t) => tokenCost(t, { toolsets: [t], readOnly: false }, operations)),
    tokenCost('all', { toolsets: 'all', readOnly: false }, operations),
  ];
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/').split('/').pop() ?? '\0')) {
  const rows = measureToolLists();
  if (process.argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify({ budgets: BUDGETS, rows })}\n`);
  } else {
    const lines = ['tools/list cost (o200k tokens: what the model sees; the whole JSON result)', 'surface        tools    model     list'];
    for (const r of rows)
      lines.push(`${r.surface.padEnd(14)} ${String(r.tools).padStart(5)}  ${String(r.tokens).padStart(7)}  ${String(r.listTokens).padStart(7)}`);
    const def = rows[0]!;
    const all = rows[rows.length - 1]!;
    lines.push(
      `default: ${def.tools} tools (budget ${BUDGETS.defaultTools}), ${def.tokens} model-visible tokens (budget ${BUDGETS.defaultTokens}), ${def.listTokens} in the whole listing; all: ${all.tokens} model-visible tokens (target ${BUDGETS.allTokens}), ${all.listTokens} in the whole listing`,
    );
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}
