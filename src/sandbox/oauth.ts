// The sandbox as an OAuth 2.1 authorization server, on the workspace host like the real service:
// RFC 8414 and RFC 9728 metadata, RFC 7591 registration of public clients, an authorize page (sign-in,
// two-step verification, consent read / read and write), codes bound to PKCE S256, `iss` in the
// redirect (RFC 9207), authorization_code and refresh_token grants with rotation and reuse detection,
// and RFC 7009 revocation. State lives in the workspace's collections, so an admin reset forgets it.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from './auth.js';
import type { MemoryWorkspace } from './state.js';
import type { Rec } from './types.js';

export type OAuthScope = 'read' | 'write';

/** Access tokens are told apart from personal tokens (pat_) by their prefix. */
export const ACCESS_TOKEN_FORMAT = /^wco_at_[A-Za-z0-9_-]{43}$/;
const REFRESH_TOKEN_FORMAT = /^wco_rt_[A-Za-z0-9_-]{43}$/;

const ACCESS_TTL_MS = 60 * 60 * 1000;
const REFRESH_TTL_MS = 30 * 24 * 60 * 60 * 1000;
// Codes and the authorize page are not scaled: a test at timeScale 0.001 still needs time to follow them.
const CODE_TTL_MS = 10 * 60 * 1000;
const PENDING_TTL_MS = 30 * 60 * 1000;
/** The sandbox's sign-in: any active member's e-mail with this password, then this two-step code. */
export const SANDBOX_PASSWORD = 'sandbox';
export const SANDBOX_TWO_FACTOR_CODE = '123456';
/** Redirect schemes of known desktop applications, accepted besides https and loopback http. */
const DESKTOP_SCHEMES = ['claude:', 'cursor:', 'vscode:', 'vscode-insiders:', 'windsurf:'];

const C_CLIENTS = 'oauth_clients';
const C_PENDING = 'oauth_pending';
const C_CODES = 'oauth_codes';
const C_GRANTS = 'oauth_grants';
const C_TOKENS = 'oauth_tokens';

interface TokenRequestLogEntry {
  workspace: string;
  grant_type: string;
  ok: boolean;
  error?: string;
  at: string;
}

interface SandboxOAuthOptions {
  timeScale: number;
  /** Consent given automatically for every authorize request (tests): no page is shown. */
  autoConsent?: OAuthScope;
}

/** What tests and the admin surface can do with the authorization server. */
export interface SandboxOAuthControl {
  /** Consent automatically from now on (undefined: show the page again). */
  setAutoConsent(scope: OAuthScope | undefined): void;
  /** Every token endpoint request, in order: lets a test count refreshes. */
  tokenRequests(): TokenRequestLogEntry[];
  clearTokenRequests(): void;
  /** Make every OAuth access token of every workspace expired now (refresh tokens stay valid). */
  expireAccessTokens(): number;
  /**
   * What a member does under Connected apps: revoke every live authorization (of the client with this
   * client_id only, when given), its access and refresh tokens with it. Returns how many ended.
   */
  revokeAuthorizations(clientId?: string): number;
  /**
   * How the token endpoint answers refresh requests from now on: 'unavailable' (503 with an HTML
   * error page, as a proxy in front of a workspace answers), 'hang' (never answers), or undefined
   * (normally). Code exchanges are unaffected.
   */
  failRefreshes(how: 'unavailable' | 'hang' | undefined): void;
}

const token = (prefix: string) => prefix + randomBytes(32).toString('base64url');
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function isOAuthPath(path: string): boolean {
  return path.startsWith('/.well-known/') || path === '/oauth' || path.startsWith('/oauth/');
}

// The sandbox keeps its own copy of this (src/net/loopback.ts is the server's): it emulates the workspace and imports nothing of the server.
function isLoopbackRedirect(u: URL): boolean {
  const h = u.hostname.replace(/^\[|\]$/g, '');
  return u.protocol === 'http:' && (h === '127.0.0.1' || h === '::1' || h === 'localhost');
}

/** RFC 8252 7.3: a loopback redirect matches whatever port the client listens on at the time. */
function redirectMatches(registered: string, asked: string): boolean {
  if (registered === asked) return true;
  let r: URL;
  let a: URL;
  try {
    r = new URL(registered);
    a = new URL(asked);
  } catch {
    return false;
  }
  if (!isLoopbackRedirect(r) || !isLoopbackRedirect(a)) return false;
  return r.hostname === a.hostname && r.pathname === a.pathname && r.search === a.search;
}

