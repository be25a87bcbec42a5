// `serve`: configuration, the API client for the configured (or embedded) workspace, and the MCP
// server on stdio, or with --http on a loopback Streamable HTTP endpoint (src/serve/local-http.ts), both protocol
// eras from one server factory (src/mcp/server/server.ts). Exits 2 on bad configuration with one line on
// stderr; exits 0 when the client closes stdin or on SIGINT/SIGTERM, after calls in flight finish
// (or, past a grace period, are cancelled).
import type { McpRequestContext, Server } from '@modelcontextprotocol/server';
import { catalog } from '../../catalog/index.js';
import type { ApiClient } from '../api/client.js';
import type { RateLimiter } from '../api/limiter.js';
import type { OAuthSession } from '../auth/oauth-session.js';
import { loginCommand } from '../auth/sign-in-errors.js';
import { type Config, ConfigError, loadConfig } from '../config.js';
import { createLogger, type Logger } from '../log.js';
import { OperationSet } from '../mcp/operations/operation-set.js';
import { type SignInFlow, SignInGate } from '../mcp/pipeline/sign-in-prompt.js';
import { createServerFactory } from '../mcp/server/server.js';
import { Session } from '../mcp/server/session.js';
import { announceToolsChanged } from '../mcp/transport/list-changes.js';
import { RequestLogRouter } from '../mcp/transport/request-log.js';
import { isLoopbackHost } from '../net/loopback.js';
import { type Operator, openOperator } from '../operator.js';
import { SERVER_NAME, SERVER_VERSION } from '../version.js';

export interface Workspace {
  url: string;
  /** A personal token, or undefined when the stored OAuth sign-in is used. */
  token?: string;
  /** The stored sign-in of `url` when there is no personal token. */
  oauth?: OAuthSession;
  /** Stops what was started for this workspace (the embedded sandbox). */
  close(): Promise<void>;
  embedded: boolean;
}

/** How long a shutdown on SIGINT/SIGTERM lets calls in flight finish before cancelling them. */
const SHUTDOWN_GRACE_MS = 5000;

/** One line on stderr, then exit 2: the server could not start. */
function cannotStart(message: string): never {
  process.stderr.write(`${SERVER_NAME}: ${message}\n`);
  process.exit(2);
}

const reason = (err: unknown) => (err instanceof Error ? err.message : String(err));

function exitOnConfigError(err: unknown): never {
  if (err instanceof ConfigError) cannotStart(err.message);
  throw err;
}

/**
 * Shut down once, whichever cause comes first: SIGINT and SIGTERM (`signalled`), or any the caller
 * passes to the function returned (stdin closing). `close` runs, then the process exits 0.
 */
