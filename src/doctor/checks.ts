// The doctor's checks, in the order a newcomer's set-up fails: configuration, Node, the host, OAuth
// metadata, the token and its scope, the live description, the rate budget, the clock, the download
// folder. Each check reads what the ones before it learned (the workspace, the token, the answers)
// and is skipped, naming the failed one, when it cannot run. Only GET requests are sent: the doctor
// never changes anything in a workspace, not even to learn a token's scope.
import { lookup } from 'node:dns/promises';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isLocalhostName } from '../api/lookup.js';
import { loginCommand } from '../auth/sign-in-errors.js';
import type { Config } from '../config.js';
import { makeDirectory } from '../fs/directories.js';
import { type Locale, type MessageKey, t } from '../i18n.js';
import { commandLine, launchCommand } from '../launcher.js';
import { meetsNodeFloor, NODE_FLOOR, NODE_INSTALL_LINE } from '../node-floor.js';
import { type Answer, type DoctorHttp, isHtml, isJson, parseJson, Unreachable } from './probe.js';

export type CheckStatus = 'pass' | 'fail' | 'warn' | 'skip';
type CheckId = 'config' | 'node' | 'host' | 'oauth' | 'token' | 'scope' | 'openapi' | 'rate' | 'clock' | 'downloads';

export interface CheckResult {
  id: CheckId;
  title: string;
  status: CheckStatus;
  detail: string;
  fix?: string;
}

/** The token the doctor tests: a personal token, or the stored OAuth sign-in's access token. */
export interface TokenSource {
  kind: 'pat' | 'oauth';
  /** Undefined when there is none (not configured, not signed in). */
  value?: string;
  /** Why there is none, when the stored sign-in said so (e.g. a refused refresh). */
  why?: string;
  /** OAuth only: the scope granted at consent and the access token's expiry (epoch ms). */
  grantedScope?: 'read' | 'write';
  expiresAt?: number;
}

interface DoctorInput {
  locale: Locale;
  /** The configuration, or the message of the error that refused it. */
  config: Config | { error: string };
  /** The workspace origin checked: WORKSPACE_URL, or the embedded sandbox started for the check. */
  origin?: string;
  embedded: boolean;
  /** Resolved lazily: opening a stored sign-in may refresh it. */
  token: () => Promise<TokenSource>;
  want: 'read' | 'write';
  http: DoctorHttp;
  /** How many operations of the live description the built-in catalog does not have. */
  countAdded: (doc: Record<string, unknown>) => Promise<number>;
  nodeVersion?: string;
}

/** Largest clock difference tolerated: the sign-in refreshes a minute before expiry. */
const MAX_SKEW_S = 60;

type Msg = (key: MessageKey, params?: Record<string, string | number>) => string;