function acceptableRedirect(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'each redirect URI must be a string';
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return `${value} is not an absolute URI`;
  }
  if (u.hash) return `${value} must not carry a fragment`;
  if (u.protocol === 'https:' || isLoopbackRedirect(u) || DESKTOP_SCHEMES.includes(u.protocol)) return undefined;
  return `${value} is refused: use https, a loopback http address (127.0.0.1, [::1], localhost), or a desktop application scheme`;
}

/** `read`, `write` or `read write` asked; write includes read. Undefined when the scope is unknown. */
function requestedScope(raw: string | null): OAuthScope | undefined {
  const parts = (raw ?? 'read').split(/\s+/).filter(Boolean);
  if (parts.length === 0) return 'read';
  if (parts.some((p) => p !== 'read' && p !== 'write')) return undefined;
  return parts.includes('write') ? 'write' : 'read';
}

/** The member may grant less than asked, never more. */
const narrower = (a: OAuthScope, b: OAuthScope): OAuthScope => (a === 'read' || b === 'read' ? 'read' : 'write');

/** The member the demo personal tokens belong to: the one auto consent signs in as. */
function demoMember(ws: MemoryWorkspace): Rec | undefined {
  const owner = ws.c('tokens').all()[0]?.member_id;
  const members = ws.c('members');
  return (typeof owner === 'string' ? members.get(owner) : undefined) ?? members.all((m) => m.status !== 'removed')[0];
}

// ---------------------------------------------------------------------------------------------------
// Bearer check (used by auth.ts for API requests)

/**
 * The principal of an OAuth access token, or the reason it is refused. Rate limits apply per
 * authorization (application and member), so the grant stands in for the token record.
 */
export function authenticateAccessToken(ws: MemoryWorkspace, value: string, now: number): Principal | 'unknown' | 'revoked' | 'expired' | 'member_removed' {
  const t = ws.c(C_TOKENS).find((r) => r.kind === 'access' && r.value === value);
  if (!t) return 'unknown';
  const grant = ws.c(C_GRANTS).get(String(t.grant_id));
  if (!grant || t.revoked_at || grant.revoked_at) return 'revoked';
  if (Number(t.expires_at_ms) <= now) return 'expired';
  const member = ws.c('members').get(String(grant.member_id));
  if (!member || member.status === 'removed') return 'member_removed';
  grant.last_used_at = new Date(now).toISOString();
  return { token: grant, member, scope: grant.scope === 'write' ? 'write' : 'read' };
}

// ---------------------------------------------------------------------------------------------------
// HTTP plumbing

class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string,
  ) {
    super(description);
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
    // Token answers must never be cached (RFC 6749 5.1); harmless on the others.
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
    ...extra,
  });
  res.end(text);
}

function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(html)),
    'Cache-Control': 'no-store',
    // The consent page must not be framed by another site (clickjacking).
    'X-Frame-Options': 'DENY',
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  });
  res.end(html);
}

function redirect(res: ServerResponse, status: 302 | 303, location: string): void {
  res.writeHead(status, { Location: location, 'Cache-Control': 'no-store', 'Content-Length': '0' });
  res.end();
}

// The sandbox keeps its own copy of this (src/net/http-io.ts is the server's): it emulates the workspace and imports nothing of the server.
async function readBody(req: IncomingMessage, limit = 64 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > limit) throw new OAuthError(413, 'invalid_request', 'The request body is too large.');
    chunks.push(c);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const type = String(req.headers['content-type'] ?? '')
    .split(';')[0]
    ?.trim()
    .toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw new OAuthError(400, 'invalid_request', 'Send the parameters as application/x-www-form-urlencoded.');
  }
  return new URLSearchParams(await readBody(req));
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}: Workspace Consulting sandbox</title>
<style>body{font-family:system-ui,sans-serif;max-width:30rem;margin:3rem auto;padding:0 1rem;color:#1F3A5F}
label{display:block;margin:.8rem 0 .2rem}input[type=text],input[type=email],input[type=password]{width:100%;padding:.4rem}
button{margin:.8rem .5rem 0 0;padding:.5rem 1rem}.hint{color:#666;font-size:.9rem}.step{color:#C8963E;font-size:.9rem}</style>
</head><body><h1>${esc(title)}</h1>${body}</body></html>`;
}

function hidden(fields: Record<string, string>): string {
  return Object.entries(fields)
    .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`)
    .join('');
}

