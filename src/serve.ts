// `serve`: configuration, the API client for the configured (or embedded) workspace, and the MCP
// server on stdio, or with --http on a loopback Streamable HTTP endpoint (src/http.ts). Exits 2 on
// bad configuration with one line on stderr; exits 0 when the client closes stdin or on
// SIGINT/SIGTERM, after requests in flight finish (or, past a grace period, are cancelled).
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { ApiClient } from './api/client.js';
import { WorkspaceApiError } from './api/errors.js';
import { loginCommand, NotSignedInError } from './auth/errors.js';
import type { OAuthSession } from './auth/session.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { trackInFlight, type InFlight } from './in-flight.js';
import type { Logger } from './log.js';
import { EarlyStdioTransport } from './mcp/early-stdio.js';
import type { McpServerDeps } from './mcp/server.js';
import { earlyAnswersFor } from './mcp/tool-list-cache.js';
import { SERVER_NAME, SERVER_VERSION } from './version.js';

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

/** The configured workspace, or the embedded sandbox when none is configured. */
async function resolveWorkspace(config: Config, logger: Logger): Promise<Workspace> {
  if (config.workspaceUrl) {
    if (config.token) return { url: config.workspaceUrl, token: config.token, embedded: false, close: async () => {} };
    // No personal token: the member's OAuth sign-in (login), loaded only when needed.
    const { OAuthSession } = await import('./auth/session.js');
    const oauth = await OAuthSession.open(config.workspaceUrl, { logger });
    return { url: config.workspaceUrl, oauth, embedded: false, close: async () => {} };
  }
  // Loaded only here: a session against a real workspace never pays for the sandbox.
  const { startSandbox } = await import('./sandbox/index.js');
  const sandbox = await startSandbox({ port: 0 });
  return { url: sandbox.url, token: sandbox.tokens.write, embedded: true, close: () => sandbox.close() };
}

/**
 * The token provider of an OAuth workspace. Not signed in: a client that supports URL-mode
 * elicitation is asked to send the member to the sign-in page (this process runs the loopback
 * listener) and the call carries on once it completes; otherwise the call fails with the exact
 * login command, as a tool error.
 */
