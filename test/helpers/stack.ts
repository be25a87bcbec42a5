// A whole stack for integration tests: the sandbox on a real port, the API client talking to it over
// HTTP, the MCP server, and the SDK's client connected through the SDK's in-memory transport pair.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ApiClient } from '../../src/api/client.js';
import { RateLimiter } from '../../src/api/limiter.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { createMcpServer } from '../../src/mcp/server.js';
import type { Scope } from '../../src/operation.js';
import { startSandbox, type SandboxHandle, type SandboxOptions } from '../../src/sandbox/index.js';
import { catalog } from '../../tools/index.js';

export interface StackOptions {
  sandbox?: SandboxOptions;
  /** Reuse a running sandbox instead of starting one. */
  sandboxHandle?: SandboxHandle;
  env?: Record<string, string>;
  token?: 'read' | 'write';
  grantedScope?: Scope;
  clientCapabilities?: ConstructorParameters<typeof Client>[1];
  /** Fetch the workspace's live /openapi.json at start, as serve does. Default true. */
  liveOpenApi?: boolean;
}

export interface Stack {
  sandbox: SandboxHandle;
  client: Client;
  api: ApiClient;
  config: Config;
  logs: string[];
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const sandbox = opts.sandboxHandle ?? (await startSandbox({ port: 0, rateLimit: false, ...opts.sandbox }));
  const downloads = await mkdtemp(join(tmpdir(), 'wcm-downloads-'));
  const token = sandbox.tokens[opts.token ?? 'write'];
  const config = loadConfig({
    WORKSPACE_URL: sandbox.url,
    WORKSPACE_TOKEN: token,
    WORKSPACE_DOWNLOAD_DIR: downloads,
    LOG_LEVEL: 'debug',
    // One tool per operation unless a test asks for another surface.
    WORKSPACE_TOOLSETS: 'all',
    ...opts.env,
  });
  const logs: string[] = [];
  const { logger, setTap } = createLogger(config.logLevel, (l) => logs.push(l));
  const api = new ApiClient({
    baseUrl: `${sandbox.url}/api/v1`,
    token: () => token,
    locale: config.locale,
    timeoutMs: config.timeoutMs,
    // A fresh limiter per stack: tests must not share a budget through the per-process registry.
    limiter: new RateLimiter(config.rateLimit),
    logger,
    retry: { maxRetryAfterSeconds: config.maxRetryAfterSeconds, backoffBaseMs: 20 },
  });
  const logBefore = sandbox.requests().length;
  const live = opts.liveOpenApi ?? true;
  const server = createMcpServer({
    liveOpenApi: live,
    config,
    client: api,
    logger,
    operations: catalog,
    setLogTap: (tap, level) => setTap(tap, level),
    ...(opts.grantedScope ? { grantedScope: opts.grantedScope } : {}),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'test-client', version: '1.0.0' }, opts.clientCapabilities);
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  // The live description is loaded once at start: let that land (a request, or the process's copy
  // of an earlier stack's, which sends none) before a test counts its own requests.
  if (live) {
    const until = Date.now() + 5_000;
    const settled = () =>
      logs.some((l) => /live API description (merged|not merged)|could not read the live API description/.test(l)) ||
      sandbox.requests().slice(logBefore).some((r) => r.template === '/openapi.json' && r.status > 0);
    while (Date.now() < until && !settled()) await new Promise((r) => setTimeout(r, 5));
  }
  return {
    sandbox,
    client,
    api,
    config,
    logs,
    call: (name, args = {}) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>,
    async close() {
      await client.close();
      await server.close();
      await api.close();
      if (!opts.sandboxHandle) await sandbox.close();
    },
  };
}

/** The text of a tool result's first text block. */
export function textOf(r: CallToolResult): string {
  const t = r.content.find((c) => c.type === 'text');
  return t && t.type === 'text' ? t.text : '';
}