function shutdownOnce(logger: Logger, close: (signalled: boolean) => Promise<void>): (why: string, signalled: boolean) => Promise<void> {
  let closing = false;
  const shutdown = async (why: string, signalled: boolean) => {
    if (closing) return;
    closing = true;
    logger.info({ why }, 'shutting down');
    await close(signalled);
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT', true));
  process.on('SIGTERM', () => void shutdown('SIGTERM', true));
  return shutdown;
}

/** The configured workspace, or the embedded sandbox when none is configured. */
async function resolveWorkspace(config: Config, logger: Logger): Promise<Workspace> {
  if (config.workspaceUrl) {
    if (config.token) return { url: config.workspaceUrl, token: config.token, embedded: false, close: async () => {} };
    // No personal token: the member's OAuth sign-in (login), loaded only when needed.
    const { OAuthSession } = await import('../auth/oauth-session.js');
    const oauth = await OAuthSession.open(config.workspaceUrl, { logger });
    return { url: config.workspaceUrl, oauth, embedded: false, close: async () => {} };
  }
  // Loaded only here: a session against a real workspace never pays for the sandbox.
  const { startSandbox } = await import('../sandbox/index.js');
  const sandbox = await startSandbox({ port: 0 });
  return { url: sandbox.url, token: sandbox.tokens.write, embedded: true, close: () => sandbox.close() };
}

/**
 * The audit trail and metrics the operator asked for; the metrics' address is always said on stderr
 * (with port 0 it is the only way to learn it). A metrics port that cannot be had stops the start.
 */
async function startOperator(config: Config, logger: Logger, store?: unknown): Promise<Operator> {
  let operator: Operator;
  try {
    operator = await openOperator(config, logger, store);
  } catch (err) {
    cannotStart(`cannot serve metrics on ${config.metrics?.host}:${config.metrics?.port} (${reason(err)}); choose another port with --metrics-port.`);
  }
  if (operator.metricsUrl) process.stderr.write(`${SERVER_NAME}: serving metrics at ${operator.metricsUrl}\n`);
  return operator;
}

/** One interactive sign-in for the MCP layer's gate: the loopback listener runs in this process; its GET /me draws on `limiter`. */
function startSignIn(oauth: OAuthSession, config: Config, logger: Logger, limiter: RateLimiter): SignInFlow {
  let showUrl!: (url: string) => void;
  const url = new Promise<string>((resolve) => (showUrl = resolve));
  let cancel!: (why: string) => void;
  const cancelled = new Promise<never>((_, reject) => (cancel = (why) => reject(new Error(why))));
  const flow = (async () => {
    const { signIn } = await import('../auth/sign-in.js');
    await signIn({
      workspaceUrl: oauth.workspaceUrl,
      scope: config.readOnly ? 'read' : 'write',
      store: oauth.store,
      limiter,
      logger,
      present: async (u) => showUrl(u),
    });
    await oauth.reload();
  })();
  const done = Promise.race([flow, cancelled]);
  // A flow nobody waits for must not surface as an unhandled rejection.
  done.catch(() => {});
  return { id: globalThis.crypto.randomUUID(), url: Promise.race([url, done.then(() => url)]), done, cancel };
}

/** What every transport shares: the workspace, its credentials, one API client and its rate budget. */
interface Backend {
  workspace: Workspace;
  client: ApiClient;
  operations: OperationSet;
  /** The member's session (rebuilt when a sign-in changes their consent). */
  session(): Session;
  /** A new MCP server over the shared session (one per stdio connection, HTTP session or request). */
  factory: (ctx: McpRequestContext) => Promise<Server>;
  /** Called when the tool list changed (new operations, another consent after a sign-in). */
  onToolsChanged(listener: () => void): void;
  logger: Logger;
  /** The audit trail and metrics the operator asked for. */
  operator: Operator;
  close(): Promise<void>;
}

async function openBackend(config: Config, logger: Logger, logs: RequestLogRouter): Promise<Backend> {
  let workspace: Workspace;
  try {
    workspace = await resolveWorkspace(config, logger);
  } catch (err) {
    exitOnConfigError(err);
  }
  if (workspace.embedded) {
    logger.info({ workspace: workspace.url }, 'No WORKSPACE_URL set: serving the embedded sandbox workspace (demo data, in memory).');
  }
  const [{ ApiClient, tokenFingerprint }, { budgetKey, RateLimiter }, { openLocalStore }] = await Promise.all([
    import('../api/client.js'),
    import('../api/limiter.js'),
    import('../store/open.js'),
  ]);
  // The budget's window, shared with the member's other local processes (the SQLite store in the
  // config folder) or every process on REDIS_URL; opened while the server starts (the limiter waits for it).
  const store = openLocalStore({ redisUrl: config.redisUrl, configDir: config.configDir, warn: (m) => logger.warn(m) });
  const operator = await startOperator(config, logger, store);
  const { oauth, token } = workspace;
  if (oauth) {
    logger.info(
      { workspace: workspace.url, signedIn: oauth.signedIn, scope: oauth.scope ?? null },
      oauth.signedIn ? 'using the stored OAuth sign-in' : `not signed in: tools will ask to sign in (${loginCommand(workspace.url)})`,
    );
  }
  const client = new ApiClient({
    baseUrl: `${workspace.url}/api/v1`,
    token: oauth ? () => oauth.accessToken() : () => token as string,
    ...(oauth ? { onUnauthorized: () => oauth.onUnauthorized() } : {}),
    locale: config.locale,
    timeoutMs: config.timeoutMs,
    // The budget is the member's: keyed by the sign-in, not by an access token that rotates, and by
    // the workspace (the shared store may hold several workspaces' budgets).
    limiter: new RateLimiter({
      ...config.rateLimit,
      key: budgetKey(tokenFingerprint(`${workspace.url}\n${token ?? 'oauth'}`), config.rateLimit),
      store,
      onStoreError: (err: unknown) => {
        if (config.redisUrl) operator.redisError();
        logger.warn({ err: reason(err) }, 'the shared rate budget is unavailable: counting alone');
      },
    }),
    logger,
    userAgent: `${SERVER_NAME}/${SERVER_VERSION} (node ${process.version})`,
    retry: {
      maxRetryAfterSeconds: config.maxRetryAfterSeconds,
      maxBudgetWaitMs: config.maxBudgetWaitMs,
      maxBudgetWaitWithProgressMs: config.maxBudgetWaitWithProgressMs,
    },
  });
  const operations = new OperationSet({
    catalog,
    logger,
    // Asked as soon as a sign-in allows; an OAuth workspace not signed in yet lists the catalog.
    client,
    live: !oauth || oauth.signedIn,
    origin: workspace.url,
    // A loopback workspace (the sandbox) is cheap to ask again; only remote ones are kept on disk.
    ...(isLoopbackHost(new URL(workspace.url).hostname) ? {} : { cacheDir: config.configDir }),
  });
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const l of listeners) l();
  };
  operations.onChanged(changed);

  let scope = oauth?.scope;
  let session = new Session({ config, client, logger, operations, ...(scope ? { grantedScope: scope } : {}) });
  // After a sign-in inside a call, the member's consent decides the tools: read lists no write tool.
  const refreshConsent = () => {
    if (!oauth || oauth.scope === scope) return;
    scope = oauth.scope;
    operations.startLive();
    session.close();
    session = new Session({ config, client, logger, operations, ...(scope ? { grantedScope: scope } : {}) });
    changed();
  };
  const signIn = oauth
    ? new SignInGate({
        workspaceUrl: workspace.url,
        signedIn: () => {
          refreshConsent();
          return oauth.signedIn;
        },
        start: () => startSignIn(oauth, config, logger, client.limiter),
        loginCommand: loginCommand(workspace.url),
      })
    : undefined;
  const factory = createServerFactory({
    config,
    logger,
    logs,
    sessionFor: () => session,
    ...(signIn ? { signIn } : {}),
    ...(operator.events ? { events: operator.events } : {}),
  });

  return {
    workspace,
    client,
    operations,
    session: () => session,
    factory,
    onToolsChanged: (l) => void listeners.add(l),
    logger,
    operator,
    async close() {
      await operator.close();
      await client.close().catch(() => {});
      await store.then((s) => s.close()).catch(() => {});
      await workspace.close().catch(() => {});
    },
  };
}

