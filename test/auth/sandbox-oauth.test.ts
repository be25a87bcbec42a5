// The sandbox as an authorization server, over real HTTP: metadata, registration rules, the
// authorize page's three steps, PKCE, single-use codes, refresh rotation with reuse detection,
// revocation, and OAuth access tokens accepted by the API with their scope and expiry.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { consentOnPage } from './helpers.js';

let sb: SandboxHandle;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, rateLimit: false, logger: () => {} });
});
afterAll(() => sb.close());

const REDIRECT = 'http://127.0.0.1:50123/callback';

async function json(res: Response): Promise<Record<string, any>> {
  return (await res.json()) as Record<string, any>;
}

async function register(redirect_uris: string[] = [REDIRECT], extra: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${sb.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'test app', redirect_uris, token_endpoint_auth_method: 'none', ...extra }),
  });
}

function form(path: string, fields: Record<string, string>): Promise<Response> {
  return fetch(`${sb.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

interface Flow {
  clientId: string;
  verifier: string;
  authorizeUrl: URL;
}

async function newFlow(scope = 'read write', redirect = REDIRECT): Promise<Flow> {
  const clientId = String((await json(await register())).client_id);
  const verifier = randomBytes(32).toString('base64url');
  const u = new URL(`${sb.url}/oauth/authorize`);
  u.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirect,
    scope,
    state: 'st-1',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  return { clientId, verifier, authorizeUrl: u };
}

async function codeFor(flow: Flow, consent: 'read' | 'write'): Promise<string> {
  const u = new URL(flow.authorizeUrl);
  u.searchParams.set('sandbox_consent', consent);
  const res = await fetch(u, { redirect: 'manual' });
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location') as string).searchParams.get('code') as string;
}

const exchange = (flow: Flow, code: string, verifier = flow.verifier) =>
  form('/oauth/token', { grant_type: 'authorization_code', client_id: flow.clientId, code, redirect_uri: REDIRECT, code_verifier: verifier });

const me = (token: string) => fetch(`${sb.api}/me`, { headers: { authorization: `Bearer ${token}` } });

describe('sandbox authorization server', () => {
  it('serves RFC 8414 and RFC 9728 metadata on the workspace host', async () => {
    const as = await json(await fetch(`${sb.url}/.well-known/oauth-authorization-server`));
    expect(as).toMatchObject({
      issuer: sb.url,
      authorization_endpoint: `${sb.url}/oauth/authorize`,
      token_endpoint: `${sb.url}/oauth/token`,
      registration_endpoint: `${sb.url}/oauth/register`,
      revocation_endpoint: `${sb.url}/oauth/revoke`,
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      authorization_response_iss_parameter_supported: true,
    });
    const pr = await json(await fetch(`${sb.url}/.well-known/oauth-protected-resource/api/v1`));
    expect(pr).toMatchObject({ resource: `${sb.url}/api/v1`, authorization_servers: [sb.url] });
  });

  it('registers public clients with https, loopback or desktop redirects, and refuses the rest', async () => {
    const ok = await register(['http://127.0.0.1:1/cb', 'https://app.example/cb', 'claude://oauth/callback']);
    expect(ok.status).toBe(201);
    expect(await json(ok)).toMatchObject({ token_endpoint_auth_method: 'none', client_id: expect.stringMatching(/^wcc_/) });
    const plain = await register(['http://app.example/cb']);
    expect(plain.status).toBe(400);
    expect(await json(plain)).toMatchObject({ error: 'invalid_redirect_uri', error_description: expect.stringContaining('https') });
    const secret = await register([REDIRECT], { token_endpoint_auth_method: 'client_secret_basic' });
    expect((await json(secret)).error).toBe('invalid_client_metadata');
  });

  it('walks sign-in, two-step verification and consent, then redirects with code, state and iss to any loopback port', async () => {
    const flow = await newFlow('read write', 'http://127.0.0.1:61999/callback');
    const location = new URL(await consentOnPage(flow.authorizeUrl.href, 'read'));
    expect(location.origin + location.pathname).toBe('http://127.0.0.1:61999/callback');
    expect(location.searchParams.get('state')).toBe('st-1');
    expect(location.searchParams.get('iss')).toBe(sb.url);
    const code = location.searchParams.get('code') as string;
    const tokens = await json(
      await form('/oauth/token', {
        grant_type: 'authorization_code',
        client_id: flow.clientId,
        code,
        redirect_uri: 'http://127.0.0.1:61999/callback',
        code_verifier: flow.verifier,
      }),
    );
    expect(tokens).toMatchObject({ token_type: 'Bearer', scope: 'read', expires_in: 3600 });
  });

  it('refuses a wrong password and a wrong two-step code on the page', async () => {
    const flow = await newFlow();
    const page = await (await fetch(flow.authorizeUrl)).text();
    const txn = /name="txn" value="([^"]+)"/.exec(page)?.[1] as string;
    const bad = await (await form('/oauth/authorize', { txn, step: 'signin', email: 'claire.dubois@atelier-conseil.fr', password: 'nope' })).text();
    expect(bad).toContain('E-mail or password not recognised');
    await form('/oauth/authorize', { txn, step: 'signin', email: 'claire.dubois@atelier-conseil.fr', password: 'sandbox' });
    const badCode = await (await form('/oauth/authorize', { txn, step: 'two_factor', code: '000000' })).text();
    expect(badCode).toContain('not valid');
  });

  it('redirects a request without PKCE S256 back with invalid_request, and shows unknown redirects an error page', async () => {
    const flow = await newFlow();
    const u = new URL(flow.authorizeUrl);
    u.searchParams.set('code_challenge_method', 'plain');
    const res = await fetch(u, { redirect: 'manual' });
    expect(new URL(res.headers.get('location') as string).searchParams.get('error')).toBe('invalid_request');
    u.searchParams.set('redirect_uri', 'https://evil.example/cb');
    const page = await fetch(u, { redirect: 'manual' });
    expect(page.status).toBe(400);
    expect(page.headers.get('location')).toBeNull();
  });

  it('refuses a tampered PKCE verifier, and a code used twice', async () => {
    const flow = await newFlow();
    const code = await codeFor(flow, 'write');
    const tampered = await exchange(flow, code, `${flow.verifier.slice(0, -1)}${flow.verifier.endsWith('A') ? 'B' : 'A'}`);
    expect(tampered.status).toBe(400);
    expect(await json(tampered)).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('PKCE') });
    // The failed attempt spent the code: a stolen code cannot be retried with guesses.
    expect((await json(await exchange(flow, code))).error).toBe('invalid_grant');
  });

  it('issues tokens the API accepts with the granted scope: read consent cannot write', async () => {
    const flow = await newFlow();
    const t = await json(await exchange(flow, await codeFor(flow, 'read')));
    expect(t.access_token).toMatch(/^wco_at_/);
    expect((await me(t.access_token)).status).toBe(200);
    const write = await fetch(`${sb.api}/me`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${t.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ locale: 'en' }),
    });
    expect(write.status).toBe(403);
  });

  it('rotates refresh tokens, and revokes the authorization when a rotated one is used again', async () => {
    const flow = await newFlow();
    const first = await json(await exchange(flow, await codeFor(flow, 'write')));
    const refresh = (rt: string) => form('/oauth/token', { grant_type: 'refresh_token', client_id: flow.clientId, refresh_token: rt });
    const second = await json(await refresh(first.refresh_token));
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.scope).toBe('write');
    expect((await me(second.access_token)).status).toBe(200);

    const reuse = await refresh(first.refresh_token);
    expect(await json(reuse)).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('reuse') });
    expect((await me(second.access_token)).status).toBe(401);
    expect((await json(await refresh(second.refresh_token))).error).toBe('invalid_grant');
  });

  it('expires access tokens (refresh still works) and revokes on request (RFC 7009)', async () => {
    const flow = await newFlow();
    const t = await json(await exchange(flow, await codeFor(flow, 'read')));
    expect(sb.oauth.expireAccessTokens()).toBeGreaterThan(0);
    const expired = await me(t.access_token);
    expect(expired.status).toBe(401);
    const fresh = await json(await form('/oauth/token', { grant_type: 'refresh_token', client_id: flow.clientId, refresh_token: t.refresh_token }));
    expect((await me(fresh.access_token)).status).toBe(200);

    const revoked = await form('/oauth/revoke', { client_id: flow.clientId, token: fresh.refresh_token, token_type_hint: 'refresh_token' });
    expect(revoked.status).toBe(200);
    expect((await me(fresh.access_token)).status).toBe(401);
    // Unknown tokens answer 200 as well: revocation does not reveal which tokens exist.
    expect((await form('/oauth/revoke', { client_id: flow.clientId, token: 'nope' })).status).toBe(200);
  });

  it('scales token lifetimes with the time scale', async () => {
    const fast = await startSandbox({ port: 0, timeScale: 0.001, oauth: { autoConsent: 'read' }, logger: () => {} });
    try {
      const clientId = String(
        (
          await json(
            await fetch(`${fast.url}/oauth/register`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ redirect_uris: [REDIRECT] }),
            }),
          )
        ).client_id,
      );
      const verifier = randomBytes(32).toString('base64url');
      const u = new URL(`${fast.url}/oauth/authorize`);
      u.search = new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: REDIRECT,
        scope: 'write',
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
      }).toString();
      const loc = new URL((await fetch(u, { redirect: 'manual' })).headers.get('location') as string);
      const t = await json(
        await fetch(`${fast.url}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            client_id: clientId,
            code: loc.searchParams.get('code') as string,
            redirect_uri: REDIRECT,
            code_verifier: verifier,
          }).toString(),
        }),
      );
      // 60 minutes at 0.001 is 3.6 s; automatic consent 'read' narrows the 'write' asked for.
      expect(t.expires_in).toBe(4);
      expect(t.scope).toBe('read');
    } finally {
      await fast.close();
    }
  });
});
