// The client side of OAuth against the sandbox over real HTTP: every check that protects a sign-in
// refuses with a clear message (state, iss, PKCE, insecure issuer or endpoints), and a stored
// sign-in refreshes once, picks up another process's refresh, and ends cleanly when revoked.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/api/limiter.js';
import { authorizationRequest } from '../../src/auth/authorization-request.js';
import { discover } from '../../src/auth/discovery.js';
import { OAuthSession } from '../../src/auth/oauth-session.js';
import { registerClient } from '../../src/auth/registration.js';
import { signIn } from '../../src/auth/sign-in.js';
import { NotSignedInError, SignInError } from '../../src/auth/sign-in-errors.js';
import { exchangeCode } from '../../src/auth/token-requests.js';
import { type StoredSignIn, TokenStore } from '../../src/auth/token-store.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { autoConsent, deliver, tempConfigDir } from './helpers.js';

let sb: SandboxHandle;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, rateLimit: false, logger: () => {} });
});
afterAll(() => sb.close());

/** A sign-in whose redirect is passed through `tamper` before it reaches the loopback listener. */
async function signInWith(tamper: (location: URL) => void, store?: TokenStore) {
  let page: Promise<{ status: number; body: string }> | undefined;
  const run = signIn({
    workspaceUrl: sb.url,
    scope: 'write',
    store: store ?? new TokenStore(sb.url, await tempConfigDir()),
    timeoutMs: 10_000,
    limiter: new RateLimiter(),
    async present(url) {
      // Like a browser: in the background, while the sign-in waits for its answer.
      page = (async () => {
        const location = new URL(await autoConsent(url, 'write'));
        tamper(location);
        return deliver(location.href);
      })();
    },
  });
  return { run, page: () => page };
}

function fakeWorkspace(routes: Record<string, (origin: string) => unknown>): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const origin = `http://${req.headers.host}`;
    const route = routes[req.url ?? ''];
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(route(origin)));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server })));
}

describe('signing in', () => {
  it('completes against the sandbox and stores tokens, scope, member and the registration', async () => {
    const store = new TokenStore(sb.url, await tempConfigDir());
    const { run, page } = await signInWith(() => {}, store);
    const result = await run;
    expect(result.scope).toBe('write');
    expect(result.member?.email).toMatch(/@/);
    const rec = (await store.read()) as StoredSignIn;
    expect(rec.tokens?.access_token).toMatch(/^wco_at_/);
    expect(rec.client?.issuer).toBe(sb.url);
    expect((await page())?.status).toBe(200);

    // A second sign-in reuses the registration and ends the authorization it replaces.
    const again = await signInWith(() => {}, store);
    await again.run;
    const next = (await store.read()) as StoredSignIn;
    expect(next.client?.client_id).toBe(rec.client?.client_id);
    const me = (token: string) => fetch(`${sb.api}/me`, { headers: { authorization: `Bearer ${token}` } });
    expect((await me(rec.tokens!.access_token)).status).toBe(401);
    expect((await me(next.tokens!.access_token)).status).toBe(200);
  });

  it('refuses an answer with another state', async () => {
    const { run, page } = await signInWith((l) => l.searchParams.set('state', 'forged'));
    await expect(run).rejects.toThrow(/state mismatch/);
    expect((await page())?.status).toBe(400);
    expect((await page())?.body).toContain('state mismatch');
  });

  it('refuses an answer naming another issuer (RFC 9207), and one without iss', async () => {
    const wrong = await signInWith((l) => l.searchParams.set('iss', 'http://127.0.0.1:1'));
    await expect(wrong.run).rejects.toThrow(/iss mismatch/);
    const missing = await signInWith((l) => l.searchParams.delete('iss'));
    await expect(missing.run).rejects.toThrow(/iss/);
  });

  it('refuses a code exchanged with a tampered PKCE verifier', async () => {
    const as = await discover(sb.url);
    const redirect = 'http://127.0.0.1:50999/callback';
    const client = { client_id: (await registerClient(as, redirect)).client_id, token_endpoint_auth_method: 'none' as const };
    const req = await authorizationRequest(as, client.client_id, redirect, 'read');
    const location = new URL(await autoConsent(req.url.href, 'read'));
    const tampered = { ...req, scope: 'read' as const, codeVerifier: req.codeVerifier.replace(/.$/, (c) => (c === 'a' ? 'b' : 'a')) };
    const err = await exchangeCode(as, client, location.searchParams, tampered).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SignInError);
    expect((err as Error).message).toMatch(/refused the authorization code: invalid_grant: PKCE verification failed/);
  });

  it('refuses a plain-http workspace or issuer that is not loopback, before sending anything there', async () => {
    await expect(discover('http://acme.example.com')).rejects.toThrow(/Refusing the workspace URL http:\/\/acme\.example\.com: OAuth needs https/);
    const fake = await fakeWorkspace({
      '/.well-known/oauth-protected-resource/api/v1': (origin) => ({ resource: `${origin}/api/v1`, authorization_servers: ['http://auth.example.com'] }),
    });
    try {
      await expect(discover(fake.url)).rejects.toThrow(/Refusing the authorization server \(issuer\) http:\/\/auth\.example\.com: OAuth needs https/);
    } finally {
      fake.server.close();
    }
  });

  it('refuses metadata whose endpoints are plain http off loopback', async () => {
    const fake = await fakeWorkspace({
      '/.well-known/oauth-authorization-server': (origin) => ({
        issuer: origin,
        authorization_endpoint: `${origin}/oauth/authorize`,
        token_endpoint: 'http://tokens.example.com/token',
        code_challenge_methods_supported: ['S256'],
      }),
    });
    try {
      await expect(discover(fake.url)).rejects.toThrow(/Refusing the token endpoint in the server metadata http:\/\/tokens\.example\.com/);
    } finally {
      fake.server.close();
    }
  });
});

