// Replicas of the remote front on one store: a session does not belong to the replica that started
// it. Sign-in steps, listing and calls land on different replicas behind a load balancer; one replica
// dies mid-session and no member signs in again; workspace tokens are refreshed once, whichever
// replicas need them at the same moment, and a refused refresh ends a grant only when the stored
// refresh token is still the one that failed.
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import type { StoredTokens } from '../../src/auth/token-store.js';
import { type GrantRecord, Grants } from '../../src/remote/grants.js';
import { SealedRecords } from '../../src/remote/records.js';
import { parseStateKey, Sealer } from '../../src/remote/sealing.js';
import { Upstream } from '../../src/remote/upstream.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { MemoryStore } from '../../src/store/memory.js';
import { browse, captureLogs, RecordingStore, type Replica, STATE_KEY, startBalancer, startReplica, TestOAuthProvider, type WhoAmI } from './helpers.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

async function sandboxFor(): Promise<SandboxHandle> {
  const sandbox = await startSandbox({ port: 0, oauth: { autoConsent: 'write' }, logger: () => {} });
  closers.push(() => sandbox.close());
  return sandbox;
}

/** Two replicas on one store behind one balancer, whose origin is the public URL of both. */
async function twoReplicas(sandbox: SandboxHandle, now: () => number = Date.now) {
  const store = new RecordingStore(new MemoryStore({ now }));
  const logs = captureLogs();
  const lb = await startBalancer();
  closers.push(() => lb.close());
  const replicas: Replica[] = [];
  for (let i = 0; i < 2; i++) {
    const r = await startReplica({
      publicUrl: lb.url,
      workspaceUrl: sandbox.url,
      workspaceApi: sandbox.api,
      store,
      stateKey: STATE_KEY,
      logger: logs.logger,
      now,
    });
    replicas.push(r);
    closers.push(() => r.close());
    lb.targets.push(`http://127.0.0.1:${(r.server.address() as { port: number }).port}`);
  }
  return { store, logs, replicas, lb };
}

async function whoami(client: Client): Promise<WhoAmI> {
  const r = await client.callTool({ name: 'whoami', arguments: {} });
  if (r.isError) throw new Error(JSON.stringify(r.content));
  return JSON.parse((r.content as { text: string }[])[0]?.text ?? '{}') as WhoAmI;
}

describe('replicas on one store', () => {
  it('a session started through one replica is served by the other (2026-07-28 era), and survives the death of a replica', async () => {
    const sandbox = await sandboxFor();
    const { lb, replicas } = await twoReplicas(sandbox);
    const mcpUrl = new URL('/mcp', lb.url);
    const provider = new TestOAuthProvider();
    const modern = () => new Client({ name: 'replica-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await expect(modern().connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }))).rejects.toBeInstanceOf(UnauthorizedError);
    const back = await browse((provider.authorizationUrl as URL).href, provider.redirectUrl);
    await new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }).finishAuth(back.searchParams);
    const client = modern();
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['whoami']);
    const first = await whoami(client);
    const second = await whoami(client);
    expect(second).toEqual(first);

    // Every step of the sign-in and of the session met both replicas.
    const [a, b] = lb.targets;
    const by = (prefix: string) => new Set(lb.served.filter((s) => s.path.startsWith(prefix)).map((s) => s.target));
    expect(by('/oauth/')).toEqual(new Set([a, b]));
    expect(by('/mcp')).toEqual(new Set([a, b]));

    // One replica dies mid-session: the other serves the member, who does not sign in again.
    await replicas[0]?.close();
    const authorizationBefore = provider.authorizationUrl;
    for (let i = 0; i < 3; i++) expect(await whoami(client)).toEqual(first);
    expect(provider.authorizationUrl).toBe(authorizationBefore);
    expect(lb.served.slice(-3).every((s) => s.target === b)).toBe(true);
    await client.close();
  });

  it('workspace tokens due on both replicas at once are refreshed once; every caller gets the new token', async () => {
    let offset = 0;
    const now = () => Date.now() + offset;
    const sandbox = await sandboxFor();
    const { lb, replicas, store } = await twoReplicas(sandbox, now);
    const mcpUrl = new URL('/mcp', lb.url);
    const provider = new TestOAuthProvider();
    await new Client({ name: 't', version: '1' }).connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider })).catch(() => {});
    await new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }).finishAuth(
      (await browse((provider.authorizationUrl as URL).href, provider.redirectUrl)).searchParams,
    );
    const grantId = store.written.find((w) => w.key.startsWith('remote:grant:'))?.key.slice('remote:grant:'.length) ?? '';
    const [ga, gb] = replicas.map((r) => r.front.grants);
    const before = await ga!.workspaceToken(grantId);

    // 59 minutes later the workspace token (60 min) is due for refresh on every replica.
    offset = 59.5 * 60 * 1000;
    const tokens = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? ga : gb)!.workspaceToken(grantId)));
    expect(new Set(tokens).size).toBe(1);
    expect(tokens[0]).not.toBe(before);
    const requests = sandbox.oauth.tokenRequests().filter((r) => r.grant_type === 'refresh_token');
    expect(requests).toEqual([expect.objectContaining({ ok: true })]);
    const me = await fetch(`${sandbox.api}/me`, { headers: { authorization: `Bearer ${tokens[0]}` } });
    expect(me.status).toBe(200);
  });
});

