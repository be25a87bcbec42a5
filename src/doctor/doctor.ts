// `doctor`: why this install does or does not work against a workspace, in one command. Runs the
// checks of src/doctor/checks.ts and prints one line per check with a fix for each failure, in the
// member's language; `--json` prints the same as one JSON document for machines. Exit code 0 only
// when nothing failed (a check that cannot be observed, such as a personal token's scope, warns).
import { type Config, ConfigError, loadConfig } from '../config.js';
import { detectLocale, t } from '../i18n.js';
import { type CheckResult, type CheckStatus, runChecks, type TokenSource } from './checks.js';
import { DoctorHttp } from './probe.js';

interface DoctorArgs {
  json: boolean;
  color: boolean | undefined;
  want: 'read' | 'write' | undefined;
  /** Everything else: the serve settings (--workspace-url, --token...), checked as configuration. */
  configArgs: string[];
}

function parseArgs(argv: string[]): DoctorArgs {
  const out: DoctorArgs = { json: false, color: undefined, want: undefined, configArgs: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--json') out.json = true;
    else if (a === '--no-color') out.color = false;
    else if (a === '--color') out.color = true;
    else if (a === '--want' || a.startsWith('--want=')) {
      const v = a.includes('=') ? a.slice('--want='.length) : argv[++i];
      // The value is not repeated: a misplaced argument may be a secret.
      if (v !== 'read' && v !== 'write') throw new ConfigError('--want is read or write.');
      out.want = v;
    } else out.configArgs.push(a);
  }
  return out;
}

const MARK: Record<CheckStatus, { plain: string; color: string }> = {
  pass: { plain: 'PASS', color: '\u001b[32mPASS\u001b[39m' },
  fail: { plain: 'FAIL', color: '\u001b[31mFAIL\u001b[39m' },
  warn: { plain: 'WARN', color: '\u001b[33mWARN\u001b[39m' },
  skip: { plain: 'SKIP', color: '\u001b[2mSKIP\u001b[22m' },
};

function renderReport(results: CheckResult[], locale: 'en' | 'fr', color: boolean): string {
  const width = Math.max(...results.map((r) => r.title.length));
  const lines = results.map((r) => {
    const head = `${color ? MARK[r.status].color : MARK[r.status].plain}  ${r.title.padEnd(width)}  ${r.detail}`;
    // The fix sits under the detail it answers.
    return r.fix ? `${head}\n${' '.repeat(6 + width + 2)}${t(locale, 'doctor.fix', { fix: r.fix })}` : head;
  });
  const failed = results.filter((r) => r.status === 'fail').length;
  lines.push(
    '',
    failed === 0 ? t(locale, 'doctor.summary.ok', { count: results.length }) : t(locale, 'doctor.summary.failed', { failed, count: results.length }),
  );
  return `${lines.join('\n')}\n`;
}

/** Runs the doctor; resolves to the exit code. Writes the report to stdout (doctor is not an MCP session). */
export async function runDoctor(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const locale = detectLocale(env);
  let args: DoctorArgs;
  try {
    args = parseArgs(argv);
  } catch (err) {
    process.stderr.write(`workspace-consulting-mcp doctor: ${(err as Error).message}\n`);
    return 2;
  }
  let config: Config | { error: string };
  try {
    config = loadConfig(env, args.configArgs);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    config = { error: err.message };
  }
  const loaded = 'error' in config ? undefined : config;
  const want = args.want ?? (loaded?.readOnly ? 'read' : 'write');

  // No WORKSPACE_URL: serve would start the embedded sandbox, so the doctor checks that one.
  let sandbox: { url: string; tokens: { write: string }; close(): Promise<void> } | undefined;
  if (loaded && !loaded.workspaceUrl) {
    const { startSandbox } = await import('../sandbox/index.js');
    sandbox = await startSandbox({ port: 0 });
  }
  const origin = loaded?.workspaceUrl ?? sandbox?.url;
  const http = new DoctorHttp(locale);
  try {
    const results = await runChecks({
      locale,
      config,
      ...(origin ? { origin } : {}),
      embedded: Boolean(sandbox),
      want,
      http,
      token: () => tokenSource(loaded, sandbox?.tokens.write, env),
      countAdded: async (doc) => {
        const [{ liveOperations }, { catalog }] = await Promise.all([import('../mcp/operations/live-openapi.js'), import('../../catalog/index.js')]);
        return liveOperations(doc, catalog).length;
      },
    });
    const failed = results.some((r) => r.status === 'fail');
    if (args.json) {
      process.stdout.write(`${JSON.stringify({ ok: !failed, locale, want, workspace: origin ?? null, checks: results }, null, 2)}\n`);
    } else {
      const color = args.color ?? (Boolean(process.stdout.isTTY) && !env.NO_COLOR);
      process.stdout.write(renderReport(results, locale, color));
    }
    return failed ? 1 : 0;
  } finally {
    await http.close();
    await sandbox?.close();
  }
}

/** The personal token, else the stored OAuth sign-in's access token (refreshed if due), else none. */
async function tokenSource(config: Config | undefined, sandboxToken: string | undefined, env: NodeJS.ProcessEnv): Promise<TokenSource> {
  if (sandboxToken) return { kind: 'pat', value: sandboxToken };
  if (config?.token) return { kind: 'pat', value: config.token };
  if (!config?.workspaceUrl) return { kind: 'pat' };
  const [{ OAuthSession }, { TokenStore }, { configDir }] = await Promise.all([
    import('../auth/oauth-session.js'),
    import('../auth/token-store.js'),
    import('../auth/paths.js'),
  ]);
  const session = await OAuthSession.open(config.workspaceUrl, { store: new TokenStore(config.workspaceUrl, configDir(env)) });
  if (!session.signedIn) return { kind: 'oauth' };
  try {
    const value = await session.accessToken();
    await session.reload();
    const rec = await session.store.read();
    return {
      kind: 'oauth',
      value,
      ...(session.scope ? { grantedScope: session.scope } : {}),
      ...(rec?.tokens ? { expiresAt: rec.tokens.expires_at } : {}),
    };
  } catch (err) {
    return { kind: 'oauth', why: (err as Error).message };
  }
}