describe('a stored sign-in in use', () => {
  async function signedIn(): Promise<TokenStore> {
    const store = new TokenStore(sb.url, await tempConfigDir());
    await (await signInWith(() => {}, store)).run;
    return store;
  }
  const refreshes = () => sb.oauth.tokenRequests().filter((r) => r.grant_type === 'refresh_token');

  it('refreshes an expiring token once, and a second process uses that refresh instead of its own', async () => {
    const store = await signedIn();
    // Make the stored token look expired to both sessions (as after an hour).
    const rec = (await store.read()) as StoredSignIn;
    await store.write({ ...rec, tokens: { ...rec.tokens!, expires_at: Date.now() - 1 } });
    const a = await OAuthSession.open(sb.url, { store });
    const b = await OAuthSession.open(sb.url, { store: new TokenStore(sb.url, store.dir) });
    sb.oauth.clearTokenRequests();

    const [ta, tb] = await Promise.all([a.accessToken(), b.accessToken()]);
    expect(ta).toBe(tb);
    expect(ta).not.toBe(rec.tokens!.access_token);
    expect(refreshes()).toHaveLength(1);
    expect((await store.read())?.tokens?.access_token).toBe(ta);
  });

  it('after a 401 takes the token another process already refreshed, without refreshing again', async () => {
    const store = await signedIn();
    const a = await OAuthSession.open(sb.url, { store });
    const b = await OAuthSession.open(sb.url, { store: new TokenStore(sb.url, store.dir) });
    const old = await b.accessToken();
    sb.oauth.expireAccessTokens();
    sb.oauth.clearTokenRequests();
    await a.accessToken();
    expect(await a.onUnauthorized()).toBe(true);
    expect(await b.onUnauthorized()).toBe(true);
    const fresh = await b.accessToken();
    expect(fresh).not.toBe(old);
    expect(fresh).toBe(await a.accessToken());
    expect(refreshes()).toHaveLength(1);
  });

  it('drops the tokens (not the registration) when the workspace revoked the sign-in, and names the login command', async () => {
    const store = await signedIn();
    const rec = (await store.read()) as StoredSignIn;
    await fetch(`${sb.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: rec.client!.client_id, token: rec.tokens!.refresh_token! }).toString(),
    });
    const s = await OAuthSession.open(sb.url, { store });
    await s.accessToken();
    expect(await s.onUnauthorized()).toBe(false);
    const after = (await store.read()) as StoredSignIn;
    expect(after.tokens).toBeUndefined();
    expect(after.client?.client_id).toBe(rec.client?.client_id);
    const err = await s.accessToken().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotSignedInError);
    expect((err as Error).message).toMatch(new RegExp(`Run: .+ login --workspace ${sb.url.replace(/[.]/g, '\\.')}$`));
  });
});