export async function runServe(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(env, argv);
  } catch (err) {
    exitOnConfigError(err);
  }
  const log = createLogger(config.logLevel);
  const logs = new RequestLogRouter(log.setTap);
  if (config.remote) return runRemoteServe({ ...config, remote: config.remote }, log.logger, logs);
  if (config.http) return runHttpServe(config, config.http, log.logger, logs);
  const logger = log.logger;

  // A terminal on stdin is a person, not a client: the server says what it serves (the banner).
  const person = Boolean(process.stdin.isTTY);
  const backend = await openBackend(config, logger, logs);
  const { serveOnStdio } = await import('../mcp/transport/stdio.js');
  const stdio = serveOnStdio(backend.factory, { logger, onerror: (err) => logger.debug({ err: err.message }, 'stdio transport error') });
  backend.onToolsChanged(() => announceToolsChanged(stdio.server()));

  const shutdown = shutdownOnce(logger, async (signalled) => {
    // On a signal the client may still read answers: let calls in flight finish first. Closing the
    // server then cancels what is left (their signals abort the HTTP calls; downloads are written to
    // a temp file and renamed, so nothing is left half-written).
    if (signalled && !(await stdio.inFlight.drained(SHUTDOWN_GRACE_MS)))
      logger.warn({ cancelled: stdio.inFlight.size }, 'shutdown: cancelling requests still in flight');
    await stdio.handle.close().catch(() => {});
    await backend.close();
  });
  // The end of stdin: every call read before it is answered first (src/mcp/transport/stdio.ts).
  void stdio.inputDone.then(() => shutdown('stdin closed', false));
  logger.info({ workspace: backend.workspace.url, toolsets: config.toolsets, readOnly: config.readOnly }, 'serving MCP on stdio');
  if (person) await showBanner(config, backend);
}

/** The banner for a person at the terminal (src/serve/banner.ts), on stderr; the member from GET /me. */
async function showBanner(config: Config, backend: Backend): Promise<void> {
  const { renderBanner } = await import('./banner.js');
  const { workspace, client } = backend;
  let member: string;
  try {
    const { readCurrentMember } = await import('../api/me.js');
    const me = await readCurrentMember(client);
    member = [me.name, me.email ? `<${String(me.email)}>` : undefined, me.role ? `(${String(me.role)})` : undefined].filter(Boolean).join(' ') || String(me.id);
  } catch (err) {
    member = `unknown (GET /me failed: ${reason(err)}; the Diagnose line below says why)`;
  }
  const granted = workspace.oauth?.scope;
  const scope = granted
    ? `${granted} (granted at OAuth consent)`
    : workspace.embedded
      ? 'write (the sandbox write token)'
      : config.readOnly
        ? 'read only (WORKSPACE_READ_ONLY)'
        : "what the personal token allows (the API does not show a token's scope; a read token's writes are refused)";
  const env: Record<string, string> = {};
  if (config.workspaceUrl) env.WORKSPACE_URL = config.workspaceUrl;
  if (config.token) env.WORKSPACE_TOKEN = '"$WORKSPACE_TOKEN"';
  if (config.readOnly) env.WORKSPACE_READ_ONLY = 'true';
  await backend.operations.listReady();
  const tools = backend.session().tools().length;
  process.stderr.write(
    renderBanner({ workspace: workspace.url, embedded: workspace.embedded, member, scope, tools, transport: 'stdio (JSON-RPC on stdin/stdout)', env }),
  );
}