// ---------------------------------------------------------------------------------------------------
// The authorization server

export class SandboxOAuth implements SandboxOAuthControl {
  #autoConsent: OAuthScope | undefined;
  #failRefreshes: 'unavailable' | 'hang' | undefined;
  #log: TokenRequestLogEntry[] = [];
  readonly #accessTtlS: number;
  readonly #refreshTtlMs: number;

  constructor(
    private readonly workspaces: () => readonly MemoryWorkspace[],
    opts: SandboxOAuthOptions,
  ) {
    this.#autoConsent = opts.autoConsent;
    // expires_in is whole seconds: the token lives exactly as long as announced.
    this.#accessTtlS = Math.max(1, Math.round((ACCESS_TTL_MS * opts.timeScale) / 1000));
    this.#refreshTtlMs = Math.max(2000, REFRESH_TTL_MS * opts.timeScale);
  }

  failRefreshes(how: 'unavailable' | 'hang' | undefined): void {
    this.#failRefreshes = how;
  }

  setAutoConsent(scope: OAuthScope | undefined): void {
    this.#autoConsent = scope;
  }

  tokenRequests(): TokenRequestLogEntry[] {
    return this.#log.map((e) => ({ ...e }));
  }

  clearTokenRequests(): void {
    this.#log = [];
  }

  expireAccessTokens(): number {
    let n = 0;
    const past = Date.now() - 1;
    for (const ws of this.workspaces()) {
      for (const t of ws.c(C_TOKENS).all((r) => r.kind === 'access' && Number(r.expires_at_ms) > past)) {
        t.expires_at_ms = past;
        n++;
      }
    }
    return n;
  }

  revokeAuthorizations(clientId?: string): number {
    let n = 0;
    for (const ws of this.workspaces()) {
      for (const g of ws.c(C_GRANTS).all((r) => !r.revoked_at && (clientId === undefined || r.client_id === clientId))) {
        this.revokeGrant(ws, String(g.id));
        n++;
      }
    }
    return n;
  }

  /** Answer a request under /.well-known/ or /oauth/ on `ws`'s host. */
  async handle(req: IncomingMessage, res: ServerResponse, ws: MemoryWorkspace, path: string, query: string): Promise<void> {
    // The issuer is the workspace host as the client reached it (the sandbox speaks plain http).
    const issuer = `http://${String(req.headers.host ?? '127.0.0.1').toLowerCase()}`;
    const method = req.method ?? 'GET';
    const route = `${method} ${path}`;
    try {
      switch (route) {
        case 'GET /.well-known/oauth-authorization-server':
          return sendJson(res, 200, this.metadata(issuer));
        case 'GET /.well-known/oauth-protected-resource':
        case 'GET /.well-known/oauth-protected-resource/api/v1':
          return sendJson(res, 200, {
            resource: `${issuer}/api/v1`,
            authorization_servers: [issuer],
            scopes_supported: ['read', 'write'],
            bearer_methods_supported: ['header'],
            resource_name: `Workspace Consulting (${ws.slug}, sandbox)`,
          });
        case 'POST /oauth/register':
          return await this.register(req, res, ws);
        case 'GET /oauth/authorize':
          return this.authorize(res, ws, issuer, new URLSearchParams(query));
        case 'POST /oauth/authorize':
          return await this.authorizeStep(req, res, ws, issuer);
        case 'POST /oauth/token':
          return await this.token(req, res, ws);
        case 'POST /oauth/revoke':
          return await this.revoke(req, res, ws);
        default:
          return sendJson(res, 404, { error: 'not_found', error_description: `Nothing at ${method} ${path} on this authorization server.` });
      }
    } catch (e) {
      if (e instanceof OAuthError) {
        return sendJson(res, e.status, { error: e.error, error_description: e.description });
      }
      throw e;
    }
  }

  private metadata(issuer: string): Record<string, unknown> {
    return {
      issuer,
      authorization_endpoint: `${issuer}/oauth/authorize`,
      token_endpoint: `${issuer}/oauth/token`,
      registration_endpoint: `${issuer}/oauth/register`,
      revocation_endpoint: `${issuer}/oauth/revoke`,
      scopes_supported: ['read', 'write'],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      revocation_endpoint_auth_methods_supported: ['none'],
      authorization_response_iss_parameter_supported: true,
    };
  }