function oauthTokenProvider(oauth: OAuthSession, config: Config, logger: Logger, server: () => Server | undefined): () => Promise<string> {
  let signingIn: Promise<void> | undefined;
  const elicitSignIn = async (mcp: Server) => {
    const { signIn } = await import('./auth/signin.js');
    // The global Web Crypto, not an import of node:crypto: its ESM facade costs 7-8 ms of every start.
    const elicitationId = globalThis.crypto.randomUUID();
    await signIn({
      workspaceUrl: oauth.workspaceUrl,
      scope: config.readOnly ? 'read' : 'write',
      store: oauth.store,
      logger,
      async present(url) {
        const answer = await mcp.elicitInput({
          mode: 'url',
          elicitationId,
          url,
          message: `Sign in to the Workspace Consulting workspace ${oauth.workspaceUrl} to let the assistant use it (two-step verification, then choose read only or read and write).`,
        });
        if (answer.action !== 'accept') throw new NotSignedInError(oauth.workspaceUrl, `the member chose ${answer.action} instead of signing in`);
      },
    });
    await mcp.createElicitationCompletionNotifier(elicitationId)().catch(() => {});
    await oauth.reload();
  };
  return async () => {
    try {
      return await oauth.accessToken();
    } catch (err) {
      if (!(err instanceof NotSignedInError)) throw err;
      const mcp = server();
      if (!mcp?.getClientCapabilities()?.elicitation?.url) {
        throw new WorkspaceApiError(401, 'auth.not_signed_in', err.message);
      }
      signingIn ??= elicitSignIn(mcp).finally(() => {
        signingIn = undefined;
      });
      try {
        await signingIn;
      } catch (e) {
        const why = e instanceof Error ? e.message : String(e);
        throw new WorkspaceApiError(401, 'auth.not_signed_in', `${why} To sign in outside the assistant, run: ${loginCommand(oauth.workspaceUrl)}`);
      }
      return await oauth.accessToken();
    }
  };
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
  if (config.http) return runHttpServe(config, config.http);
  // Startup: the client's initialize and tools/list are answered from the build-time cache before
  // pino, the SDK, zod, undici and the catalog load; they load once the list is out. The policy of
  // the list is known from the configuration, except under an OAuth sign-in (the consent decides
  // it): then everything waits for the server as before.
  const oauthExpected = Boolean(config.workspaceUrl && !config.token);
  // A terminal on stdin is a person, not a client: no fast path to win, and the server must load at
  // once to say what it serves (the banner) instead of waiting silently for a first message.
  const person = Boolean(process.stdin.isTTY);
  const transport = new EarlyStdioTransport({
    early: oauthExpected || person ? undefined : earlyAnswersFor({ toolsets: config.toolsets, readOnly: config.readOnly }, SERVER_VERSION),
  });
  let logger: Logger | undefined;
  let backend: Backend | undefined;
  let server: Server | undefined;
  let inFlight: InFlight | undefined;
  let closing = false;
  const shutdown = async (why: string, drain: boolean) => {
    if (closing) return;
    closing = true;
    logger?.info({ why }, 'shutting down');
    // On a signal the client may still read answers: let calls in flight finish first. Closing
    // the server then cancels what is left (their signals abort the HTTP calls; downloads are
    // written to a temp file and renamed, so nothing is left half-written).
    if (drain && inFlight && !(await inFlight.drained(SHUTDOWN_GRACE_MS))) logger?.warn({ cancelled: inFlight.size }, 'shutdown: cancelling requests still in flight');
    await server?.close().catch(() => {});
    await backend?.close();
    process.exit(0);
  };
  process.stdin.on('end', () => void shutdown('stdin closed', false));
  process.stdin.on('close', () => void shutdown('stdin closed', false));
  process.on('SIGINT', () => void shutdown('SIGINT', true));
  process.on('SIGTERM', () => void shutdown('SIGTERM', true));
  transport.onclose = () => void shutdown('transport closed', false);
  transport.listen();
  await transport.serverWanted;

  const { createLogger } = await import('./log.js');
  const log = createLogger(config.logLevel);
  logger = log.logger;
  const setTap = log.setTap;
  backend = await openBackend(config, logger, () => server);
  server = backend.createServer({ setLogTap: (tap, level) => setTap(tap, level), listedEarly: transport.listedEarly });
  await server.connect(transport);
  inFlight = trackInFlight(transport);
  logger.info({ workspace: backend.workspace.url, toolsets: config.toolsets, readOnly: config.readOnly }, 'serving MCP on stdio');
  if (person) await showBanner(config, backend.workspace, backend.client);
}

