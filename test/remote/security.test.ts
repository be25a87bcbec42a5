// The remote mode's security properties, each tested over real HTTP against the sandbox: tokens bound
// to their resource, PKCE required, redirect URIs checked exactly, a foreign Origin or Host refused,
// the approval bound to the browser, codes and refresh tokens single-use, no token material in a log
// line or stored unsealed, and the personal-token header off unless the operator turns it on.
import { randomBytes } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { parseStateKey, Sealer } from '../../src/remote/sealing.js';
import { demoToken } from '../../src/sandbox/data/workspace.js';
import { findTokenMaterial } from '../reliability/token-scan.js';
import {
  authorizeUrl,
  browse,
  codeFor,
  pkce,
  REDIRECT,
  register,
  STATE_KEY,
  type Stack,
  startReplica,
  startStack,
  TestOAuthProvider,
  token,
  tokensFor,
  type WhoAmI,
} from './helpers.js';

const stacks: Stack[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  for (const s of stacks.splice(0)) await s.close();
});

async function stackOf(opts: Parameters<typeof startStack>[0] = {}): Promise<Stack> {
  const s = await startStack({ autoConsent: 'write', ...opts });
  stacks.push(s);
  return s;
}

const mcpPost = (url: string, headers: Record<string, string>) =>
  fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  });

describe('PKCE', () => {
  it('an authorization request without an S256 challenge goes back with invalid_request, never to the approval page', async () => {
    const { replica } = await stackOf();
    const clientId = await register(replica.url);
    const { challenge } = pkce();
    for (const pk of [
      {},
      { code_challenge: challenge },
      { code_challenge: challenge, code_challenge_method: 'plain' },
      { code_challenge: 'short', code_challenge_method: 'S256' },
    ]) {
      const res = await fetch(authorizeUrl(replica.url, { response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, state: 'x', ...pk }), {
        redirect: 'manual',
      });
      expect(res.status).toBe(302);
      const back = new URL(res.headers.get('location') ?? '');
      expect(back.searchParams.get('error')).toBe('invalid_request');
      expect(back.searchParams.get('state')).toBe('x');
      expect(back.searchParams.get('iss')).toBe(replica.url);
    }
  });

  it('a code is exchanged only with the verifier of its challenge, and a failed try spends it', async () => {
    const { replica } = await stackOf();
    const c = await codeFor(replica.url);
    const base = { grant_type: 'authorization_code', client_id: c.clientId, code: c.code, redirect_uri: REDIRECT };
    expect((await token(replica.url, { ...base, code_verifier: pkce().verifier })).body.error).toBe('invalid_grant');
    // The right verifier now comes too late: the code is spent.
    expect((await token(replica.url, { ...base, code_verifier: c.verifier })).body.error).toBe('invalid_grant');
    const c2 = await codeFor(replica.url);
    expect((await token(replica.url, { ...base, client_id: c2.clientId, code: c2.code })).body).toMatchObject({ error: 'invalid_grant' });
  });
});

