// A whole stack for integration tests, every hop real: the sandbox on a port, the API client talking
// to it over HTTP, the MCP server served over Streamable HTTP on another port (the same serving code
// as `serve --http`), and the SDK's v2 client connected to it in the era a test asks for.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, type ClientOptions, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { Agent, fetch as undiciFetch } from 'undici';
import { catalog } from '../../catalog/index.js';
import { ApiClient } from '../../src/api/client.js';
import { RateLimiter } from '../../src/api/limiter.js';
import { type Config, loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { OperationSet } from '../../src/mcp/operations/operation-set.js';
import type { ScriptLimits } from '../../src/mcp/scripts/script-engine.js';
import { createServerFactory } from '../../src/mcp/server/server.js';
import { Session } from '../../src/mcp/server/session.js';
import { RequestLogRouter } from '../../src/mcp/transport/request-log.js';
import { createMcpHttp, type McpHttp, type McpHttpOptions } from '../../src/mcp/transport/streamable-http.js';
import type { Scope } from '../../src/operation.js';
import { type SandboxHandle, type SandboxOptions, startSandbox } from '../../src/sandbox/index.js';
import { startHttpServer } from '../../src/serve/local-http.js';

export type Era = 'legacy' | 'modern';

export interface StackOptions {
  sandbox?: SandboxOptions;
  /** Reuse a running sandbox instead of starting one. */
  sandboxHandle?: SandboxHandle;
  env?: Record<string, string>;
  token?: 'read' | 'write';
  grantedScope?: Scope;
  /** The client's options (capabilities: elicitation, roots...). */
  clientOptions?: ClientOptions;
  /** The protocol era the client speaks: 2025-11-25 (legacy, the default) or 2026-07-28 (modern). */
  era?: Era;
  /** Fetch the workspace's live /openapi.json at start, as serve does. Default true. */
  liveOpenApi?: boolean;
  /** Return only once the live description has landed (so tests count their own requests). Default true. */
  waitForLive?: boolean;
  /** Limits of code mode's scripts (run_read_script, run_write_script), set small by the tests of their limits. */
  scriptLimits?: Partial<ScriptLimits>;
  /** Limits of the HTTP serving (2025 sessions held, idle expiry, heap pressure), as serve --http takes them. */
  http?: Pick<McpHttpOptions, 'maxSessions' | 'sessionIdleMs' | 'heapPressure'>;
}

export interface Stack {
  sandbox: SandboxHandle;
  client: Client;
  api: ApiClient;
  config: Config;
  logs: string[];
  /**
   * The first server log line matching `pattern`, already logged (from line `since`, the length of
   * `logs` before the step awaited) or the next one; rejects after `ms`.
   */
  waitForLog(pattern: RegExp, ms?: number, since?: number): Promise<string>;
  /** The MCP endpoint the client is connected to. */
  url: string;
  /** The MCP serving behind it (its sessions held, its requests in flight). */
  mcp: McpHttp;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** Another client of the same server, in the era given. */
  connect(era: Era, options?: ClientOptions): Promise<Client>;
  close(): Promise<void>;
}

export function negotiation(era: Era): NonNullable<ClientOptions['versionNegotiation']> {
  return era === 'modern' ? { mode: { pin: '2026-07-28' } } : { mode: 'legacy' };
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
  const logWaiters = new Set<(line: string) => void>();
  const { logger, setTap } = createLogger(config.logLevel, (l) => {
    logs.push(l);
    for (const w of logWaiters) w(l);
  });
  const waitForLog = (pattern: RegExp, ms = 10_000, since = 0) =>
    new Promise<string>((resolve, reject) => {
      const seen = logs.slice(since).find((l) => pattern.test(l));
      if (seen !== undefined) return resolve(seen);
      const timer = setTimeout(() => {
        logWaiters.delete(read);
        reject(new Error(`the server logged no line matching ${pattern} within ${ms} ms`));
      }, ms);
      timer.unref();
      const read = (l: string) => {
        if (!pattern.test(l)) return;
        clearTimeout(timer);
        logWaiters.delete(read);
        resolve(l);
      };
      logWaiters.add(read);
    });
  const api = new ApiClient({
    baseUrl: `${sandbox.url}/api/v1`,
    token: () => token,
    locale: config.locale,
    timeoutMs: config.timeoutMs,
    // A fresh limiter per stack: tests must not share a budget through the per-process registry.
    limiter: new RateLimiter(config.rateLimit),
    logger,
    retry: {
      maxRetryAfterSeconds: config.maxRetryAfterSeconds,
      maxBudgetWaitMs: config.maxBudgetWaitMs,
      maxBudgetWaitWithProgressMs: config.maxBudgetWaitWithProgressMs,
      backoffBaseMs: 20,
    },
  });
  const earlier = new Set(sandbox.requests());
  const live = opts.liveOpenApi ?? true;
  const operations = new OperationSet({ catalog, logger, client: api, live, origin: sandbox.url });
  const session = new Session({
    config,
    client: api,
    logger,
    operations,
    ...(opts.grantedScope ? { grantedScope: opts.grantedScope } : {}),
    ...(opts.scriptLimits ? { scriptLimits: opts.scriptLimits } : {}),
  });
  const factory = createServerFactory({ config, logger, logs: new RequestLogRouter(setTap), sessionFor: () => session });
  const mcp = createMcpHttp({ factory, logger, ...opts.http });
  operations.onChanged(() => mcp.toolsChanged());
  const http = await startHttpServer({ host: '127.0.0.1', port: 0, mcp, logger });

  const clients: Client[] = [];
  // Like a browser or an HTTP client library, a bounded pool: a test that fires a thousand calls
  // queues them on a few connections instead of opening a thousand (the server caps connections).
  const pool = new Agent({ connections: 32 });
  const fetch = ((url: string | URL, init?: RequestInit) => undiciFetch(url, { ...(init as object), dispatcher: pool })) as unknown as typeof globalThis.fetch;
  const connect = async (era: Era, options: ClientOptions = {}) => {
    const c = new Client({ name: 'test-client', version: '1.0.0' }, { ...options, versionNegotiation: negotiation(era) });
    await c.connect(new StreamableHTTPClientTransport(new URL(http.url), { fetch }));
    clients.push(c);
    return c;
  };
  const client = await connect(opts.era ?? 'legacy', opts.clientOptions);
  // The live description is loaded once at start: let that land (a request, or the process's copy
  // of an earlier stack's, which sends none) before a test counts its own requests.
  if (live && opts.waitForLive !== false) {
    await Promise.any([
      waitForLog(/live API description (merged|not merged)|could not read the live API description/, 5_000),
      sandbox.waitForRequest((r) => !earlier.has(r) && r.template === '/openapi.json' && r.status > 0, 5_000),
    ]).catch(() => undefined); // neither within 5 s: the stack goes on without it, as serve would
  }
  return {
    sandbox,
    client,
    api,
    config,
    logs,
    waitForLog,
    url: http.url,
    mcp,
    call: (name, args = {}) => client.callTool({ name, arguments: args }),
    connect,
    async close() {
      for (const c of clients) await c.close().catch(() => {});
      session.close();
      await http.close(1000);
      await pool.close();
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

/** A sandbox of its own and the default surface over it: what most files of test/mcp start once. */
export async function startDefaultStack(): Promise<{ sandbox: SandboxHandle; stack: Stack }> {
  const sandbox = await startSandbox({ port: 0, rateLimit: false });
  return { sandbox, stack: await startStack({ sandboxHandle: sandbox, env: { WORKSPACE_TOOLSETS: 'default' } }) };
}

/** Closes what startDefaultStack started, the client and server first. */
export async function stopDefaultStack(started: { sandbox: SandboxHandle; stack: Stack }): Promise<void> {
  await started.stack.close();
  await started.sandbox.close();
}
