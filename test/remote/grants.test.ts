// One grant, two writers at once: a replica refreshing the member's workspace tokens while the MCP
// client rotates its refresh token with another replica. Both writes are compare-and-set on the same
// record; neither may be lost (a lost workspace refresh token would end the member's session at its
// next refresh; a lost client rotation would read as a copied token and revoke everything).
import { afterEach, describe, expect, it } from 'vitest';
import { Grants } from '../../src/remote/grants.js';
import { SealedRecords } from '../../src/remote/records.js';
import { Sealer, parseStateKey } from '../../src/remote/sealing.js';
import { refreshTokenGrant } from '../../src/remote/tokens.js';
import { Upstream } from '../../src/remote/upstream.js';
import { STATE_KEY, startStack, token, tokensFor, type Stack } from './helpers.js';

let stack: Stack | undefined;
afterEach(async () => {
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
    const upstream = new Upstream({ workspaceUrl: stack.sandbox.url, callbackUrl: `${url}/oauth/callback`, clientName: 'x', records, logger: stack.logs.logger });
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
