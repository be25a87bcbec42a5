// `serve`: configuration, the API client for the configured (or embedded) workspace, and the MCP
// server on stdio. Exits 2 on bad configuration with one line on stderr; exits 0 when the client
// closes stdin or on SIGINT/SIGTERM.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ApiClient, tokenFingerprint } from './api/client.js';
import { limiterFor } from './api/limiter.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createLogger } from './log.js';
import { createMcpServer } from './mcp/server.js';
import { SERVER_NAME, SERVER_VERSION } from './version.js';
import { catalog } from '../tools/index.js';

export interface Workspace {
  url: string;
  token: string;
  /** Stops what was started for this workspace (the embedded sandbox). */
  close(): Promise<void>;
  embedded: boolean;
}

/** The configured workspace, or the embedded sandbox when none is configured. */
async function resolveWorkspace(config: Config): Promise<Workspace> {
  if (config.workspaceUrl) {
    if (!config.token) {
      throw new ConfigError(
        `No token for ${config.workspaceUrl}: set WORKSPACE_TOKEN (--token) to a personal token (pat_...) created in API and integrations > API keys.`,
      );
    }
    return { url: config.workspaceUrl, token: config.token, embedded: false, close: async () => {} };
  }
  // Loaded only here: a session against a real workspace never pays for the sandbox.
  const { startSandbox } = await import('./sandbox/index.js');
  const sandbox = await startSandbox({ port: 0 });
  return { url: sandbox.url, token: sandbox.tokens.write, embedded: true, close: () => sandbox.close() };
}

export async function runServe(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(env, argv);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${SERVER_NAME}: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const { logger, setTap } = createLogger(config.logLevel);

  let workspace: Workspace;
  try {
    workspace = await resolveWorkspace(config);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${SERVER_NAME}: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  if (workspace.embedded) {
    logger.info({ workspace: workspace.url }, 'No WORKSPACE_URL set: serving the embedded sandbox workspace (demo data, in memory).');
  }

  const client = new ApiClient({
    baseUrl: `${workspace.url}/api/v1`,
    token: () => workspace.token,
    locale: config.locale,
    timeoutMs: config.timeoutMs,
    limiter: limiterFor(tokenFingerprint(workspace.token), config.rateLimit),
    logger,
    userAgent: `${SERVER_NAME}/${SERVER_VERSION} (node ${process.version})`,
    retry: { maxRetryAfterSeconds: config.maxRetryAfterSeconds },
  });

  const server = createMcpServer({
    config,
    client,
    logger,
    operations: catalog,
    setLogTap: (tap, level) => setTap(tap, level),
  });
  const transport = new StdioServerTransport();

  let closing = false;
  const shutdown = async (why: string) => {
    if (closing) return;
    closing = true;
    logger.info({ why }, 'shutting down');
    // Closing the server cancels in-flight requests (their signals abort the HTTP calls).
    await server.close().catch(() => {});
    await client.close().catch(() => {});
    await workspace.close().catch(() => {});
    process.exit(0);
  };
  process.stdin.on('end', () => void shutdown('stdin closed'));
  process.stdin.on('close', () => void shutdown('stdin closed'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  transport.onclose = () => void shutdown('transport closed');

  await server.connect(transport);
  logger.info({ workspace: workspace.url, toolsets: config.toolsets, readOnly: config.readOnly }, 'serving MCP on stdio');
}