/** The banner for a person at the terminal (src/banner.ts), on stderr; the member from GET /me. */
async function showBanner(config: Config, workspace: Workspace, client: ApiClient): Promise<void> {
  const { entryScript, renderBanner } = await import('./banner.js');
  let member: string;
  try {
    const me = (await client.request({ method: 'GET', path: '/me' })).data as Record<string, unknown>;
    member = [me.name, me.email ? `<${String(me.email)}>` : undefined, me.role ? `(${String(me.role)})` : undefined].filter(Boolean).join(' ') || String(me.id);
  } catch (err) {
    member = `unknown (GET /me failed: ${err instanceof Error ? err.message : String(err)}; run workspace-consulting-mcp doctor)`;
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
  const tools = earlyAnswersFor({ toolsets: config.toolsets, readOnly: config.readOnly || granted === 'read' }, SERVER_VERSION)?.tools.length;
  process.stderr.write(
    renderBanner({ workspace: workspace.url, embedded: workspace.embedded, member, scope, tools, transport: 'stdio (JSON-RPC on stdin/stdout)', entry: entryScript(), env }),
  );
}

/** How long a shutdown on SIGINT/SIGTERM lets requests in flight finish before cancelling them. */
const SHUTDOWN_GRACE_MS = 5000;

/** What every transport shares: the workspace, its credentials, one API client and its rate budget. */
interface Backend {
  workspace: Workspace;
  client: ApiClient;
  /** A new MCP server over the shared client (one per stdio process, one per HTTP session). */
  createServer(extra: Pick<McpServerDeps, 'setLogTap' | 'listedEarly'>): Server;
  close(): Promise<void>;
}

async function openBackend(config: Config, logger: Logger, currentServer: () => Server | undefined): Promise<Backend> {
  let workspace: Workspace;
  try {
    workspace = await resolveWorkspace(config, logger);
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
  const grantedScope = workspace.oauth?.scope;

  const [{ ApiClient, tokenFingerprint }, { limiterFor }, { createMcpServer }, { catalog }, { openLocalStore }] = await Promise.all([
    import('./api/client.js'),
    import('./api/limiter.js'),
    import('./mcp/server.js'),
    import('../tools/index.js'),
    import('./store/open.js'),
  ]);
  // The budget's window, shared with the member's other local processes (file store) or replicas
  // (Redis); opened while the server starts, not before (the limiter waits for it).
  const store = openLocalStore({ redisUrl: process.env.REDIS_URL, configDir: config.configDir, warn: (m) => logger.warn(m) });
  const { oauth, token } = workspace;
  if (oauth) {
    logger.info(
      { workspace: workspace.url, signedIn: oauth.signedIn, scope: oauth.scope ?? null },
      oauth.signedIn ? 'using the stored OAuth sign-in' : `not signed in: tools will ask to sign in (${loginCommand(workspace.url)})`,
    );
  }
  const client = new ApiClient({
    baseUrl: `${workspace.url}/api/v1`,
    token: oauth ? oauthTokenProvider(oauth, config, logger, currentServer) : () => token as string,
    ...(oauth ? { onUnauthorized: () => oauth.onUnauthorized() } : {}),
    locale: config.locale,
    timeoutMs: config.timeoutMs,
    // The budget is the member's: keyed by the sign-in, not by an access token that rotates, and by
    // the workspace (the shared store may hold several workspaces' budgets).
    limiter: limiterFor(tokenFingerprint(`${workspace.url}\n${token ?? 'oauth'}`), { ...config.rateLimit, store }),
    logger,
    userAgent: `${SERVER_NAME}/${SERVER_VERSION} (node ${process.version})`,
    retry: { maxRetryAfterSeconds: config.maxRetryAfterSeconds },
  });

  return {
    workspace,
    client,
    // The granted scope decides the tool list: read consent lists no write tool and refuses one.
    createServer: (extra) =>
      createMcpServer({
        config,
        client,
        logger,
        operations: catalog,
        ...(grantedScope ? { grantedScope } : {}),
        // The embedded sandbox has no WORKSPACE_URL: its live description is keyed by its own origin.
        workspaceOrigin: workspace.url,
        ...extra,
      }),
    async close() {
      await client.close().catch(() => {});
      await workspace.close().catch(() => {});
    },
  };
}

/**
 * `serve --http`: the same backend behind Streamable HTTP sessions. No early stdio path here (stdin
 * is not the protocol channel); stdout stays silent all the same.
 */
async function runHttpServe(config: Config, listen: { host: string; port: number }): Promise<void> {
  const [{ createLogger }, { startHttpServer }, { LogFanout }] = await Promise.all([import('./log.js'), import('./http.js'), import('./log-fanout.js')]);
  const log = createLogger(config.logLevel);
  const logger = log.logger;
  const taps = new LogFanout(log.setTap);
  // Sign-in by URL elicitation needs a client to ask: the session that initialized last.
  let lastServer: Server | undefined;
  const backend = await openBackend(config, logger, () => lastServer);
  let http: Awaited<ReturnType<typeof startHttpServer>>;
  try {
    http = await startHttpServer({
      ...listen,
      logger,
      createSession: (session) => (lastServer = backend.createServer({ setLogTap: taps.forSession(session) })),
      onSessionClosed: (session) => taps.drop(session),
    });
  } catch (err) {
    await backend.close();
    const why = err instanceof Error ? err.message : String(err);
    process.stderr.write(`${SERVER_NAME}: cannot listen on ${listen.host}:${listen.port} (${why}); choose another port with --port or WORKSPACE_HTTP_PORT.\n`);
    process.exit(2);
  }
  let closing = false;
  const shutdown = async (why: string) => {
    if (closing) return;
    closing = true;
    logger.info({ why }, 'shutting down');
    await http.close(SHUTDOWN_GRACE_MS);
    await backend.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  // Always said, whatever LOG_LEVEL: with --port 0 it is the only way to learn the address.
  process.stderr.write(`${SERVER_NAME}: serving MCP over Streamable HTTP at ${http.url}\n`);
  logger.info({ url: http.url, workspace: backend.workspace.url, toolsets: config.toolsets, readOnly: config.readOnly }, 'serving MCP over Streamable HTTP');
}
