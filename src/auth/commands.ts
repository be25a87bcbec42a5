// The `login`, `logout` and `status` commands. Everything goes to stderr: stdout belongs to the MCP
// protocol when the same binary serves. No line ever holds a token.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RateLimiter } from '../api/limiter.js';
import type { LogLevel } from '../config.js';
import { detectLocale, type Locale, t } from '../i18n.js';
import { createLogger } from '../log.js';
import { openBrowser } from './browser.js';
import { discover } from './discovery.js';
import { describeMember } from './member.js';
import { configDir } from './paths.js';
import { requireSecureUrl } from './secure.js';
import { signIn } from './sign-in.js';
import { loginCommand, NotSignedInError, SignInError } from './sign-in-errors.js';
import { revokeToken } from './token-requests.js';
import { type GrantedScope, type StoredSignIn, TokenStore } from './token-store.js';

const NAME = 'workspace-consulting-mcp';

const AUTH_USAGE = `  ${NAME} login --workspace URL [--scope read|write] [--no-browser]
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
  const lc = detectLocale(env);
  const out: AuthArgs = { scope: 'write', browser: true, timeoutMs: 5 * 60_000 };
  const raw = env.WORKSPACE_URL?.trim();
  if (raw) out.workspace = raw;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [name, inline] = arg.split(/=(.*)/s, 2) as [string, string | undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new UsageError(t(lc, 'login.needs_value', { name }));
      return v;
    };
    if (name === '--workspace' || name === '--workspace-url') out.workspace = value();
    else if (name === '--scope' && command === 'login') {
      const s = value();
      if (s !== 'read' && s !== 'write') throw new UsageError(t(lc, 'login.bad_scope'));
      out.scope = s;
    } else if (name === '--no-browser' && command === 'login') out.browser = false;
    else if (name === '--timeout' && command === 'login') {
      const s = Number(value());
      if (!(s > 0)) throw new UsageError(t(lc, 'login.bad_timeout'));
      out.timeoutMs = s * 1000;
    } else throw new UsageError(t(lc, 'login.unknown_option', { name, command, usage: AUTH_USAGE }));
  }
  return out;
}

/** The workspace origin from --workspace / WORKSPACE_URL: https, or http on loopback only. */
function workspaceOrigin(raw: string | undefined, command: string, lc: Locale): string {
  if (!raw) throw new UsageError(t(lc, 'auth.name_workspace', { command }));
  const u = requireSecureUrl(raw, 'workspace URL');
  const path = u.pathname.replace(/\/+$/, '');
  if (path !== '' && path !== '/api/v1') throw new UsageError(t(lc, 'login.origin_only', { origin: u.origin }));
  return u.origin;
}

const scopeWords = (lc: Locale, s: GrantedScope) => t(lc, s === 'write' ? 'login.scope.write' : 'login.scope.read');
const iso = (ms: number) => new Date(ms).toISOString();

async function run(command: string, env: NodeJS.ProcessEnv, body: (say: (line: string) => void, lc: Locale) => Promise<number>): Promise<number> {
  const say = (line: string) => void process.stderr.write(`${line}\n`);
  const lc = detectLocale(env);
  try {
    return await body(say, lc);
  } catch (err) {
    if (err instanceof UsageError || err instanceof SignInError || err instanceof NotSignedInError) {
      say(t(lc, 'auth.failed', { command, message: err.message }));
      return err instanceof UsageError ? 2 : 1;
    }
    throw err;
  }
}

export function runLogin(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return run('login', env, async (say, lc) => {
    const args = parseArgs('login', argv, env);
    const workspace = workspaceOrigin(args.workspace, 'login', lc);
    const { logger } = createLogger((env.LOG_LEVEL?.toLowerCase() as LogLevel | undefined) ?? 'warn');
    const store = new TokenStore(workspace, configDir(env));
    const result = await signIn({
      workspaceUrl: workspace,
      scope: args.scope,
      store,
      timeoutMs: args.timeoutMs,
      // Its one request (GET /me) counted on its own: a command that shares no window with the member's servers.
      limiter: new RateLimiter(),
      logger,
      async present(url) {
        if (args.browser && (await openBrowser(url))) {
          say(t(lc, 'login.opened_browser', { workspace, url }));
        } else {
          say(t(lc, 'login.open_url', { url }));
        }
        say(t(lc, 'login.waiting', { minutes: Math.round(args.timeoutMs / 60_000) }));
      },
    });
    say(
      t(lc, 'login.signed_in', {
        workspace,
        member: describeMember(result.member),
        access: scopeWords(lc, result.scope),
        until: iso(result.expiresAt),
        file: store.file,
      }),
    );
    if (args.scope === 'write' && result.scope === 'read') say(t(lc, 'login.read_only_note'));
    return 0;
  });
}

export function runLogout(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return run('logout', env, async (say, lc) => {
    const workspace = workspaceOrigin(parseArgs('logout', argv, env).workspace, 'logout', lc);
    const store = new TokenStore(workspace, configDir(env));
    const rec = await store.read();
    if (!rec?.tokens) {
      say(t(lc, 'logout.not_signed_in', { workspace }));
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
    say(t(lc, revoked ? 'logout.revoked' : 'logout.not_revoked', { workspace }));
    return 0;
  });
}

function statusLine(lc: Locale, rec: StoredSignIn, now = Date.now()): string {
  const tok = rec.tokens;
  if (!tok) return t(lc, 'status.not_signed_in', { workspace: rec.workspace, command: loginCommand(rec.workspace) });
  const at = iso(tok.expires_at);
  return t(lc, 'status.signed_in', {
    workspace: rec.workspace,
    member: describeMember(rec.member),
    access: scopeWords(lc, tok.scope),
    token: tok.expires_at > now ? t(lc, 'status.valid_until', { at }) : t(lc, 'status.expired_at', { at }),
    refresh: t(lc, tok.refresh_token ? 'status.refreshed' : 'status.no_refresh'),
  });
}

export function runStatus(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return run('status', env, async (say, lc) => {
    const args = parseArgs('status', argv, env);
    const dir = configDir(env);
    if (args.workspace) {
      const workspace = workspaceOrigin(args.workspace, 'status', lc);
      const rec = await new TokenStore(workspace, dir).read();
      say(statusLine(lc, rec ?? { version: 1, workspace }));
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
      say(t(lc, 'status.none', { dir, command: `${NAME} login --workspace URL` }));
      return 1;
    }
    for (const rec of recs) say(statusLine(lc, rec));
    return recs.some((r) => r.tokens) ? 0 : 1;
  });
}
