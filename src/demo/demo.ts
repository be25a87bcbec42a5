// `demo`: a guided tour. Starts the embedded sandbox (unless --against URL), builds the MCP server in
// this process exactly as serve does (createMcpServer over an ApiClient on real HTTP), connects the
// SDK's own Client to it through the SDK's in-memory transport pair, and walks the three jobs
// (src/demo/walk.ts) as a readable transcript on stdout (a demo is not an MCP stdio session).
//
// In process rather than spawning `serve` over stdio: one process to start and stop, progress
// notifications arrive as they would over stdio, and a failure shows one stack instead of two
// processes' logs; the stdio path has its own end-to-end tests.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../config.js';
import { commandLine, launchCommand, shellWord } from '../launcher.js';
import { SERVER_NAME, SERVER_VERSION } from '../version.js';
import { Transcript, wantsColor } from './transcript.js';
import { DemoStepError, walk } from './walk.js';

interface DemoArgs {
  against?: string;
  color?: boolean;
}

function parseArgs(argv: string[]): DemoArgs {
  const out: DemoArgs = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--no-color') out.color = false;
    else if (a === '--color') out.color = true;
    else if (a === '--against' || a.startsWith('--against=')) {
      const v = a.includes('=') ? a.slice('--against='.length) : argv[++i];
      if (!v) throw new ConfigError('--against needs the workspace URL, e.g. --against https://acme.workspace-consulting.com');
      out.against = v;
    } else throw new ConfigError(`Unknown option ${a} for demo: use --against URL or --no-color.`);
  }
  return out;
}

/** Runs the demo; resolves to the exit code (0 when every step went through). */
export async function runDemo(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let args: DemoArgs;
  try {
    args = parseArgs(argv);
  } catch (err) {
    process.stderr.write(`${SERVER_NAME} demo: ${(err as Error).message}\n`);
    return 2;
  }
  const out = new Transcript(process.stdout, wantsColor(process.stdout, env, args.color));
  const closers: Array<() => Promise<unknown>> = [];
  try {
    // The sandbox runs its jobs ten times faster than real time: a generation takes seconds, not
    // twenty of them. A real workspace is walked read-only: the demo must not change a client's data.
    let url: string;
    let token: string | undefined;
    if (args.against) {
      url = args.against;
      token = env.WORKSPACE_TOKEN?.trim() || undefined;
    } else {
      const { startSandbox } = await import('../sandbox/index.js');
      const sandbox = await startSandbox({ port: 0, timeScale: 0.1, logger: (line) => process.stderr.write(`${line}\n`) });
      closers.push(() => sandbox.close());
      url = sandbox.url;
      token = sandbox.tokens.write;
    }
    const downloads = args.against ? undefined : await mkdtemp(join(tmpdir(), 'wcm-demo-'));
    const config = loadConfig({
      ...env,
      WORKSPACE_URL: url,
      ...(token ? { WORKSPACE_TOKEN: token } : { WORKSPACE_TOKEN: '' }),
      WORKSPACE_TOOLSETS: 'default',
      WORKSPACE_READ_ONLY: args.against ? 'true' : 'false',
      LOG_LEVEL: 'silent',
      ...(downloads ? { WORKSPACE_DOWNLOAD_DIR: downloads } : {}),
    });

    const [
      { ApiClient },
      { RateLimiter },
      { createServerFactory },
      { OperationSet },
      { Session },
      { RequestLogRouter },
      { catalog },
      { createLogger },
      { Client, InMemoryTransport },
    ] = await Promise.all([
      import('../api/client.js'),
      import('../api/limiter.js'),
      import('../mcp/server/server.js'),
      import('../mcp/operations/operation-set.js'),
      import('../mcp/server/session.js'),
      import('../mcp/transport/request-log.js'),
      import('../../catalog/index.js'),
      import('../log.js'),
      import('@modelcontextprotocol/client'),
    ]);
    let tokenFor: () => Promise<string> | string;
    let who = 'the sandbox write token';
    if (config.token) {
      const value = config.token;
      tokenFor = () => value;
      if (args.against) who = 'WORKSPACE_TOKEN';
    } else {
      const { OAuthSession } = await import('../auth/oauth-session.js');
      const { TokenStore } = await import('../auth/token-store.js');
      const { configDir } = await import('../auth/paths.js');
      const session = await OAuthSession.open(config.workspaceUrl as string, { store: new TokenStore(config.workspaceUrl as string, configDir(env)) });
      tokenFor = () => session.accessToken();
      who = 'the stored sign-in';
    }
    const { logger, setTap } = createLogger('silent');
    const api = new ApiClient({
      baseUrl: `${config.workspaceUrl as string}/api/v1`,
      token: tokenFor,
      locale: config.locale,
      timeoutMs: config.timeoutMs,
      limiter: new RateLimiter(config.rateLimit),
      logger,
      userAgent: `${SERVER_NAME}/${SERVER_VERSION} demo (node ${process.version})`,
      retry: {
        maxRetryAfterSeconds: config.maxRetryAfterSeconds,
        maxBudgetWaitMs: config.maxBudgetWaitMs,
        maxBudgetWaitWithProgressMs: config.maxBudgetWaitWithProgressMs,
      },
    });
    closers.unshift(() => api.close());
    const operations = new OperationSet({ catalog, logger, client: api, origin: url });
    const session = new Session({ config, client: api, logger, operations });
    const factory = createServerFactory({ config, logger, logs: new RequestLogRouter(setTap), sessionFor: () => session });
    const server = await factory({ era: 'legacy' });
    const client = new Client({ name: `${SERVER_NAME}-demo`, version: SERVER_VERSION });
    // The demo's client and server share this process: an in-memory pair (both halves from one package).
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    closers.unshift(
      () => server.close(),
      () => client.close(),
    );

    const { tools } = await client.listTools();
    out.title(`${SERVER_NAME} ${SERVER_VERSION}: guided demo`);
    out.line(
      args.against
        ? `Workspace ${url}, as ${who}. READ-ONLY: every read is made; writes are skipped and said so.`
        : `Embedded sandbox workspace at ${url} (demo data in memory, jobs at 10x speed), as ${who}.`,
    );
    out.line(`An MCP client (the SDK's) is connected to the server in this process: ${tools.length} tools listed.`);
    await walk({ client, out, readOnly: Boolean(args.against) });
    out.line();
    out.line(out.s.green(args.against ? 'Done: the three jobs walked read-only.' : 'Done: the three jobs walked end to end.'));
    return 0;
  } catch (err) {
    if (err instanceof DemoStepError || err instanceof ConfigError) {
      out.line();
      out.line(out.s.red(`Demo stopped: ${err.message}`));
      // The doctor of this same install, on the same workspace (the token stays in the environment).
      if (args.against) out.line(`To see why, run: WORKSPACE_URL=${shellWord(args.against)} ${commandLine(launchCommand(), 'doctor')}`);
      return 1;
    }
    throw err;
  } finally {
    for (const close of closers) await close().catch(() => {});
  }
}
