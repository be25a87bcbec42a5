// The `login`, `logout` and `status` commands. Everything goes to stderr: stdout belongs to the MCP
// protocol when the same binary serves. No line ever holds a token.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LogLevel } from '../config.js';
import { createLogger } from '../log.js';
import { openBrowser } from './browser.js';
import { discover } from './discovery.js';
import { loginCommand, NotSignedInError, SignInError } from './errors.js';
import { describeMember } from './member.js';
import { configDir } from './paths.js';
import { requireSecureUrl } from './secure.js';
import { signIn } from './signin.js';
import { TokenStore, type GrantedScope, type StoredSignIn } from './store.js';
import { revokeToken } from './tokens.js';

const NAME = 'workspace-consulting-mcp';

export const AUTH_USAGE = `  ${NAME} login --workspace URL [--scope read|write] [--no-browser]
                                               sign in with the workspace's OAuth (browser, two-step verification, consent)
  ${NAME} logout --workspace URL               revoke and delete the stored sign-in
  ${NAME} status [--workspace URL]             show who is signed in, with which scope, until when`;

class UsageError extends Error {}

interface AuthArgs {
  workspace?: string;
  scope: GrantedScope;
  browser: boolean;
  timeoutMs: number;
}

function parseArgs(command: string, argv: string[], env: NodeJS.ProcessEnv): AuthArgs {
  const out: AuthArgs = { scope: 'write', browser: true, timeoutMs: 5 * 60_000 };
  const raw = env.WORKSPACE_URL?.trim();
  if (raw) out.workspace = raw;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [name, inline] = arg.split(/=(.*)/s, 2) as [string, string | undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new UsageError(`${name} needs a value.`);
      return v;
    };
    if (name === '--workspace' || name === '--workspace-url') out.workspace = value();
    else if (name === '--scope' && command === 'login') {
      const s = value();
      if (s !== 'read' && s !== 'write') throw new UsageError(`--scope is read or write, not ${JSON.stringify(s)}.`);
      out.scope = s;
    } else if (name === '--no-browser' && command === 'login') out.browser = false;
    else if (name === '--timeout' && command === 'login') {
      const s = Number(value());
      if (!(s > 0)) throw new UsageError('--timeout is a number of seconds.');
      out.timeoutMs = s * 1000;
    } else throw new UsageError(`Unknown option ${name} for ${command}.\nUsage:\n${AUTH_USAGE}`);
  }
  return out;
}

/** The workspace origin from --workspace / WORKSPACE_URL: https, or http on loopback only. */
function workspaceOrigin(raw: string | undefined, command: string): string {
  if (!raw) throw new UsageError(`Name the workspace: ${NAME} ${command} --workspace https://<your-workspace-host>`);
  const u = requireSecureUrl(raw, 'workspace URL');
  const path = u.pathname.replace(/\/+$/, '');
  if (path !== '' && path !== '/api/v1') throw new UsageError(`Give the workspace origin only (${u.origin}), without a path.`);
  return u.origin;
}

const scopeWords = (s: GrantedScope) => (s === 'write' ? 'read and write' : 'read-only');
const iso = (ms: number) => new Date(ms).toISOString();

async function run(command: string, body: (say: (line: string) => void) => Promise<number>): Promise<number> {
  const say = (line: string) => void process.stderr.write(`${line}\n`);
  try {
    return await body(say);
  } catch (err) {
    if (err instanceof UsageError || err instanceof SignInError || err instanceof NotSignedInError) {
      say(`${NAME} ${command}: ${err.message}`);
      return err instanceof UsageError ? 2 : 1;
    }
    throw err;
  }
}

