// The remote mode end to end: a real MCP client (SDK v2, with its OAuth client provider) meets a 401,
// discovers this server's authorization server from WWW-Authenticate, registers, signs the member in
// with PKCE through the workspace's own sign-in and consent (the sandbox's auto-consent: no browser),
// and calls a tool that acts at the workspace as that member. Then the lifetimes: refresh of both
// token pairs, and the member revoking the app at the workspace.
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/store/memory.js';
import { browse, RecordingStore, revoke, type Stack, startStack, TestOAuthProvider, type WhoAmI } from './helpers.js';

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

async function signIn(s: Stack, provider = new TestOAuthProvider()) {
  const mcpUrl = new URL('/mcp', s.replica.url);
  const first = new Client({ name: 'remote-test', version: '1.0.0' });
  await expect(first.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }))).rejects.toBeInstanceOf(UnauthorizedError);
  const authUrl = provider.authorizationUrl as URL;
  const back = await browse(authUrl.href, provider.redirectUrl);
  expect(back.searchParams.get('state')).toBe(provider.lastState);
  const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
  await transport.finishAuth(back.searchParams);
  const client = new Client({ name: 'remote-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
  return { client, provider, authUrl, back };
}

async function whoami(client: Client): Promise<WhoAmI> {
  const r = await client.callTool({ name: 'whoami', arguments: {} });
  if (r.isError) throw new Error(JSON.stringify(r.content));
  return JSON.parse((r.content as { text: string }[])[0]?.text ?? '{}') as WhoAmI;
}

describe('remote front: sign-in and calls', () => {
  it('an MCP client discovers the server from a 401, registers, signs in with PKCE at the workspace, and calls a tool as the member', async () => {
    stack = await startStack({ autoConsent: 'write' });
    const url = stack.replica.url;
    const bare = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(bare.status).toBe(401);
    expect(bare.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${url}/.well-known/oauth-protected-resource/mcp"`);

    const { client, provider, authUrl, back } = await signIn(stack);
    // The authorization request the SDK built from what we published.
    expect(authUrl.origin + authUrl.pathname).toBe(`${url}/oauth/authorize`);
    expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authUrl.searchParams.get('resource')).toBe(`${url}/mcp`);
    expect(back.searchParams.get('iss')).toBe(url);
    expect(provider.stored?.access_token).toMatch(/^wcm_at_/);

    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['whoami']);
    const me = await whoami(client);
    expect(me).toMatchObject({ kind: 'oauth', scope: 'write', workspaceTokenKind: 'oauth', workspaceTokenScope: 'write' });
    expect(me.member).toMatch(/^member:/);
    expect(me.budgetKey).toMatch(/^oauth:wcc_/);

    // The client's token is this server's own: the workspace does not know it.
    const atWorkspace = await fetch(`${stack.sandbox.api}/me`, { headers: { authorization: `Bearer ${provider.stored?.access_token}` } });
    expect(atWorkspace.status).toBe(401);
    await client.close();
  });

  it('a member who consents to read only gets the read scope, whatever the client asked', async () => {
    stack = await startStack({ autoConsent: 'read' });
    const { client, authUrl, provider } = await signIn(stack);
    expect(authUrl.searchParams.get('scope')).toBe('read write');
    expect(provider.stored?.scope).toBe('read');
    expect(await whoami(client)).toMatchObject({ scope: 'read', workspaceTokenScope: 'read' });
    await client.close();
  });
});

