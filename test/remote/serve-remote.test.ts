import { type Client, UnauthorizedError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxOperations, toolListFor } from '../../bench/tokens.js';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import type { Era } from '../helpers/stack.js';
import { signInAutoConsent } from './deployment.js';
import { type LoneServeRemote, spawnLoneServeRemote, type TestOAuthProvider } from './helpers.js';

let sandbox: SandboxHandle;
let server: LoneServeRemote;
let mcpUrl: URL;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false, oauth: { autoConsent: 'write' }, logger: () => {} });
  server = await spawnLoneServeRemote(
    { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', WORKSPACE_URL: sandbox.url, LOG_LEVEL: 'info' },
    [/public URL (\S+)/],
    20_000,
  );
  mcpUrl = new URL(server.found[0] as string);
}, 30_000);

afterAll(async () => {
  await server?.stop();
  await sandbox?.close();
});

/** A client signed in as the sandbox's member, with the consent the sandbox gives. */
async function signedIn(era: Era): Promise<{ client: Client; provider: TestOAuthProvider }> {
  return signInAutoConsent(mcpUrl, era, 'remote-test');
}

describe('serve --remote', () => {
  it('answers an unauthenticated request 401 with where to find the authorization server', async () => {
    const res = await fetch(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain(`resource_metadata="${mcpUrl.origin}/.well-known/oauth-protected-resource/mcp"`);
    expect((await fetch(`${mcpUrl.origin}/healthz`)).status).toBe(200);
  });

  for (const era of ['legacy', 'modern'] as const) {
    it(`signs a member in and serves the whole default surface with their write consent (${era})`, async () => {
      sandbox.oauth.setAutoConsent('write');
      const { client } = await signedIn(era);
      try {
        expect(client.getProtocolEra()).toBe(era);
        const names = (await client.listTools()).tools.map((t) => t.name);
        // The whole default surface, as a local server with write access lists it.
        expect(names).toEqual(toolListFor({ toolsets: 'default', readOnly: false }, sandboxOperations()).tools.map((t) => t.name));
        expect(names).toEqual(expect.arrayContaining(['list_engagements', 'review_findings', 'publish_deliverable', 'call_operation']));
        const r = await client.callTool({ name: 'engagement_overview', arguments: { engagement: ENGAGEMENT_AP } });
        expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
      } finally {
        await client.close();
      }
    }, 60_000);
  }

  it('a member who consents to read gets the read-only surface, and a write is refused with nothing sent', async () => {
    sandbox.oauth.setAutoConsent('read');
    const { client } = await signedIn('modern');
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(0);
      expect(tools.filter((t) => t.annotations?.readOnlyHint !== true).map((t) => t.name)).toEqual([]);
      sandbox.clearRequests();
      const r = await client.callTool({ name: 'call_operation', arguments: { operation: 'publish_deliverable', arguments: { engagement: ENGAGEMENT_AP } } });
      expect(r.isError).toBe(true);
      expect(JSON.stringify(r.content)).toMatch(/granted read-only access/);
      expect(sandbox.requests().filter((q) => q.method !== 'GET')).toEqual([]);
    } finally {
      await client.close();
      sandbox.oauth.setAutoConsent('write');
    }
  }, 60_000);

  it('a grant revoked at the workspace ends the session: the call says so, the next request is asked to sign in again', async () => {
    const { client } = await signedIn('modern');
    try {
      expect((await client.callTool({ name: 'list_engagements', arguments: {} })).isError).toBeFalsy();
      sandbox.oauth.revokeAuthorizations();
      const r = await client.callTool({ name: 'list_engagements', arguments: {} });
      expect(r.isError).toBe(true);
      expect(JSON.stringify(r.content)).toMatch(/sign in again|refused/i);
      await expect(client.callTool({ name: 'list_engagements', arguments: {} })).rejects.toBeInstanceOf(UnauthorizedError);
    } finally {
      await client.close().catch(() => {});
    }
    expect(server.stderr()).not.toMatch(/pat_[A-Za-z0-9]{8}|wco_[A-Za-z0-9]{8}|wcm_[A-Za-z0-9]{8}/);
  }, 60_000);
});
