// The Vercel AI SDK (`@ai-sdk/mcp` with `ai`) against the server over stdio on the sandbox, through
// its own API: createMCPClient with its stdio transport, client.tools() (the conversion of each MCP
// tool into an AI SDK tool), the JSON schema each tool hands a provider (asSchema), and calls through
// each tool's own execute. No model is called.
import { createMCPClient, type MCPClient } from '@ai-sdk/mcp';
import { StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { asSchema } from 'ai';
import { describe, expect, it } from 'vitest';
import { expectedToolNames, THREE_JOBS, useLibraryServers, WRONG_CALLS } from '../helpers/client-libraries.js';
import { portabilityProblems } from '../helpers/portable-schema.js';

const servers = useLibraryServers();

function connect(toolsets: 'default' | 'all'): Promise<MCPClient> {
  return servers.start(toolsets, (server) =>
    createMCPClient({
      transport: new StdioMCPTransport({ command: server.command, args: server.args, env: server.env, cwd: server.cwd, stderr: 'pipe' }),
    }),
  );
}

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }> };

describe('Vercel AI SDK (@ai-sdk/mcp)', () => {
  it.each(['default', 'all'] as const)('converts every tool of %s on the first listing, each schema portable', async (toolsets) => {
    const client = await connect(toolsets);
    const tools = await client.tools();
    expect(Object.keys(tools)).toEqual(expectedToolNames(toolsets));
    const problems: string[] = [];
    for (const [name, t] of Object.entries(tools)) {
      // What the SDK hands any provider for this tool (prepareTools does exactly this).
      const schema = await asSchema(t.inputSchema).jsonSchema;
      problems.push(...portabilityProblems(schema).map((p) => `${name}: ${p}`));
    }
    expect(problems).toEqual([]);
  });

  it('answers one call of each job through the tools it converted', async () => {
    const client = await connect('default');
    const tools = await client.tools();
    for (const j of THREE_JOBS) {
      const t = tools[j.tool];
      if (!t?.execute) throw new Error(`${j.tool} is not an executable tool`);
      const r = (await t.execute(j.args, { toolCallId: `call-${j.tool}`, messages: [], context: {} })) as ToolResult;
      const text = r.content.map((c) => c.text ?? '').join('\n');
      expect(r.isError, `${j.job}: ${text.slice(0, 300)}`).toBeFalsy();
      expect(text, j.job).toMatch(j.says);
    }
  });

  it("hands an error answer's text to the model through the tools it converted", async () => {
    const client = await connect('default');
    const tools = await client.tools();
    for (const w of WRONG_CALLS) {
      const t = tools[w.tool];
      if (!t?.execute) throw new Error(`${w.tool} is not an executable tool`);
      const r = (await t.execute(w.args, { toolCallId: `call-${w.tool}`, messages: [], context: {} })) as ToolResult;
      expect(r.isError, w.job).toBe(true);
      expect(r.content.map((c) => c.text ?? '').join('\n'), w.job).toMatch(w.says);
    }
  });
});