/**
 * `serve --http`: the same backend behind Streamable HTTP. stdin is not the protocol channel here;
 * stdout stays silent all the same.
 */
async function runHttpServe(config: Config, listen: { host: string; port: number }, logger: Logger, logs: RequestLogRouter): Promise<void> {
  const [{ startHttpServer }, { createMcpHttp }] = await Promise.all([import('./local-http.js'), import('../mcp/transport/streamable-http.js')]);
  const backend = await openBackend(config, logger, logs);
  const mcp = createMcpHttp({ factory: backend.factory, logger });
  backend.operator.countSessions(() => mcp.sessions);
  backend.onToolsChanged(() => mcp.toolsChanged());
  let http: Awaited<ReturnType<typeof startHttpServer>>;
  try {
    http = await startHttpServer({ ...listen, mcp, logger });
  } catch (err) {
    await backend.close();
    cannotStart(`cannot listen on ${listen.host}:${listen.port} (${reason(err)}); choose another port with --port or WORKSPACE_HTTP_PORT.`);
  }
  shutdownOnce(logger, async () => {
    await http.close(SHUTDOWN_GRACE_MS);
    await backend.close();
  });
  // Always said, whatever LOG_LEVEL: with --port 0 it is the only way to learn the address.
  process.stderr.write(`${SERVER_NAME}: serving MCP over Streamable HTTP at ${http.url}\n`);
  logger.info({ url: http.url, workspace: backend.workspace.url, toolsets: config.toolsets, readOnly: config.readOnly }, 'serving MCP over Streamable HTTP');
}

/**
 * `serve --remote`: many members, each signing in with the workspace's OAuth (src/remote). The state
 * (sign-ins, grants, budgets) is in the store: Redis with REDIS_URL (any number of replicas), or in
 * memory (one process).
 */
async function runRemoteServe(config: Config & { remote: NonNullable<Config['remote']> }, logger: Logger, logs: RequestLogRouter): Promise<void> {
  const [{ startRemoteServer }, { openStore }] = await Promise.all([import('../remote/serve-remote.js'), import('../store/open.js')]);
  let workspaceUrl = config.workspaceUrl;
  let sandbox: { close(): Promise<void> } | undefined;
  if (!workspaceUrl) {
    // A trial on the embedded sandbox: members sign in on its consent page.
    const { startSandbox } = await import('../sandbox/index.js');
    const sb = await startSandbox({ port: 0 });
    workspaceUrl = sb.url;
    sandbox = sb;
    logger.info({ workspace: sb.url }, 'No WORKSPACE_URL set: serving the embedded sandbox workspace (demo data, in memory).');
  }
  // Every replica on one Redis (REDIS_URL) shares sign-ins, grants and budgets; without it, one process.
  let store: Awaited<ReturnType<typeof openStore>>;
  let redisError = () => {};
  try {
    store = await openStore({
      ...(config.redisUrl ? { redisUrl: config.redisUrl } : {}),
      onError: (err) => {
        redisError();
        logger.warn({ err: err.message }, 'the state store reported an error');
      },
    });
  } catch (err) {
    await sandbox?.close();
    cannotStart(`cannot open the state store (${reason(err)}).`);
  }
  const operator = await startOperator(config, logger, store);
  redisError = () => operator.redisError();
  let remote: Awaited<ReturnType<typeof startRemoteServer>>;
  try {
    remote = await startRemoteServer({ config, logger, logs, store, workspaceUrl, operator });
  } catch (err) {
    await sandbox?.close();
    cannotStart(`cannot serve the remote mode on ${config.remote.host}:${config.remote.port} (${reason(err)}).`);
  }
  shutdownOnce(logger, async () => {
    await remote.close(SHUTDOWN_GRACE_MS);
    await operator.close();
    await store.close();
    await sandbox?.close();
  });
  // Always said, whatever LOG_LEVEL: with --port 0 it is the only way to learn the address.
  process.stderr.write(`${SERVER_NAME}: serving MCP (remote mode) at ${remote.url}, public URL ${remote.publicUrl}/mcp\n`);
  logger.info({ url: remote.url, publicUrl: remote.publicUrl, workspace: workspaceUrl, toolsets: config.toolsets }, 'serving MCP in the remote mode');
}