describe('a refused refresh', () => {
  it('does not end a grant whose stored refresh token another replica has already replaced', async () => {
    const sandbox = await sandboxFor();
    const store = new MemoryStore();
    const records = new SealedRecords(store, new Sealer(parseStateKey(STATE_KEY)));
    const logs = captureLogs();
    const callback = 'http://127.0.0.1:45999/oauth/callback';
    const upstream = new Upstream({ workspaceUrl: sandbox.url, callbackUrl: callback, clientName: 'replica test', records, logger: logs.logger });

    // A grant holding real workspace tokens (a sign-in at the sandbox, auto-consent).
    const start = await upstream.start('write');
    const answer = await fetch(start.url, { redirect: 'manual' });
    const tokens = await upstream.finish(
      { state: start.state, codeVerifier: start.codeVerifier, clientId: start.clientId, scope: 'write' },
      new URL(answer.headers.get('location') ?? '').searchParams,
    );
    const grants = new Grants({ records, upstream, logger: logs.logger, now: Date.now, ttlMs: 3600_000 });
    const record: GrantRecord = {
      memberId: 'm',
      upstreamClientId: start.clientId,
      clientId: 'c',
      scope: 'write',
      resource: 'r',
      workspace: tokens,
      createdAt: Date.now(),
    };
    const id = await grants.create(record, 3600_000);

    // Another replica refreshes first and stores its result while this one's refresh is on its way
    // with the old refresh token, which the workspace now refuses.
    let theirs: StoredTokens | undefined;
    const racing = Object.create(upstream) as Upstream;
    racing.refresh = async (clientId, current) => {
      theirs = await upstream.refresh(clientId, current);
      const stored = await grants.read(id);
      await records.replace('grant', id, stored!.raw, { ...stored!.value, workspace: theirs });
      return upstream.refresh(clientId, current);
    };
    const loser = new Grants({ records, upstream: racing, logger: logs.logger, now: Date.now, ttlMs: 3600_000 });
    const outcome = await loser.onWorkspaceUnauthorized(id, tokens.access_token);
    expect(outcome).toBe('refreshed');
    expect((await grants.read(id))?.value.workspace.refresh_token).toBe(theirs?.refresh_token);
    expect(
      sandbox.oauth
        .tokenRequests()
        .filter((r) => r.grant_type === 'refresh_token')
        .map((r) => r.ok),
    ).toEqual([true, false]);

    // When the stored refresh token is the one refused, the grant ends.
    sandbox.oauth.revokeAuthorizations();
    expect(await grants.onWorkspaceUnauthorized(id, theirs?.access_token)).toBe('ended');
    expect(await grants.read(id)).toBeUndefined();
  });
});
