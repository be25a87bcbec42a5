// The remote front tells the operator's audit trail of each sign-in, grant change and revocation, in
// the order they happen, naming the member and the client and never a token: a client revoking its
// refresh token or an access token, a refresh that narrows the scope, the workspace refusing a refresh.
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../src/audit/events.js';
import { browse, type Stack, startStack, TestOAuthProvider } from './helpers.js';

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

async function signedIn(s: Stack) {
  const provider = new TestOAuthProvider();
  const mcpUrl = new URL('/mcp', s.replica.url);
  await expect(new Client({ name: 'a', version: '1' }).connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }))).rejects.toBeInstanceOf(
    UnauthorizedError,
  );
  const back = await browse((provider.authorizationUrl as URL).href, provider.redirectUrl);
  await new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }).finishAuth(back.searchParams);
  const client = new Client({ name: 'a', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
  const clientId = provider.clientInformation()?.client_id as string;
  return { client, provider, clientId };
}

async function form(url: string, fields: Record<string, string>) {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
}

describe('remote front: audit events', () => {
  it('a sign-in, its grant activated, a refresh narrowed to read, an access token and then the grant revoked by the client', async () => {
    const events: AuditEvent[] = [];
    stack = await startStack({ autoConsent: 'write', events: { emit: (e) => events.push(e) } });
    const { client, provider, clientId } = await signedIn(stack);
    await client.close();
    const tokens = provider.stored;
    const narrowed = await form(`${stack.replica.url}/oauth/token`, {
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: tokens?.refresh_token ?? '',
      scope: 'read',
    });
    expect(narrowed.status).toBe(200);
    const next = (await narrowed.json()) as { access_token: string; refresh_token: string };
    expect((await form(`${stack.replica.url}/oauth/revoke`, { client_id: clientId, token: next.access_token })).status).toBe(200);
    expect((await form(`${stack.replica.url}/oauth/revoke`, { client_id: clientId, token: next.refresh_token })).status).toBe(200);

    const member = (events[0] as { member: string }).member;
    expect(member).toMatch(/^member:/);
    expect(events).toEqual([
      { event: 'sign_in', member, client: clientId, outcome: 'ok', scope: 'write' },
      expect.objectContaining({ event: 'grant_change', change: 'activated', member, client: clientId, scope: 'write' }),
      expect.objectContaining({ event: 'grant_change', change: 'narrowed', member, client: clientId, scope: 'read' }),
      expect.objectContaining({ event: 'revocation', what: 'access_token', member, client: clientId, reason: 'revoked by the client' }),
      expect.objectContaining({ event: 'revocation', what: 'grant', member, client: clientId, reason: 'revoked by the client' }),
    ]);
    // No token, code or secret of any kind in what the trail is given.
    const text = JSON.stringify(events);
    for (const secret of [tokens?.access_token, tokens?.refresh_token, next.access_token, next.refresh_token]) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/wc[mo]_(at|rt|ac)_/);
  });

  it('a grant the workspace no longer honours ends with a revocation naming the workspace', async () => {
    const events: AuditEvent[] = [];
    stack = await startStack({ autoConsent: 'write', events: { emit: (e) => events.push(e) } });
    const { client } = await signedIn(stack);
    expect(stack.sandbox.oauth.revokeAuthorizations()).toBe(1);
    const ended = await client.callTool({ name: 'whoami', arguments: {} });
    expect(ended.isError).toBe(true);
    await client.close().catch(() => {});
    expect(events.filter((e) => e.event === 'revocation')).toEqual([
      expect.objectContaining({ what: 'grant', reason: 'workspace refused the refresh', member: expect.stringMatching(/^member:/) }),
    ]);
  });

  it('a sign-in the member denies is recorded as denied, with no member', async () => {
    const events: AuditEvent[] = [];
    stack = await startStack({ autoConsent: 'none', events: { emit: (e) => events.push(e) } });
    const provider = new TestOAuthProvider();
    const mcpUrl = new URL('/mcp', stack.replica.url);
    await new Client({ name: 'a', version: '1' }).connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider })).catch(() => {});
    const back = await browse((provider.authorizationUrl as URL).href, provider.redirectUrl, 'allow', {
      email: 'claire.dubois@atelier-conseil.fr',
      consent: 'deny' as 'read',
    });
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(events).toEqual([{ event: 'sign_in', member: null, client: provider.clientInformation()?.client_id, outcome: 'denied' }]);
  });
});