describe('redirect URIs', () => {
  it('an unregistered redirect gets an error page and no redirect; a loopback one matches on any port only', async () => {
    const { replica } = await stackOf();
    const clientId = await register(replica.url, [REDIRECT, 'https://app.example/cb']);
    const { challenge } = pkce();
    const ask = (redirect: string) =>
      fetch(
        authorizeUrl(replica.url, {
          response_type: 'code',
          client_id: clientId,
          redirect_uri: redirect,
          code_challenge: challenge,
          code_challenge_method: 'S256',
        }),
        { redirect: 'manual' },
      );
    for (const bad of [
      'https://evil.example/cb',
      'https://app.example/cb/',
      'https://app.example/cb?x=1',
      'https://APP.example/cb#f',
      'http://127.0.0.1:45999/other',
      'http://localhost:45999/callback',
    ]) {
      const res = await ask(bad);
      expect(res.status, bad).toBe(400);
      expect(res.headers.get('location'), bad).toBeNull();
      expect(await res.text()).toMatch(/Unknown redirect/);
    }
    for (const good of ['https://app.example/cb', 'http://127.0.0.1:51234/callback']) {
      const res = await ask(good);
      expect(res.status, good).toBe(200);
      expect(await res.text()).toMatch(/Connect an assistant/);
    }
  });

  it('registration refuses redirects that are not https, loopback http or an application scheme', async () => {
    const { replica } = await stackOf();
    for (const bad of ['http://example.com/cb', 'javascript:alert(1)', 'https://app.example/cb#frag', 'data:text/html,x', 'not a uri', 'file:///etc/passwd']) {
      const res = await fetch(`${replica.url}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [bad] }),
      });
      expect(res.status, bad).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe('invalid_redirect_uri');
    }
    await register(replica.url, ['cursor://anysphere.cursor-mcp/oauth/callback', 'http://[::1]:3000/cb']);
  });

  it('the code is exchanged only with the redirect URI of its authorization request', async () => {
    const { replica } = await stackOf();
    const c = await codeFor(replica.url);
    const t = await token(replica.url, {
      grant_type: 'authorization_code',
      client_id: c.clientId,
      code: c.code,
      redirect_uri: 'http://127.0.0.1:45998/callback',
      code_verifier: c.verifier,
    });
    expect(t.body.error).toBe('invalid_grant');
  });
});

describe('resource binding (RFC 8707)', () => {
  it('an authorization or token request for another resource is refused with invalid_target', async () => {
    const { replica } = await stackOf();
    const clientId = await register(replica.url);
    const { challenge } = pkce();
    const res = await fetch(
      authorizeUrl(replica.url, {
        response_type: 'code',
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        resource: 'https://other.example/mcp',
      }),
      { redirect: 'manual' },
    );
    expect(new URL(res.headers.get('location') ?? '').searchParams.get('error')).toBe('invalid_target');
    const c = await codeFor(replica.url, { resource: `${replica.url}/mcp` });
    const t = await token(replica.url, {
      grant_type: 'authorization_code',
      client_id: c.clientId,
      code: c.code,
      redirect_uri: REDIRECT,
      code_verifier: c.verifier,
      resource: 'https://other.example/mcp',
    });
    expect(t.body.error).toBe('invalid_target');
  });

  it('a token issued for one deployment is refused by another sharing its store and key; the origin form of our resource is accepted', async () => {
    const a = await stackOf();
    const b = await startReplica({ workspaceUrl: a.sandbox.url, workspaceApi: a.sandbox.api, store: a.store, stateKey: STATE_KEY, logger: a.logs.logger });
    closers.push(() => b.close());
    const { tokens } = await tokensFor(a.replica.url);
    expect((await mcpPost(a.replica.url, { authorization: `Bearer ${tokens.access_token}` })).status).toBe(200);
    const atB = await mcpPost(b.url, { authorization: `Bearer ${tokens.access_token}` });
    expect(atB.status).toBe(401);
    expect(atB.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    const origin = await tokensFor(a.replica.url, { resource: a.replica.url });
    expect((await mcpPost(a.replica.url, { authorization: `Bearer ${origin.tokens.access_token}` })).status).toBe(200);
  });

  it('a workspace token (personal or OAuth) in the Authorization header is not passed through', async () => {
    const { replica, sandbox } = await stackOf();
    for (const t of [sandbox.tokens.write, `wco_at_${'a'.repeat(43)}`]) {
      const res = await mcpPost(replica.url, { authorization: `Bearer ${t}` });
      expect(res.status).toBe(401);
    }
    expect(sandbox.requests()).toEqual([]);
  });
});

describe('Origin and Host', () => {
  it('a foreign Origin is refused on /mcp and on the approval, even with a valid token; metadata stays readable cross-site', async () => {
    const { replica } = await stackOf();
    const { tokens } = await tokensFor(replica.url);
    const foreign = await mcpPost(replica.url, { authorization: `Bearer ${tokens.access_token}`, origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect((await mcpPost(replica.url, { authorization: `Bearer ${tokens.access_token}`, origin: replica.url })).status).toBe(200);
    const approval = await fetch(`${replica.url}/oauth/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: 'txn=x&decision=allow',
    });
    expect(approval.status).toBe(403);
    const meta = await fetch(`${replica.url}/.well-known/oauth-authorization-server`, { headers: { origin: 'https://inspector.example' } });
    expect(meta.status).toBe(200);
    expect(meta.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('a Host other than the public origin is refused (DNS rebinding); health answers whatever the Host', async () => {
    const { replica } = await stackOf();
    const { request } = await import('node:http');
    const get = (path: string, host: string) =>
      new Promise<number>((resolve, reject) => {
        const u = new URL(path, replica.url);
        request({ host: u.hostname, port: u.port, path: u.pathname, headers: { host } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
          .on('error', reject)
          .end();
      });
    expect(await get('/.well-known/oauth-authorization-server', 'evil.example')).toBe(421);
    expect(await get('/mcp', 'attacker.example:80')).toBe(421);
    expect(await get('/.well-known/oauth-authorization-server', new URL(replica.url).host)).toBe(200);
    expect(await get('/healthz', '10.0.0.7:8080')).toBe(200);
    expect(await get('/readyz', '10.0.0.7:8080')).toBe(200);
  });
});

describe('the approval is bound to the browser that opened it', () => {
  it('an approval posted without the browser cookie, or a workspace answer arriving in another browser, is refused', async () => {
    const { replica } = await stackOf();
    const clientId = await register(replica.url);
    const { challenge } = pkce();
    const start = authorizeUrl(replica.url, {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const page = await fetch(start);
    const txn = /name="txn" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
    const forged = await fetch(`${replica.url}/oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ txn, decision: 'allow' }),
    });
    expect(forged.status).toBe(400);
    expect(forged.headers.get('location')).toBeNull();

    // A sign-in started in one browser, its workspace answer replayed in another.
    const jar = new Map<string, string>();
    const page2 = await fetch(start);
    jar.set(replica.url, (page2.headers.get('set-cookie') ?? '').split(';')[0] as string);
    const txn2 = /name="txn" value="([^"]+)"/.exec(await page2.text())?.[1] ?? '';
    const toWorkspace = await fetch(`${replica.url}/oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.get(replica.url) ?? '' },
      body: new URLSearchParams({ txn: txn2, decision: 'allow' }),
    });
    expect(toWorkspace.status).toBe(303);
    const atWorkspace = await fetch(toWorkspace.headers.get('location') ?? '', { redirect: 'manual' });
    const callback = atWorkspace.headers.get('location') ?? '';
    expect(callback.startsWith(`${replica.url}/oauth/callback?`)).toBe(true);
    const elsewhere = await fetch(callback, { redirect: 'manual', headers: { cookie: `wcm_signin=${randomBytes(32).toString('base64url')}` } });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.headers.get('location')).toBeNull();
  });

  it('a member who cancels on the approval page sends the client access_denied', async () => {
    const { replica } = await stackOf();
    const clientId = await register(replica.url);
    const { challenge } = pkce();
    const back = await browse(
      authorizeUrl(replica.url, {
        response_type: 'code',
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 'c',
      }),
      REDIRECT,
      'deny',
    );
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('c');
    expect(back.searchParams.get('iss')).toBe(replica.url);
  });
});

describe('single use', () => {
  it('a code used twice revokes what its first use bought', async () => {
    const { replica } = await stackOf();
    const c = await codeFor(replica.url);
    const form = { grant_type: 'authorization_code', client_id: c.clientId, code: c.code, redirect_uri: REDIRECT, code_verifier: c.verifier };
    const first = await token(replica.url, form);
    expect(first.status).toBe(200);
    expect((await token(replica.url, form)).body.error).toBe('invalid_grant');
    expect((await mcpPost(replica.url, { authorization: `Bearer ${first.body.access_token}` })).status).toBe(401);
  });

  it('a rotated refresh token used again ends the grant: the tokens of the legitimate rotation stop working too', async () => {
    const { replica, sandbox } = await stackOf();
    const { clientId, tokens } = await tokensFor(replica.url);
    const refresh = (rt: string) => token(replica.url, { grant_type: 'refresh_token', client_id: clientId, refresh_token: rt });
    const rotated = await refresh(tokens.refresh_token as string);
    expect(rotated.status).toBe(200);
    expect(rotated.body.refresh_token).not.toBe(tokens.refresh_token);
    expect((await refresh(tokens.refresh_token as string)).body.error).toBe('invalid_grant');
    expect((await mcpPost(replica.url, { authorization: `Bearer ${rotated.body.access_token}` })).status).toBe(401);
    expect((await refresh(rotated.body.refresh_token as string)).body.error).toBe('invalid_grant');
    // The workspace authorization behind it was revoked as well.
    expect(sandbox.oauth.revokeAuthorizations()).toBe(0);
  });

  it('a refresh cannot widen the scope, and narrows when asked', async () => {
    const { replica } = await stackOf({ autoConsent: 'read' });
    const { clientId, tokens } = await tokensFor(replica.url);
    expect(tokens.scope).toBe('read');
    const wider = await token(replica.url, {
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: tokens.refresh_token as string,
      scope: 'read write',
    });
    expect(wider.body.error).toBe('invalid_scope');
  });
});

describe('no token material in logs or unsealed in the store', () => {
  it('after sign-ins, calls, refreshes and revocations, neither a log line nor a stored value holds a token, a code or a verifier', async () => {
    const s = await stackOf();
    const url = s.replica.url;
    const provider = new TestOAuthProvider();
    const mcpUrl = new URL('/mcp', url);
    await new Client({ name: 't', version: '1' }).connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider })).catch(() => {});
    const back = await browse((provider.authorizationUrl as URL).href, provider.redirectUrl);
    await new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }).finishAuth(back.searchParams);
    const client = new Client({ name: 't', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    await client.callTool({ name: 'whoami', arguments: {} });
    s.sandbox.oauth.expireAccessTokens();
    await client.callTool({ name: 'whoami', arguments: {} });
    const raw = await tokensFor(url);
    const rotated = await token(url, { grant_type: 'refresh_token', client_id: raw.clientId, refresh_token: raw.tokens.refresh_token as string });
    await token(url, { grant_type: 'refresh_token', client_id: raw.clientId, refresh_token: raw.tokens.refresh_token as string });
    await client.close();

    // What the workspace issued, read back from the store with the key: it is there, sealed.
    const sealer = new Sealer(parseStateKey(STATE_KEY));
    const workspaceTokens: string[] = [];
    for (const w of s.store.written) {
      expect(w.key.startsWith('remote:'), w.key).toBe(true);
      expect(w.value, w.key).toMatch(/^v1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
      if (w.key.startsWith('remote:grant:')) {
        const g = JSON.parse(sealer.open(w.value, w.key) ?? '{}') as { workspace?: { access_token: string; refresh_token: string } };
        if (g.workspace) workspaceTokens.push(g.workspace.access_token, g.workspace.refresh_token);
      }
    }
    expect(workspaceTokens.length).toBeGreaterThanOrEqual(4);
    expect(workspaceTokens.every((t) => /^wco_(at|rt)_/.test(t))).toBe(true);
    const ours = [
      provider.stored?.access_token,
      provider.stored?.refresh_token,
      raw.code,
      raw.verifier,
      raw.tokens.access_token,
      raw.tokens.refresh_token,
      rotated.body.access_token,
      rotated.body.refresh_token,
      back.searchParams.get('code'),
    ];
    const secrets = [...workspaceTokens, ...ours].filter((t): t is string => typeof t === 'string' && t.length > 0);
    expect(secrets.length).toBeGreaterThanOrEqual(workspaceTokens.length + 8);

    const stored = s.store.text();
    const logs = s.logs.text();
    expect(logs).toMatch(/remote.signed_in/);
    for (const secret of secrets) {
      expect(stored.includes(secret), `stored: ${secret.slice(0, 7)}`).toBe(false);
      expect(logs.includes(secret), `logged: ${secret.slice(0, 7)}`).toBe(false);
    }
    // A token prefix starting a value, not inside a sealed blob: base64url ciphertext holds "wcm_" by
    // chance about once in 500 runs (every exact token is looked for above).
    expect(stored).not.toMatch(/(?<![\w-])(wco|wcm|pat)_/);
    expect(findTokenMaterial(logs, secrets)).toEqual([]);
  });
});

describe('personal tokens for unattended agents', () => {
  it('are off by default: X-Workspace-Token is refused and never reaches the workspace', async () => {
    const { replica, sandbox } = await stackOf();
    const res = await mcpPost(replica.url, { 'x-workspace-token': sandbox.tokens.write });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error_description: string }).error_description).toMatch(/does not accept personal tokens/);
    expect(sandbox.requests()).toEqual([]);
  });

  it('when on, an agent with a personal token is served as its member with the token scope, and the token is neither stored nor logged', async () => {
    const s = await stackOf({ allowPersonalTokens: true });
    const call = async (pat: string) => {
      const client = new Client({ name: 'agent', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', s.replica.url), { requestInit: { headers: { 'X-Workspace-Token': pat } } }));
      const r = await client.callTool({ name: 'whoami', arguments: {} });
      await client.close();
      return JSON.parse((r.content as { text: string }[])[0]?.text ?? '{}') as WhoAmI;
    };
    expect(await call(s.sandbox.tokens.read)).toMatchObject({ kind: 'personal', scope: 'read', workspaceTokenKind: 'personal' });
    const w = await call(s.sandbox.tokens.write);
    expect(w).toMatchObject({ kind: 'personal', scope: 'write' });
    expect(w.budgetKey).toMatch(/^pat:[0-9a-f]{32}$/);

    for (const [pat, status] of [
      [demoToken('atelier', 'revoked'), 401],
      [`pat_${'z'.repeat(40)}`, 401],
      ['not-a-token', 401],
    ] as const) {
      expect((await mcpPost(s.replica.url, { 'x-workspace-token': pat })).status, pat).toBe(status);
    }
    expect((await mcpPost(s.replica.url, { 'x-workspace-token': s.sandbox.tokens.read, authorization: 'Bearer x' })).status).toBe(400);
    for (const pat of [s.sandbox.tokens.read, s.sandbox.tokens.write, demoToken('atelier', 'revoked')]) {
      expect(s.store.text().includes(pat)).toBe(false);
      expect(s.logs.text().includes(pat)).toBe(false);
    }
    expect(s.store.written).toEqual([]);
  });
});