export function runLogin(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return run('login', async (say) => {
    const args = parseArgs('login', argv, env);
    const workspace = workspaceOrigin(args.workspace, 'login');
    const { logger } = createLogger((env.LOG_LEVEL?.toLowerCase() as LogLevel | undefined) ?? 'warn');
    const store = new TokenStore(workspace, configDir(env));
    const result = await signIn({
      workspaceUrl: workspace,
      scope: args.scope,
      store,
      timeoutMs: args.timeoutMs,
      logger,
      async present(url) {
        if (args.browser && (await openBrowser(url))) {
          say(`Opened your browser to sign in to ${workspace}. If it did not open, open this URL: ${url}`);
        } else {
          say(`Open this URL to sign in: ${url}`);
        }
        say(`Waiting up to ${Math.round(args.timeoutMs / 60_000)} min for the sign-in to complete...`);
      },
    });
    say(
      `Signed in to ${workspace} as ${describeMember(result.member)} with ${scopeWords(result.scope)} access. ` +
        `The access token is valid until ${iso(result.expiresAt)} and is refreshed automatically. Sign-in stored in ${store.file}.`,
    );
    if (args.scope === 'write' && result.scope === 'read') say('Note: you granted read-only access; write tools will not be offered.');
    return 0;
  });
}

export function runLogout(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return run('logout', async (say) => {
    const workspace = workspaceOrigin(parseArgs('logout', argv, env).workspace, 'logout');
    const store = new TokenStore(workspace, configDir(env));
    const rec = await store.read();
    if (!rec?.tokens) {
      say(`Not signed in to ${workspace}; nothing to do.`);
      return 0;
    }
    const tokens = rec.tokens;
    let revoked = false;
    if (rec.client) {
      try {
        const as = await discover(workspace);
        const client = { client_id: rec.client.client_id, token_endpoint_auth_method: 'none' as const };
        // The refresh token first: revoking it ends the whole authorization on the server.
        const r = tokens.refresh_token ? await revokeToken(as, client, tokens.refresh_token, 'refresh_token') : false;
        const a = await revokeToken(as, client, tokens.access_token, 'access_token');
        revoked = r || a;
      } catch {
        revoked = false;
      }
    }
    await store.update((cur) => {
      if (!cur) return undefined;
      const { tokens: _t, member: _m, ...rest } = cur;
      return rest;
    });
    say(
      revoked
        ? `Signed out of ${workspace}: the authorization was revoked at the workspace and the stored tokens deleted.`
        : `Signed out of ${workspace}: the stored tokens were deleted, but the workspace could not be reached to revoke them; revoke the application under API and integrations > Connected apps.`,
    );
    return 0;
  });
}

function statusLine(rec: StoredSignIn, now = Date.now()): string {
  const t = rec.tokens;
  if (!t) return `${rec.workspace}: not signed in (run ${loginCommand(rec.workspace)}).`;
  const access = t.expires_at > now ? `access token valid until ${iso(t.expires_at)}` : `access token expired at ${iso(t.expires_at)}`;
  const refresh = t.refresh_token ? 'refreshed automatically' : 'no refresh token: sign in again when it expires';
  return `${rec.workspace}: signed in as ${describeMember(rec.member)}, ${scopeWords(t.scope)} access, ${access} (${refresh}).`;
}

export function runStatus(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return run('status', async (say) => {
    const args = parseArgs('status', argv, env);
    const dir = configDir(env);
    if (args.workspace) {
      const workspace = workspaceOrigin(args.workspace, 'status');
      const rec = await new TokenStore(workspace, dir).read();
      say(statusLine(rec ?? { version: 1, workspace }));
      return rec?.tokens ? 0 : 1;
    }
    const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.json') && !f.startsWith('.'));
    const recs: StoredSignIn[] = [];
    for (const f of files) {
      // The file name encodes the origin loosely; the record names it exactly.
      try {
        const rec = JSON.parse(await readFile(join(dir, f), 'utf8')) as StoredSignIn;
        if (rec?.version === 1 && typeof rec.workspace === 'string') recs.push(rec);
      } catch {
        // not ours
      }
    }
    if (recs.length === 0) {
      say(`Not signed in to any workspace (sign-ins are kept in ${dir}). Run: ${NAME} login --workspace URL`);
      return 1;
    }
    for (const rec of recs) say(statusLine(rec));
    return recs.some((r) => r.tokens) ? 0 : 1;
  });
}