describe('remote front: lifetimes', () => {
  it('refreshes both pairs: the client refreshes ours when it expires, the server refreshes the workspace tokens before they expire and after a 401', async () => {
    let offset = 0;
    const now = () => Date.now() + offset;
    stack = await startStack({ autoConsent: 'write', now, store: new RecordingStore(new MemoryStore({ now })) });
    const { client, provider } = await signIn(stack);
    await whoami(client);
    const refreshes = () => stack!.sandbox.oauth.tokenRequests().filter((r) => r.grant_type === 'refresh_token' && r.ok).length;
    expect(refreshes()).toBe(0);

    // Two hours later: our access token (1 h) and the workspace's (1 h) have both expired.
    const before = provider.stored;
    offset = 2 * 3600 * 1000;
    expect(await whoami(client)).toMatchObject({ scope: 'write' });
    expect(provider.stored?.access_token).not.toBe(before?.access_token);
    expect(provider.stored?.refresh_token).not.toBe(before?.refresh_token);
    expect(refreshes()).toBe(1);

    // The workspace expires its tokens early: the 401 is answered by one refresh, then the call runs.
    expect(stack.sandbox.oauth.expireAccessTokens()).toBeGreaterThan(0);
    expect(await whoami(client)).toMatchObject({ scope: 'write' });
    expect(refreshes()).toBe(2);
    await client.close();
  });

  it('a grant revoked at the workspace ends the session cleanly: the tool says so, the next request is a 401 and the client is sent to sign in again', async () => {
    stack = await startStack({ autoConsent: 'write' });
    const { client, provider } = await signIn(stack);
    await whoami(client);
    expect(stack.sandbox.oauth.revokeAuthorizations()).toBe(1);

    const ended = await client.callTool({ name: 'whoami', arguments: {} });
    expect(ended.isError).toBe(true);
    expect(JSON.stringify(ended.content)).toMatch(/sign in again/);
    expect(stack.logs.text()).toMatch(/"event":"remote.grant_ended"/);

    const firstAuthorization = provider.authorizationUrl;
    await expect(client.callTool({ name: 'whoami', arguments: {} })).rejects.toBeInstanceOf(UnauthorizedError);
    // The client's refresh was refused (the grant is gone) and it started a new sign-in.
    expect(provider.authorizationUrl).not.toBe(firstAuthorization);
    expect(provider.stored).toBeUndefined();
    await client.close();
  });

  it('a client that revokes its refresh token ends the grant here and the authorization at the workspace', async () => {
    stack = await startStack({ autoConsent: 'write' });
    const { client, provider } = await signIn(stack);
    await whoami(client);
    const clientId = [...provider.creds.values()][0]?.client_id ?? '';
    const res = await revoke(stack.replica.url, clientId, provider.stored?.refresh_token ?? '');
    expect(res.status).toBe(200);
    const mcp = await fetch(`${stack.replica.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${provider.stored?.access_token}` } });
    expect(mcp.status).toBe(401);
    // Nothing is left to revoke at the workspace: the server ended its authorization there too.
    expect(stack.sandbox.oauth.revokeAuthorizations()).toBe(0);
    await client.close();
  });
});

describe('remote front: members', () => {
  it('two members signing in through one server each act as themselves, with the consent each gave at the workspace', async () => {
    stack = await startStack({ autoConsent: 'none' });
    const url = stack.replica.url;
    const session = async (email: string, consent: 'read' | 'write') => {
      const provider = new TestOAuthProvider();
      const mcpUrl = new URL('/mcp', url);
      await new Client({ name: 'm', version: '1' }).connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider })).catch(() => {});
      const back = await browse((provider.authorizationUrl as URL).href, provider.redirectUrl, 'allow', { email, consent });
      await new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }).finishAuth(back.searchParams);
      const client = new Client({ name: 'm', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
      return client;
    };
    const claire = await session('claire.dubois@atelier-conseil.fr', 'write');
    const marc = await session('marc.lefevre@atelier-conseil.fr', 'read');
    const [c, m] = [await whoami(claire), await whoami(marc)];
    expect(c).toMatchObject({ name: 'Claire Dubois', scope: 'write', workspaceTokenScope: 'write' });
    expect(m).toMatchObject({ name: 'Marc Lefèvre', scope: 'read', workspaceTokenScope: 'read' });
    expect(c.member).not.toBe(m.member);
    expect(c.budgetKey).not.toBe(m.budgetKey);
    // Interleaved calls keep each session on its own member.
    const again = await Promise.all([whoami(marc), whoami(claire), whoami(marc)]);
    expect(again.map((w) => w.name)).toEqual(['Marc Lefèvre', 'Claire Dubois', 'Marc Lefèvre']);
    await claire.close();
    await marc.close();
  });
});
