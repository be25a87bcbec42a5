// OpenAI Agents (`@openai/agents`) against the server over stdio on the sandbox, through its own
// API: MCPServerStdio, getAllMcpTools with convertSchemasToStrict (the conversion an Agent's
// mcpConfig asks for), and calls through invokeFunctionTool with the arguments a strict-mode model
// produces (every property present, null where it has nothing to say). A tool whose schema cannot be
// made strict falls back to non-strict silently (a warning in the debug log): `strict` on each
// converted tool says which way it went. No model is called.
import { Agent, type FunctionTool, getAllMcpTools, invokeFunctionTool, MCPServerStdio, RunContext } from '@openai/agents';
import { describe, expect, it } from 'vitest';
import { expectedToolNames, THREE_JOBS, useLibraryServers, WRONG_CALLS } from '../helpers/client-libraries.js';

const servers = useLibraryServers();

async function strictTools(toolsets: 'default' | 'all'): Promise<FunctionTool[]> {
  const mcp = await servers.start(toolsets, async (server) => {
    const m = new MCPServerStdio({ name: 'workspace', command: server.command, args: server.args, env: server.env, cwd: server.cwd });
    await m.connect();
    return m;
  });
  const agent = new Agent({ name: 'consultant', mcpServers: [mcp], mcpConfig: { convertSchemasToStrict: true } });
  const tools = await getAllMcpTools({ mcpServers: [mcp], convertSchemasToStrict: true, runContext: new RunContext({}), agent });
  return tools as FunctionTool[];
}

/** Where a converted schema is not what OpenAI's strict mode accepts: an open object, an optional property. */
function notStrict(node: unknown, path: string): string[] {
  if (typeof node !== 'object' || node === null) return [];
  const n = node as {
    type?: unknown;
    properties?: Record<string, unknown>;
    required?: string[];
    additionalProperties?: unknown;
    items?: unknown;
    anyOf?: unknown[];
  };
  const out: string[] = [];
  const types = Array.isArray(n.type) ? n.type : [n.type];
  if (types.includes('object')) {
    if (n.additionalProperties !== false) out.push(`${path}: open object`);
    const keys = Object.keys(n.properties ?? {});
    const missing = keys.filter((k) => !(n.required ?? []).includes(k));
    if (missing.length) out.push(`${path}: not required ${missing.join(', ')}`);
  }
  for (const [k, v] of Object.entries(n.properties ?? {})) out.push(...notStrict(v, `${path}.${k}`));
  if (n.items) out.push(...notStrict(n.items, `${path}[]`));
  for (const [i, b] of (n.anyOf ?? []).entries()) out.push(...notStrict(b, `${path}|${i}`));
  return out;
}

/** Arguments as a strict-mode model writes them: every property of the schema, null when unused. */
function strictInput(t: FunctionTool, args: Record<string, unknown>): string {
  const props = Object.keys((t.parameters as { properties?: object }).properties ?? {});
  return JSON.stringify(Object.fromEntries(props.map((k) => [k, args[k] ?? null])));
}

describe('OpenAI Agents (strict schema conversion)', () => {
  it.each(['default', 'all'] as const)('converts every tool of %s to strict on the first listing, none falling back', async (toolsets) => {
    const tools = await strictTools(toolsets);
    expect(tools.map((t) => t.name)).toEqual(expectedToolNames(toolsets));
    expect(tools.filter((t) => t.strict !== true).map((t) => t.name)).toEqual([]);
    // The strict schema itself, as OpenAI's strict mode takes it: every object closed, every property required.
    expect(tools.flatMap((t) => notStrict(t.parameters, t.name))).toEqual([]);
  });

  it('answers one call of each job through invokeFunctionTool, with strict-mode arguments', async () => {
    const tools = await strictTools('default');
    const runContext = new RunContext({});
    for (const j of THREE_JOBS) {
      const t = tools.find((x) => x.name === j.tool);
      if (!t) throw new Error(`${j.tool} not converted`);
      const out = await invokeFunctionTool({ tool: t, runContext, input: strictInput(t, j.args) });
      // The MCP result's content as the library returns it: one item, or the list of them.
      const items = (Array.isArray(out) ? out : [out]) as Array<string | { text?: string }>;
      const text = items.map((c) => (typeof c === 'string' ? c : (c.text ?? ''))).join('\n');
      expect(text, j.job).toMatch(j.says);
      expect(text, j.job).not.toMatch(/Invalid arguments|An error occurred/);
    }
  });

  it("hands an error answer's text to the model through invokeFunctionTool", async () => {
    const tools = await strictTools('default');
    const runContext = new RunContext({});
    for (const w of WRONG_CALLS) {
      const t = tools.find((x) => x.name === w.tool);
      if (!t) throw new Error(`${w.tool} not converted`);
      const out = await invokeFunctionTool({ tool: t, runContext, input: strictInput(t, w.args) });
      const items = (Array.isArray(out) ? out : [out]) as Array<string | { text?: string }>;
      expect(items.map((c) => (typeof c === 'string' ? c : (c.text ?? ''))).join('\n'), w.job).toMatch(w.says);
    }
  });
});
