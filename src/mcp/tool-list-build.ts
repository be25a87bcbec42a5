// Build step (`npm run build` runs `node dist/src/mcp/tool-list-build.js`): asks the real server,
// through the SDK's own client, what it answers to `initialize` and `tools/list` under each
// precomputed policy, and writes that to dist/tools-list.json for src/mcp/tool-list-cache.ts.
// Asking the server, rather than rebuilding its answers here, keeps one source of truth.
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { ApiClient } from '../api/client.js';
import { RateLimiter } from '../api/limiter.js';
import { loadConfig } from '../config.js';
import { createLogger } from '../log.js';
import type { Operation } from '../operation.js';
import { SERVER_VERSION } from '../version.js';
import { createMcpServer } from './server.js';
import { PRECOMPUTED_POLICIES, TOOL_LIST_FILE, policyKey, type InitializeAnswer, type ListPolicy, type ToolListCache } from './tool-list-cache.js';

/** What the real server answers under one policy, asked over the SDK's in-memory transport. */
export async function askServer(
  operations: readonly Operation[],
  policy: ListPolicy,
): Promise<{ initialize: InitializeAnswer; tools: Tool[] }> {
  const env: Record<string, string> = {
    // Never contacted: listing needs no request. A loopback origin passes the https rule.
    WORKSPACE_URL: 'http://127.0.0.1:9',
    WORKSPACE_TOKEN: 'pat_buildtimeonly0000000000',
    WORKSPACE_TOOLSETS: Array.isArray(policy.toolsets) ? policy.toolsets.join(',') : policy.toolsets,
    WORKSPACE_READ_ONLY: String(policy.readOnly),
    LOG_LEVEL: 'silent',
  };
  const config = loadConfig(env);
  const { logger } = createLogger('silent');
  const client = new ApiClient({ baseUrl: `${env.WORKSPACE_URL}/api/v1`, token: () => env.WORKSPACE_TOKEN as string, limiter: new RateLimiter(config.rateLimit), logger });
  // The catalog alone: the live description of a workspace is merged at run time (list_changed).
  const server = createMcpServer({ config, client, logger, operations, liveOpenApi: false });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const mcp = new Client({ name: 'tool-list-build', version: SERVER_VERSION });
  await server.connect(serverSide);
  await mcp.connect(clientSide);
  try {
    const { tools } = await mcp.listTools();
    const init: InitializeAnswer = {
      capabilities: (mcp.getServerCapabilities() ?? {}) as Record<string, unknown>,
      serverInfo: (mcp.getServerVersion() ?? {}) as Record<string, unknown>,
    };
    const instructions = mcp.getInstructions();
    if (instructions !== undefined) init.instructions = instructions;
    return { initialize: init, tools };
  } finally {
    await mcp.close();
    await server.close();
    await client.close();
  }
}

export async function buildToolListCache(operations: readonly Operation[]): Promise<ToolListCache> {
  const answers: ToolListCache['answers'] = {};
  for (const policy of PRECOMPUTED_POLICIES) answers[policyKey(policy)] = await askServer(operations, policy);
  return {
    serverVersion: SERVER_VERSION,
    protocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
    latestProtocolVersion: LATEST_PROTOCOL_VERSION,
    answers,
    toolsets: Object.fromEntries(operations.map((op) => [op.name, op.toolset])),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { catalog } = await import('../../tools/index.js');
  const cache = await buildToolListCache(catalog);
  writeFileSync(TOOL_LIST_FILE, JSON.stringify(cache));
  process.stderr.write(`tool list cache: ${fileURLToPath(TOOL_LIST_FILE)} (${Object.keys(cache.answers).length} policies)\n`);
}