export async function runChecks(input: DoctorInput): Promise<CheckResult[]> {
  const L = input.locale;
  const m: Msg = (key, params) => (t as (l: Locale, k: MessageKey, p?: Record<string, string | number>) => string)(L, key, params);
  const results: CheckResult[] = [];
  const add = (id: CheckId, status: CheckStatus, detail: string, fix?: string) => {
    const r: CheckResult = { id, title: m(`doctor.title.${id}` as MessageKey), status, detail, ...(fix ? { fix } : {}) };
    results.push(r);
    return r;
  };
  const failed = (id: CheckId) => results.find((r) => r.id === id && (r.status === 'fail' || r.status === 'skip'));
  /** Skip `id` when any of `needs` did not pass; true when skipped. */
  const skipUnless = (id: CheckId, ...needs: CheckId[]) => {
    const blocker = needs.map(failed).find(Boolean);
    if (!blocker) return false;
    // A chain of skips names the check that actually failed.
    add(id, 'skip', blocker.status === 'skip' ? blocker.detail : m('doctor.skipped', { what: blocker.title }));
    return true;
  };

  // 1. Configuration.
  const config = 'error' in input.config ? undefined : input.config;
  if (!config) add('config', 'fail', (input.config as { error: string }).error, m('doctor.config.fix'));
  else
    add('config', 'pass', m('doctor.config.ok', { target: input.embedded ? m('doctor.config.embedded', { url: input.origin ?? '' }) : (input.origin ?? '') }));

  // 2. Node.js.
  // The CLI refuses an older Node before doctor loads (src/node-floor.ts); this line reports the one
  // in use, and still judges it when runChecks is called on its own.
  const version = input.nodeVersion ?? process.versions.node;
  const floor = NODE_FLOOR.replace(/\.0$/, '');
  if (meetsNodeFloor(version)) add('node', 'pass', m('doctor.node.ok', { version: `v${version}`, floor }));
  else add('node', 'fail', m('doctor.node.old', { version: `v${version}`, floor }), m('doctor.node.fix', { floor, line: NODE_INSTALL_LINE }));

  // 3. The host resolves and answers as the API: an unauthenticated GET /me must come back as an
  // API answer (JSON), not a web page, a redirect to one, or silence.
  const origin = input.origin;
  let hostAnswer: Answer | undefined;
  if (!skipUnless('host', 'config') && origin) {
    const url = new URL(origin);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    let ip = host;
    let resolved = true;
    if (!isLocalhostName(host) && !/^[\d.]+$|:/.test(host)) {
      try {
        ip = (await lookup(host)).address;
      } catch (err) {
        resolved = false;
        add('host', 'fail', m('doctor.host.unresolved', { host, why: (err as NodeJS.ErrnoException).code ?? String(err) }), m('doctor.host.unresolved.fix'));
      }
    } else if (isLocalhostName(host)) ip = '127.0.0.1';
    if (resolved) {
      const probe = `${origin}/api/v1/me`;
      try {
        const a = await input.http.get(probe);
        if (isHtml(a)) add('host', 'fail', m('doctor.host.html', { url: origin, type: a.contentType }), m('doctor.host.html.fix'));
        else if (!isJson(a) || (a.status >= 300 && a.status < 400))
          add('host', 'fail', m('doctor.host.not_api', { url: probe, status: a.status, type: a.contentType }), m('doctor.host.html.fix'));
        else {
          hostAnswer = a;
          add('host', 'pass', m('doctor.host.ok', { host, ip, status: a.status }));
        }
      } catch (err) {
        const why = err instanceof Unreachable ? err.message : String(err);
        add('host', 'fail', m('doctor.host.unreachable', { origin, why }), m('doctor.host.unreachable.fix'));
      }
    }
  }

  // 4. OAuth authorization server metadata (RFC 8414) on the workspace host.
  if (!skipUnless('oauth', 'host') && origin) {
    const url = `${origin}/.well-known/oauth-authorization-server`;
    try {
      const a = await input.http.get(url);
      const doc = isJson(a) ? parseJson(a) : undefined;
      if (a.status === 200 && typeof doc?.issuer === 'string' && typeof doc.token_endpoint === 'string')
        add('oauth', 'pass', m('doctor.oauth.ok', { issuer: doc.issuer }));
      else add('oauth', 'fail', m('doctor.oauth.missing', { url, why: `HTTP ${a.status}, ${a.contentType}` }), m('doctor.oauth.fix'));
    } catch (err) {
      add('oauth', 'fail', m('doctor.oauth.missing', { url, why: String((err as Error).message) }), m('doctor.oauth.fix'));
    }
  }

  // 5. The token: GET /me says whose it is. 6. Its scope against the one wanted.
  const login = origin ? loginCommand(origin, input.want) : `${commandLine(launchCommand(), 'login', '--workspace')} URL`;
  let source: TokenSource | undefined;
  let me: Answer | undefined;
  if (!skipUnless('token', 'host')) {
    source = await input.token();
    if (!source.value) {
      add(
        'token',
        'fail',
        source.why ? m('doctor.token.not_signed_in', { message: source.why }) : m('doctor.token.none'),
        m('doctor.token.none.fix', { login }),
      );
    } else {
      try {
        const a = await input.http.get(`${origin}/api/v1/me`, source.value);
        const body = parseJson(a);
        if (a.status === 200) {
          me = a;
          add('token', 'pass', describeToken(m, source, body?.data));
        } else if (a.status === 401) {
          const reason = String((body?.details as Record<string, unknown> | undefined)?.reason ?? body?.code ?? 'unauthenticated');
          const fix = source.kind === 'pat' ? m('doctor.token.refused.pat.fix') : m('doctor.token.refused.oauth.fix', { login });
          add('token', 'fail', m('doctor.token.refused', { reason, message: String(body?.message ?? '') }), fix);
        } else {
          add('token', 'fail', m('doctor.token.failed', { status: a.status, message: String(body?.message ?? a.contentType) }), m('doctor.token.failed.fix'));
        }
      } catch (err) {
        add('token', 'fail', m('doctor.token.failed', { status: 0, message: String((err as Error).message) }), m('doctor.token.failed.fix'));
      }
    }
  }

  if (!skipUnless('scope', 'token') && source) {
    const data = (parseJson(me as Answer)?.data ?? {}) as Record<string, unknown>;
    const shown = scopeShownByApi(data);
    const scope = source.grantedScope ?? shown;
    const from = source.grantedScope ? m('doctor.scope.source.oauth') : m('doctor.scope.source.api');
    const word = (s: 'read' | 'write') => m(`doctor.scope.word.${s}`);
    if (!scope) add('scope', 'warn', m('doctor.scope.unknown', { wanted: word(input.want) }));
    else if (scope === 'read' && input.want === 'write') {
      add(
        'scope',
        'fail',
        m('doctor.scope.read_not_write', { source: from }),
        source.kind === 'oauth' ? m('doctor.scope.read_not_write.oauth.fix', { login }) : m('doctor.scope.read_not_write.pat.fix'),
      );
    } else add('scope', 'pass', m('doctor.scope.ok', { scope: word(scope), source: from, wanted: word(input.want) }));
  }

  // 7. The live description and what it adds to the catalog.
  let last: Answer | undefined = me ?? hostAnswer;
  if (!skipUnless('openapi', 'token') && source?.value) {
    try {
      const a = await input.http.get(`${origin}/api/v1/openapi.json`, source.value);
      last = a;
      const doc = a.status === 200 && isJson(a) ? parseJson(a) : undefined;
      if (!doc || typeof doc.paths !== 'object' || doc.paths === null) {
        add('openapi', 'fail', m('doctor.openapi.failed', { why: `HTTP ${a.status}, ${a.contentType}` }), m('doctor.openapi.fix'));
      } else {
        const operations = Object.values(doc.paths as Record<string, Record<string, unknown>>).reduce(
          (n, item) => n + Object.keys(item ?? {}).filter((k) => ['get', 'post', 'put', 'patch', 'delete'].includes(k)).length,
          0,
        );
        const version = String((doc.info as Record<string, unknown> | undefined)?.version ?? '?');
        add('openapi', 'pass', m('doctor.openapi.ok', { operations, version, added: await input.countAdded(doc) }));
      }
    } catch (err) {
      add('openapi', 'fail', m('doctor.openapi.failed', { why: String((err as Error).message) }), m('doctor.openapi.fix'));
    }
  }

  // 8. Rate budget: the last authenticated answer's X-RateLimit-Remaining.
  if (!skipUnless('rate', 'token') && last) {
    const remaining = last.headers['x-ratelimit-remaining'];
    const limit = last.headers['x-ratelimit-limit'] ?? '120';
    if (remaining === undefined) add('rate', 'warn', m('doctor.rate.unannounced'));
    else if (Number(remaining) <= 0 || last.status === 429) add('rate', 'fail', m('doctor.rate.exhausted', { limit }), m('doctor.rate.fix'));
    else add('rate', 'pass', m('doctor.rate.ok', { remaining, limit }));
  }

  // 9. Clock skew against the server's Date header (1 s resolution: compared with the request's midpoint).
  if (!skipUnless('clock', 'host') && (last ?? hostAnswer)) {
    const a = (last ?? hostAnswer) as Answer;
    const date = Date.parse(a.headers.date ?? '');
    if (Number.isNaN(date)) add('clock', 'warn', m('doctor.clock.unknown'));
    else {
      const skew = Math.round((a.sentAt + a.receivedAt) / 2 - date) / 1000;
      const shown = (Math.round(Math.abs(skew) * 10) / 10).toFixed(1);
      if (Math.abs(skew) > MAX_SKEW_S) add('clock', 'fail', m('doctor.clock.skewed', { skew: shown }), m('doctor.clock.fix'));
      // Within the header's one-second resolution, the clocks agree as far as can be measured.
      else add('clock', 'pass', m('doctor.clock.ok', { skew: Math.max(1, Math.ceil(Math.abs(skew))) }));
    }
  }

  // 10. The download folder is writable: created if missing, a file written and removed.
  if (!skipUnless('downloads', 'config') && config) {
    const dir = config.downloadDir;
    try {
      await makeDirectory(dir);
      const probe = join(dir, `.doctor-${process.pid}-${Date.now()}`);
      await writeFile(probe, 'ok');
      await rm(probe, { force: true });
      add('downloads', 'pass', m('doctor.downloads.ok', { dir }));
    } catch (err) {
      add('downloads', 'fail', m('doctor.downloads.failed', { dir, why: (err as NodeJS.ErrnoException).code ?? String(err) }), m('doctor.downloads.fix'));
    }
  }
  return results;
}

