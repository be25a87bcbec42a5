// One grant, two writers at once: a replica refreshing the member's workspace tokens while the MCP
// client rotates its refresh token with another replica. Both writes are compare-and-set on the same
// record; neither may be lost (a lost workspace refresh token would end the member's session at its
// next refresh; a lost client rotation would read as a copied token and revoke everything).
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Grants } from '../../src/remote/grants.js';
import { refreshTokenGrant } from '../../src/remote/issued-tokens.js';
import { SealedRecords } from '../../src/remote/records.js';
import { parseStateKey, Sealer } from '../../src/remote/sealing.js';
import { Upstream } from '../../src/remote/upstream.js';
import { STATE_KEY, type Stack, startReplica, startStack, token, tokensFor } from './helpers.js';

let stack: Stack | undefined;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  await stack?.close();
  stack = undefined;
});

describe('concurrent writes to one grant', () => {
  it('a workspace refresh and a client rotation landing together both survive', async () => {
    stack = await startStack({ autoConsent: 'write' });
    const url = stack.replica.url;
    const { clientId, tokens } = await tokensFor(url);
    const grantId = refreshTokenGrant(tokens.refresh_token as string) as string;

    const records = new SealedRecords(stack.store, new Sealer(parseStateKey(STATE_KEY)));
    const upstream = new Upstream({
      workspaceUrl: stack.sandbox.url,
      callbackUrl: `${url}/oauth/callback`,
      clientName: 'x',
      records,
      logger: stack.logs.logger,
    });
    let rotated: Record<string, string> | undefined;
    // While this replica's refresh is at the workspace, the client rotates its token on another one.
    const racing = Object.create(upstream) as Upstream;
    racing.refresh = async (id, current) => {
      rotated = (await token(url, { grant_type: 'refresh_token', client_id: clientId, refresh_token: tokens.refresh_token as string })).body;
      return upstream.refresh(id, current);
    };
    const grants = new Grants({ records, upstream: racing, logger: stack.logs.logger, now: Date.now, ttlMs: 3600_000 });
    const before = await grants.read(grantId);
    expect(await grants.onWorkspaceUnauthorized(grantId, before?.value.workspace.access_token)).toBe('refreshed');
    expect(rotated?.refresh_token).toMatch(/^wcm_rt_/);

    const after = await grants.read(grantId);
    // The workspace refresh was written (its tokens work at the workspace)...
    expect(after?.value.workspace.refresh_token).not.toBe(before?.value.workspace.refresh_token);
    const me = await fetch(`${stack.sandbox.api}/me`, { headers: { authorization: `Bearer ${after?.value.workspace.access_token}` } });
    expect(me.status).toBe(200);
    // ...and so was the client's rotation: its new refresh token is the current one.
    const again = await token(url, { grant_type: 'refresh_token', client_id: clientId, refresh_token: rotated?.refresh_token as string });
    expect(again.status).toBe(200);
  });
});

describe('rotating the state key', () => {
  it('with the previous key kept, sessions go on and what they write moves to the new key; without it, members sign in again', async () => {
    stack = await startStack({ autoConsent: 'write' });
    const s = stack;
    const publicHost = new URL(s.replica.url).host;
    const newKey = Buffer.alloc(32, 9).toString('base64');
    const replicaWith = async (keys: { stateKey: string; previousStateKeys?: string[] }) => {
      const r = await startReplica({
        workspaceUrl: s.sandbox.url,
        workspaceApi: s.sandbox.api,
        store: s.store,
        logger: s.logs.logger,
        publicUrl: s.replica.url,
        ...keys,
      });
      closers.push(() => r.close());
      return (r.server.address() as AddressInfo).port;
    };
    /** POST to one replica's port as the proxy would (the public Host). */
    const post = (port: number, path: string, headers: Record<string, string>, body: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers: { host: publicHost, ...headers } }, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        });
        req.on('error', reject);
        req.end(body);
      });
    const list = (port: number, access: string) =>
      post(
        port,
        '/mcp',
        { authorization: `Bearer ${access}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        }),
      );

    const first = await tokensFor(s.replica.url);
    const rotating = await replicaWith({ stateKey: newKey, previousStateKeys: [STATE_KEY] });
    expect((await list(rotating, first.tokens.access_token as string)).status).toBe(200);
    const refreshed = await post(
      rotating,
      '/oauth/token',
      { 'content-type': 'application/x-www-form-urlencoded' },
      new URLSearchParams({ grant_type: 'refresh_token', client_id: first.clientId, refresh_token: first.tokens.refresh_token as string }).toString(),
    );
    expect(refreshed.status).toBe(200);
    const access = (JSON.parse(refreshed.body) as { access_token: string }).access_token;

    // The refresh rewrote the grant under the new key: a replica that has only the new key serves it.
    const newOnly = await replicaWith({ stateKey: newKey });
    expect((await list(newOnly, access)).status).toBe(200);

    // A sign-in sealed with the old key only: without the previous key it reads as absent (401).
    const second = await tokensFor(s.replica.url);
    const refused = await list(newOnly, second.tokens.access_token as string);
    expect(refused.status).toBe(401);
    expect(s.logs.text()).toMatch(/"event":"remote.unreadable_record"/);
  });
});
