// LangChain's MCP adapters (`@langchain/mcp-adapters` with `@langchain/core`) against the server over
// stdio on the sandbox, through their own API: MultiServerMCPClient with a stdio connection and
// throwOnLoadError (a tool that does not convert fails the load), getTools() (each MCP tool as a
// DynamicStructuredTool), convertToOpenAITool (what bindTools hands a chat model), and calls through
// tool.invoke, which validates the arguments against the listed schema before sending them. No
// model is called.
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { describe, expect, it } from 'vitest';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { expectedToolNames, THREE_JOBS, useLibraryServers, WRONG_CALLS } from '../helpers/client-libraries.js';
import { portabilityProblems } from '../helpers/portable-schema.js';
import { apiRequests } from '../helpers/stdio-server.js';

const servers = useLibraryServers();

async function tools(toolsets: 'default' | 'all') {
  const client = await servers.start(
    toolsets,
    async (server) =>
      new MultiServerMCPClient({
        mcpServers: { workspace: { transport: 'stdio', command: server.command, args: server.args, env: server.env, cwd: server.cwd, stderr: 'pipe' } },
        throwOnLoadError: true,
        prefixToolNameWithServerName: false,
      }),
  );
  return client.getTools();
}

const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((c: { text?: string }) => c.text ?? '').join('\n') : JSON.stringify(content);

describe('LangChain MCP adapters', () => {
  it.each(['default', 'all'] as const)('loads every tool of %s on the first listing, each converting to a portable function', async (toolsets) => {
    const loaded = await tools(toolsets);
    expect(loaded.map((t) => t.name)).toEqual(expectedToolNames(toolsets));
    const problems: string[] = [];
    for (const t of loaded) {
      const fn = convertToOpenAITool(t).function;
      problems.push(...portabilityProblems(fn.parameters).map((p) => `${t.name}: ${p}`));
    }
    expect(problems).toEqual([]);
  });

  it('answers one call of each job through tool.invoke', async () => {
    const loaded = await tools('default');
    for (const j of THREE_JOBS) {
      const t = loaded.find((x) => x.name === j.tool);
      if (!t) throw new Error(`${j.tool} not loaded`);
      // An error result would throw a ToolException here.
      expect(textOf(await t.invoke(j.args)), j.job).toMatch(j.says);
    }
  });

  it("hands an error answer's text to the model: the ToolException says what was wrong", async () => {
    const loaded = await tools('default');
    for (const w of WRONG_CALLS) {
      const t = loaded.find((x) => x.name === w.tool);
      if (!t) throw new Error(`${w.tool} not loaded`);
      await expect(t.invoke(w.args), w.job).rejects.toThrow(w.says);
    }
  });

  it('helps the model before sending: an invented id is refused by the listed pattern, nothing sent', async () => {
    const loaded = await tools('default');
    const t = loaded.find((x) => x.name === 'get_finding');
    if (!t) throw new Error('get_finding not loaded');
    servers.sandbox.clearRequests();
    await expect(t.invoke({ engagement: ENGAGEMENT_AP, finding: 'finding-42' })).rejects.toThrow(/did not match expected schema/);
    expect(apiRequests(servers.sandbox)).toEqual([]);
  });
});
