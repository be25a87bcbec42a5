// Google's Gen AI SDK (`@google/genai`) against the server over stdio on the sandbox, through its own
// API: mcpToTool over an MCP SDK client (the SDK's documented peer, `@modelcontextprotocol/sdk`),
// tool() for the function declarations Gemini is sent, and callTool with function calls as Gemini
// returns them. The declarations carry each tool's input schema as parametersJsonSchema: Gemini's
// subset refuses multi-type unions and objects without properties, which the portability check
// covers. No model is called.
import { type FunctionDeclaration, mcpToTool } from '@google/genai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { expectedToolNames, THREE_JOBS, useLibraryServers, WRONG_CALLS } from '../helpers/client-libraries.js';
import { portabilityProblems } from '../helpers/portable-schema.js';

const servers = useLibraryServers();

async function callable(toolsets: 'default' | 'all') {
  const client = await servers.start(toolsets, async (server) => {
    const c = new Client({ name: 'genai-test', version: '1.0.0' });
    await c.connect(new StdioClientTransport({ command: server.command, args: server.args, env: server.env, cwd: server.cwd, stderr: 'pipe' }));
    return c;
  });
  return mcpToTool(client);
}

describe('Google Gen AI SDK (mcpToTool)', () => {
  it.each(['default', 'all'] as const)('declares every tool of %s on the first listing, each schema in Gemini’s subset', async (toolsets) => {
    const tool = await (await callable(toolsets)).tool();
    const declarations: FunctionDeclaration[] = tool.functionDeclarations ?? [];
    expect(declarations.map((d) => d.name)).toEqual(expectedToolNames(toolsets));
    const problems = declarations.flatMap((d) =>
      d.parametersJsonSchema === undefined ? [`${d.name}: no parameters`] : portabilityProblems(d.parametersJsonSchema).map((p) => `${d.name}: ${p}`),
    );
    expect(problems).toEqual([]);
  });

  it('answers one call of each job through callTool, as Gemini function calls', async () => {
    const tool = await callable('default');
    for (const j of THREE_JOBS) {
      const [part] = await tool.callTool([{ name: j.tool, args: j.args }]);
      const response = part?.functionResponse?.response as { error?: unknown; content?: Array<{ text?: string }> } | undefined;
      expect(response?.error, j.job).toBeUndefined();
      expect((response?.content ?? []).map((c) => c.text ?? '').join('\n'), j.job).toMatch(j.says);
    }
  });

  it("hands an error answer's text to Gemini as the function response's error", async () => {
    const tool = await callable('default');
    for (const w of WRONG_CALLS) {
      const [part] = await tool.callTool([{ name: w.tool, args: w.args }]);
      const response = part?.functionResponse?.response as { error?: { isError?: boolean; content?: Array<{ text?: string }> } } | undefined;
      expect(response?.error?.isError, w.job).toBe(true);
      expect((response?.error?.content ?? []).map((c) => c.text ?? '').join('\n'), w.job).toMatch(w.says);
    }
  });
});