/** A scope the API states in GET /me (token information), when it does. */
function scopeShownByApi(data: Record<string, unknown>): 'read' | 'write' | undefined {
  const token = (typeof data.token === 'object' && data.token !== null ? data.token : {}) as Record<string, unknown>;
  const s = token.scope ?? data.token_scope ?? data.scope;
  return s === 'read' || s === 'write' ? s : undefined;
}

function describeToken(m: Msg, source: TokenSource, data: unknown): string {
  const d = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
  const ws = (typeof d.workspace === 'object' && d.workspace !== null ? d.workspace : {}) as Record<string, unknown>;
  const who =
    [d.name, d.email ? `<${String(d.email)}>` : undefined, d.role ? `(${String(d.role)})` : undefined].filter(Boolean).join(' ') || String(d.id ?? '?');
  const member = ws.name ? `${who}, ${String(ws.name)}` : who;
  const token = (typeof d.token === 'object' && d.token !== null ? d.token : {}) as Record<string, unknown>;
  let expiry: string;
  if (source.kind === 'oauth' && source.expiresAt) expiry = m('doctor.token.expires.oauth', { at: new Date(source.expiresAt).toISOString() });
  else if (typeof token.expires_at === 'string') expiry = m('doctor.token.expires', { at: token.expires_at });
  else expiry = m('doctor.token.expires.unknown');
  return m('doctor.token.ok', { kind: m(`doctor.token.kind.${source.kind}`), member, expiry });
}