  // RFC 7591 ---------------------------------------------------------------------------------------

  private async register(req: IncomingMessage, res: ServerResponse, ws: MemoryWorkspace): Promise<void> {
    let body: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse((await readBody(req)) || '{}');
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
      body = parsed as Record<string, unknown>;
    } catch {
      throw new OAuthError(400, 'invalid_client_metadata', 'Send the client metadata as a JSON object.');
    }
    const uris = body.redirect_uris;
    if (!Array.isArray(uris) || uris.length === 0) {
      throw new OAuthError(400, 'invalid_redirect_uri', 'redirect_uris must list at least one redirect URI.');
    }
    for (const u of uris) {
      const why = acceptableRedirect(u);
      if (why) throw new OAuthError(400, 'invalid_redirect_uri', why);
    }
    const method = body.token_endpoint_auth_method ?? 'none';
    if (method !== 'none') {
      throw new OAuthError(400, 'invalid_client_metadata', 'This workspace registers public clients only: token_endpoint_auth_method must be "none".');
    }
    const grants = body.grant_types ?? ['authorization_code', 'refresh_token'];
    if (!Array.isArray(grants) || grants.some((g) => g !== 'authorization_code' && g !== 'refresh_token')) {
      throw new OAuthError(400, 'invalid_client_metadata', 'grant_types may hold authorization_code and refresh_token only.');
    }
    const name = typeof body.client_name === 'string' ? body.client_name.slice(0, 200) : 'Unnamed application';
    const client = ws.c(C_CLIENTS).insert({
      client_id: `wcc_${randomBytes(16).toString('base64url')}`,
      client_name: name,
      redirect_uris: uris as string[],
      grant_types: grants,
    });
    sendJson(res, 201, {
      client_id: client.client_id,
      client_id_issued_at: Math.floor(Date.parse(String(client.created_at)) / 1000),
      client_name: name,
      redirect_uris: uris,
      grant_types: grants,
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: 'read write',
    });
  }

  private client(ws: MemoryWorkspace, clientId: string | null | undefined): Rec | undefined {
    return clientId ? ws.c(C_CLIENTS).find((c) => c.client_id === clientId) : undefined;
  }

  // Authorization endpoint -----------------------------------------------------------------------

  private authorize(res: ServerResponse, ws: MemoryWorkspace, issuer: string, q: URLSearchParams): void {
    const client = this.client(ws, q.get('client_id'));
    const redirectUri = q.get('redirect_uri') ?? '';
    // Until client and redirect are known good, errors are shown here: never redirect to an unknown URI.
    if (!client) {
      sendHtml(res, 400, page('Unknown application', '<p>The client_id is missing or not registered with this workspace.</p>'));
      return;
    }
    const registered = client.redirect_uris as string[];
    if (!registered.some((r) => redirectMatches(r, redirectUri))) {
      sendHtml(res, 400, page('Unknown redirect', '<p>The redirect_uri is missing or was not registered by this application.</p>'));
      return;
    }
    const state = q.get('state');
    const back = (params: Record<string, string>) => {
      const u = new URL(redirectUri);
      for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
      if (state !== null) u.searchParams.set('state', state);
      u.searchParams.set('iss', issuer);
      return redirect(res, 302, u.href);
    };
    if (q.get('response_type') !== 'code') {
      back({ error: 'unsupported_response_type', error_description: 'Only response_type=code is supported.' });
      return;
    }
    const challenge = q.get('code_challenge');
    if (!challenge || q.get('code_challenge_method') !== 'S256' || !/^[A-Za-z0-9_-]{43}$/.test(challenge)) {
      back({ error: 'invalid_request', error_description: 'PKCE is mandatory: send code_challenge with code_challenge_method=S256.' });
      return;
    }
    const scope = requestedScope(q.get('scope'));
    if (!scope) {
      back({ error: 'invalid_scope', error_description: 'The scope may be read, write, or "read write".' });
      return;
    }

    const pending = ws.c(C_PENDING).insert({
      txn: randomBytes(24).toString('base64url'),
      client_id: client.client_id,
      client_name: client.client_name,
      redirect_uri: redirectUri,
      state,
      code_challenge: challenge,
      scope,
      step: 'signin',
      member_id: null,
      expires_at_ms: Date.now() + PENDING_TTL_MS,
    });
    // The test switch: the query (sandbox_consent=read|write) or the server-wide setting.
    const auto = q.get('sandbox_consent') ?? this.#autoConsent;
    if (auto === 'read' || auto === 'write') {
      const member = demoMember(ws);
      if (member) {
        this.finish(res, ws, issuer, pending, member, narrower(scope, auto), 302);
        return;
      }
    }
    sendHtml(res, 200, this.stepPage(ws, pending));
  }

  private async authorizeStep(req: IncomingMessage, res: ServerResponse, ws: MemoryWorkspace, issuer: string): Promise<void> {
    const form = await readForm(req);
    const txn = form.get('txn') ?? '';
    const pending = ws.c(C_PENDING).find((p) => typeof p.txn === 'string' && sameText(p.txn, txn));
    if (!pending || Number(pending.expires_at_ms) <= Date.now()) {
      return sendHtml(res, 400, page('Sign-in expired', '<p>This sign-in is unknown or expired. Start again from the application.</p>'));
    }
    const step = form.get('step');
    if (step !== pending.step) return sendHtml(res, 409, this.stepPage(ws, pending, 'That step is already done; carry on here.'));

    if (step === 'signin') {
      const email = (form.get('email') ?? '').trim().toLowerCase();
      const member = ws.c('members').find((m) => String(m.email).toLowerCase() === email && m.status !== 'removed');
      if (!member || !sameText(form.get('password') ?? '', SANDBOX_PASSWORD)) {
        return sendHtml(res, 200, this.stepPage(ws, pending, 'E-mail or password not recognised.'));
      }
      pending.member_id = member.id;
      pending.step = 'two_factor';
      return sendHtml(res, 200, this.stepPage(ws, pending));
    }
    if (step === 'two_factor') {
      if (!sameText((form.get('code') ?? '').replace(/\s+/g, ''), SANDBOX_TWO_FACTOR_CODE)) {
        return sendHtml(res, 200, this.stepPage(ws, pending, 'That verification code is not valid.'));
      }
      pending.step = 'consent';
      return sendHtml(res, 200, this.stepPage(ws, pending));
    }
    // consent
    const decision = form.get('decision');
    const member = ws.c('members').get(String(pending.member_id));
    ws.c(C_PENDING).remove(pending.id);
    if (decision === 'deny' || !member) {
      const u = new URL(String(pending.redirect_uri));
      u.searchParams.set('error', 'access_denied');
      u.searchParams.set('error_description', 'The member refused access.');
      if (typeof pending.state === 'string') u.searchParams.set('state', pending.state);
      u.searchParams.set('iss', issuer);
      return redirect(res, 303, u.href);
    }
    const chosen: OAuthScope = decision === 'write' ? 'write' : 'read';
    return this.finish(res, ws, issuer, pending, member, narrower(pending.scope as OAuthScope, chosen), 303);
  }

  private stepPage(ws: MemoryWorkspace, p: Rec, problem?: string): string {
    const note = problem ? `<p role="alert"><strong>${esc(problem)}</strong></p>` : '';
    const app = esc(String(p.client_name));
    const base = { txn: String(p.txn) };
    const workspace = esc(String(ws.workspace.display_name ?? ws.slug));
    if (p.step === 'signin') {
      const email = String(demoMember(ws)?.email ?? '');
      return page(
        `Sign in to ${workspace}`,
        `<p class="step">Step 1 of 3: sign in</p><p><strong>${app}</strong> asks to use your workspace.</p>${note}
<form method="post" action="/oauth/authorize">${hidden({ ...base, step: 'signin' })}
<label for="email">E-mail</label><input id="email" type="email" name="email" value="${esc(email)}" required>
<label for="password">Password</label><input id="password" type="password" name="password" required>
<p class="hint">Sandbox: any member's e-mail, password <code>${SANDBOX_PASSWORD}</code>.</p>
<button type="submit">Sign in</button></form>`,
      );
    }
    if (p.step === 'two_factor') {
      return page(
        'Two-step verification',
        `<p class="step">Step 2 of 3: two-step verification</p>${note}
<form method="post" action="/oauth/authorize">${hidden({ ...base, step: 'two_factor' })}
<label for="code">Code from your authenticator app</label><input id="code" type="text" name="code" inputmode="numeric" autocomplete="one-time-code" required>
<p class="hint">Sandbox: the code is <code>${SANDBOX_TWO_FACTOR_CODE}</code>.</p>
<button type="submit">Verify</button></form>`,
      );
    }
    const writeOffered = p.scope === 'write';
    return page(
      `Allow ${app}?`,
      `<p class="step">Step 3 of 3: consent</p>${note}<p><strong>${app}</strong> will act in ${workspace} with your rights, never more.</p>
<form method="post" action="/oauth/authorize">${hidden({ ...base, step: 'consent' })}
<button type="submit" name="decision" value="read">Allow read only</button>
${writeOffered ? '<button type="submit" name="decision" value="write">Allow read and write</button>' : ''}
<button type="submit" name="decision" value="deny">Deny</button></form>`,
    );
  }

  private finish(res: ServerResponse, ws: MemoryWorkspace, issuer: string, pending: Rec, member: Rec, scope: OAuthScope, status: 302 | 303): void {
    ws.c(C_PENDING).remove(pending.id);
    const code = ws.c(C_CODES).insert({
      value: randomBytes(32).toString('base64url'),
      client_id: pending.client_id,
      redirect_uri: pending.redirect_uri,
      code_challenge: pending.code_challenge,
      member_id: member.id,
      scope,
      used_at: null,
      grant_id: null,
      expires_at_ms: Date.now() + CODE_TTL_MS,
    });
    const u = new URL(String(pending.redirect_uri));
    u.searchParams.set('code', String(code.value));
    if (typeof pending.state === 'string') u.searchParams.set('state', pending.state);
    u.searchParams.set('iss', issuer);
    redirect(res, status, u.href);
  }

  // Token endpoint -------------------------------------------------------------------------------

  private async token(req: IncomingMessage, res: ServerResponse, ws: MemoryWorkspace): Promise<void> {
    let grantType = '';
    try {
      const form = await readForm(req);
      grantType = form.get('grant_type') ?? '';
      if (grantType === 'refresh_token' && this.#failRefreshes) {
        this.#log.push({ workspace: ws.slug, grant_type: grantType, ok: false, error: this.#failRefreshes, at: new Date().toISOString() });
        // A hung endpoint: the request is held until the client gives up and closes the connection.
        if (this.#failRefreshes === 'hang') return;
        res.writeHead(503, { 'content-type': 'text/html' }).end('<h1>503 Service Temporarily Unavailable</h1>');
        return;
      }
      const client = this.client(ws, form.get('client_id'));
      if (!client) throw new OAuthError(401, 'invalid_client', 'Unknown client_id: register the application first.');
      let body: Record<string, unknown>;
      if (grantType === 'authorization_code') body = this.exchangeCode(ws, client, form);
      else if (grantType === 'refresh_token') body = this.rotate(ws, client, form);
      else throw new OAuthError(400, 'unsupported_grant_type', 'Use grant_type authorization_code or refresh_token.');
      this.#log.push({ workspace: ws.slug, grant_type: grantType, ok: true, at: new Date().toISOString() });
      sendJson(res, 200, body);
    } catch (e) {
      if (e instanceof OAuthError) this.#log.push({ workspace: ws.slug, grant_type: grantType, ok: false, error: e.error, at: new Date().toISOString() });
      throw e;
    }
  }

  private exchangeCode(ws: MemoryWorkspace, client: Rec, form: URLSearchParams): Record<string, unknown> {
    const value = form.get('code') ?? '';
    const code = ws.c(C_CODES).find((c) => c.value === value);
    if (!code || code.client_id !== client.client_id) throw new OAuthError(400, 'invalid_grant', 'The authorization code is unknown.');
    if (code.used_at) {
      // OAuth 2.1 4.1.3: a code used twice may have been stolen; what it bought is withdrawn.
      if (typeof code.grant_id === 'string') this.revokeGrant(ws, code.grant_id);
      throw new OAuthError(400, 'invalid_grant', 'The authorization code was already used; the tokens it gave are revoked.');
    }
    if (Number(code.expires_at_ms) <= Date.now()) throw new OAuthError(400, 'invalid_grant', 'The authorization code expired; sign in again.');
    if (form.get('redirect_uri') !== code.redirect_uri) {
      throw new OAuthError(400, 'invalid_grant', 'redirect_uri differs from the one of the authorization request.');
    }
    const verifier = form.get('code_verifier') ?? '';
    if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) {
      throw new OAuthError(400, 'invalid_grant', 'PKCE verification failed: code_verifier is missing or malformed.');
    }
    code.used_at = new Date().toISOString();
    if (!sameText(s256(verifier), String(code.code_challenge))) {
      throw new OAuthError(400, 'invalid_grant', 'PKCE verification failed: code_verifier does not match the code_challenge.');
    }
    const grant = ws.c(C_GRANTS).insert({
      client_id: client.client_id,
      client_name: client.client_name,
      member_id: code.member_id,
      scope: code.scope,
      revoked_at: null,
      last_used_at: null,
    });
    code.grant_id = grant.id;
    return this.issue(ws, grant);
  }

  private rotate(ws: MemoryWorkspace, client: Rec, form: URLSearchParams): Record<string, unknown> {
    const value = form.get('refresh_token') ?? '';
    const rt = REFRESH_TOKEN_FORMAT.test(value) ? ws.c(C_TOKENS).find((t) => t.kind === 'refresh' && t.value === value) : undefined;
    if (!rt || rt.client_id !== client.client_id) throw new OAuthError(400, 'invalid_grant', 'The refresh token is unknown.');
    const grant = ws.c(C_GRANTS).get(String(rt.grant_id));
    if (!grant || grant.revoked_at || rt.revoked_at) throw new OAuthError(400, 'invalid_grant', 'The authorization was revoked; sign in again.');
    if (rt.rotated_at) {
      // A rotated refresh token used again: someone holds a copy. The whole authorization goes.
      this.revokeGrant(ws, grant.id);
      throw new OAuthError(400, 'invalid_grant', 'This refresh token was already used (reuse detected); the authorization is revoked. Sign in again.');
    }
    if (Number(rt.expires_at_ms) <= Date.now()) throw new OAuthError(400, 'invalid_grant', 'The refresh token expired; sign in again.');
    const asked = form.get('scope');
    if (asked !== null) {
      const s = requestedScope(asked);
      if (!s || (s === 'write' && grant.scope !== 'write')) throw new OAuthError(400, 'invalid_scope', 'A refresh cannot widen the granted scope.');
    }
    const member = ws.c('members').get(String(grant.member_id));
    if (!member || member.status === 'removed') throw new OAuthError(400, 'invalid_grant', 'The member no longer belongs to this workspace.');
    rt.rotated_at = new Date().toISOString();
    return this.issue(ws, grant);
  }

  private issue(ws: MemoryWorkspace, grant: Rec): Record<string, unknown> {
    const now = Date.now();
    const tokens = ws.c(C_TOKENS);
    const access = tokens.insert({
      kind: 'access',
      value: token('wco_at_'),
      grant_id: grant.id,
      client_id: grant.client_id,
      expires_at_ms: now + this.#accessTtlS * 1000,
      revoked_at: null,
    });
    const refresh = tokens.insert({
      kind: 'refresh',
      value: token('wco_rt_'),
      grant_id: grant.id,
      client_id: grant.client_id,
      expires_at_ms: now + this.#refreshTtlMs,
      rotated_at: null,
      revoked_at: null,
    });
    return {
      access_token: access.value,
      token_type: 'Bearer',
      expires_in: this.#accessTtlS,
      refresh_token: refresh.value,
      scope: grant.scope,
    };
  }

  private revokeGrant(ws: MemoryWorkspace, grantId: string): void {
    const grant = ws.c(C_GRANTS).get(grantId);
    const at = new Date().toISOString();
    if (grant) grant.revoked_at ??= at;
    for (const t of ws.c(C_TOKENS).all((r) => r.grant_id === grantId)) t.revoked_at ??= at;
  }

  // RFC 7009 ---------------------------------------------------------------------------------------

  private async revoke(req: IncomingMessage, res: ServerResponse, ws: MemoryWorkspace): Promise<void> {
    const form = await readForm(req);
    const client = this.client(ws, form.get('client_id'));
    if (!client) throw new OAuthError(401, 'invalid_client', 'Unknown client_id.');
    const value = form.get('token') ?? '';
    const t = value ? ws.c(C_TOKENS).find((r) => r.value === value) : undefined;
    // Unknown tokens and other clients' tokens answer 200 too: the answer must not reveal which exist.
    if (t && t.client_id === client.client_id) {
      if (t.kind === 'refresh') this.revokeGrant(ws, String(t.grant_id));
      else t.revoked_at ??= new Date().toISOString();
    }
    sendJson(res, 200, {});
  }
}
