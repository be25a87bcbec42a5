// 2025-era sessions belong to the member, consent and client that opened them, over two replicas of
// the real `serve --remote` on one Redis: another member naming one is answered 404 (POST, GET,
// DELETE) by every replica, the one holding it or not, and nothing of theirs reaches the workspace
// with the owner's token; a read-consent member never lists nor runs the owner's write tools. 2026
// requests, stateless, act for the member of each request. Limits are per member: one member opening
// many sessions evicts only their own.
import { describe, expect, it } from 'vitest';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { CLAIRE, type Deployment, legacyCall, MARC, openStream, raw, remoteFixture } from './deployment.js';
import { codeSignIn, register, revoke } from './helpers.js';

const remote = remoteFixture();
const { closers, deploy, signIn } = remote;

/**
 * The member ids the workspace saw since the log was cleared, on requests to `template` (the replica's
 * own background reads, such as the live description, are not the member's calls).
 */
const membersSeen = (d: Deployment, template = '/engagements') =>
  new Set(
    d.sandbox
      .requests()
      .filter((r) => r.template === template)
      .map((r) => r.member_id),
  );

/** Requests the members' calls make (reads of engagements, any write), the replicas' own reads aside. */
const memberCalls = (d: Deployment) => d.sandbox.requests().filter((r) => r.method !== 'GET' || r.template?.startsWith('/engagements'));

describe("a 2025 session is its member's", () => {
  it("another member naming it is answered 404 for POST, GET and DELETE on every replica, and the workspace never sees the owner's token", async () => {
    const d = await deploy();
    const claire = await signIn(d, CLAIRE, 'write', 'legacy');
    const marc = await signIn(d, MARC, 'read', 'legacy');
    const sessionId = claire.transport.sessionId as string;
    expect(sessionId).toBeTruthy();
    // Who each is, as the workspace sees them.
    d.sandbox.clearRequests();
    await claire.client.callTool({ name: 'list_engagements', arguments: {} });
    const [claireId] = [...membersSeen(d)];
    d.sandbox.clearRequests();
    await marc.client.callTool({ name: 'list_engagements', arguments: {} });
    const [marcId] = [...membersSeen(d)];
    expect(claireId).toBeTruthy();
    expect(marcId).not.toBe(claireId);

    d.sandbox.clearRequests();
    // Each replica, whether it holds Claire's session or not, twice (the balancer's turn aside).
    for (const replica of [...d.replicas, ...d.replicas]) {
      const send = (spec: Parameters<typeof raw>[2]) => raw(replica.origin, d.lb.url, spec);
      const listed = await send(legacyCall(marc.token, sessionId, 'tools/list'));
      expect(listed.status, listed.body).toBe(404);
      const read = await send(legacyCall(marc.token, sessionId, 'tools/call', { name: 'list_engagements', arguments: {} }));
      expect(read.status, read.body).toBe(404);
      // Marc consented to read only: Claire's session would have run the write with her token.
      const write = await send(
        legacyCall(marc.token, sessionId, 'tools/call', {
          name: 'call_operation',
          arguments: { operation: 'create_finding', arguments: { engagement: ENGAGEMENT_AP, type: 'risk', statement: 'written through a session not his' } },
        }),
      );
      expect(write.status, write.body).toBe(404);
      const stream = await send({
        method: 'GET',
        headers: { authorization: `Bearer ${marc.token}`, accept: 'text/event-stream', 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': sessionId },
      });
      expect(stream.status, stream.body).toBe(404);
      const ended = await send({
        method: 'DELETE',
        headers: { authorization: `Bearer ${marc.token}`, 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': sessionId },
      });
      expect(ended.status, ended.body).toBe(404);
    }
    // Nothing reached the workspace, least of all with Claire's token; no write landed.
    expect(memberCalls(d)).toEqual([]);

    // Claire's session is untouched: not ended, its tools hers (the write tools of her consent).
    const tools = (await claire.client.listTools()).tools.map((t) => t.name);
    expect(tools).toContain('call_operation');
    const again = await claire.client.callTool({ name: 'list_engagements', arguments: {} });
    expect(again.isError, JSON.stringify(again.content)).toBeFalsy();
    expect(membersSeen(d)).toEqual(new Set([claireId]));
    // And Marc, in his own session, still lists reads only.
    const marcTools = (await marc.client.listTools()).tools;
    expect(marcTools.filter((t) => t.annotations?.readOnlyHint !== true).map((t) => t.name)).toEqual([]);
  }, 120_000);

  it("another member cannot take the session's event stream: refused 404, the owner then opens it", async () => {
    const d = await deploy();
    const claire = await signIn(d, CLAIRE, 'write', 'legacy');
    const marc = await signIn(d, MARC, 'read', 'legacy');
    const [replica] = d.replicas as [Deployment['replicas'][number]];
    // A session of Claire's held by this replica, its stream not yet open.
    const opened = await raw(
      replica.origin,
      d.lb.url,
      legacyCall(claire.token, undefined, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } }),
    );
    const sessionId = opened.headers['mcp-session-id'] as string;
    const taken = await openStream(replica.origin, d.lb.url, marc.token, sessionId);
    closers.push(async () => taken.close());
    expect(taken.status).toBe(404);
    const own = await openStream(replica.origin, d.lb.url, claire.token, sessionId);
    closers.push(async () => own.close());
    expect(own.status).toBe(200);
  }, 120_000);

  it('the member is resolved on every request: a session opened with a sign-in since ended goes on with the current one', async () => {
    const d = await deploy();
    // One client, one member, one consent, signed in twice: two grants.
    const clientId = await register(d.lb.url);
    const signIn = async () => {
      const t = await codeSignIn(d.lb.url, clientId, { email: CLAIRE, consent: 'write' });
      expect(t.status).toBe(200);
      return t.body as { access_token: string; refresh_token: string };
    };
    const first = await signIn();
    const [replica] = d.replicas as [Deployment['replicas'][number]];
    const opened = await raw(
      replica.origin,
      d.lb.url,
      legacyCall(first.access_token, undefined, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } }),
    );
    const sessionId = opened.headers['mcp-session-id'] as string;
    const second = await signIn();
    // The first sign-in ends (the client revokes it): its grant and workspace authorization are gone.
    const revoked = await revoke(d.lb.url, clientId, first.refresh_token);
    expect(revoked.status).toBe(200);
    const call = await raw(replica.origin, d.lb.url, legacyCall(second.access_token, sessionId, 'tools/call', { name: 'get_workspace', arguments: {} }));
    expect(call.status, call.body).toBe(200);
    expect(call.body).not.toMatch(/"isError":true/);
    expect(call.body).toMatch(/"structuredContent"/);
  }, 120_000);

  it("the owner's own request with another consent or client is another principal: 404 too", async () => {
    const d = await deploy();
    const writer = await signIn(d, CLAIRE, 'write', 'legacy');
    // The same member, signed in again through another client with read consent.
    const reader = await signIn(d, CLAIRE, 'read', 'legacy');
    const sessionId = writer.transport.sessionId as string;
    d.sandbox.clearRequests();
    for (const replica of d.replicas) {
      const r = await raw(replica.origin, d.lb.url, legacyCall(reader.token, sessionId, 'tools/list'));
      expect(r.status, r.body).toBe(404);
    }
    expect(memberCalls(d)).toEqual([]);
  }, 120_000);

  it('2026 requests are stateless: each acts for the member who sent it, interleaved on both replicas', async () => {
    const d = await deploy();
    const claire = await signIn(d, CLAIRE, 'write', 'modern');
    const marc = await signIn(d, MARC, 'read', 'modern');
    d.sandbox.clearRequests();
    await claire.client.callTool({ name: 'get_workspace', arguments: {} });
    const [claireId] = [...membersSeen(d, '/workspace')];
    d.sandbox.clearRequests();
    await marc.client.callTool({ name: 'get_workspace', arguments: {} });
    const [marcId] = [...membersSeen(d, '/workspace')];
    expect(claireId).toBeTruthy();
    expect(marcId).not.toBe(claireId);
    for (let i = 0; i < 3; i++) {
      d.sandbox.clearRequests();
      await claire.client.callTool({ name: 'list_engagements', arguments: {} });
      expect(membersSeen(d)).toEqual(new Set([claireId]));
      d.sandbox.clearRequests();
      await marc.client.callTool({ name: 'list_engagements', arguments: {} });
      expect(membersSeen(d)).toEqual(new Set([marcId]));
    }
  }, 120_000);
});

describe('session limits are per member', () => {
  it("one member opening 230 sessions on a replica evicts only their own: another member's session stays", async () => {
    const d = await deploy();
    const claire = await signIn(d, CLAIRE, 'write', 'legacy');
    const marc = await signIn(d, MARC, 'read', 'legacy');
    const [replica] = d.replicas as [Deployment['replicas'][number]];
    const initialize = (token: string) =>
      raw(
        replica.origin,
        d.lb.url,
        legacyCall(token, undefined, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'many', version: '1' } }),
      );
    // Marc's session, held by this replica.
    const opened = await initialize(marc.token);
    expect(opened.status, opened.body).toBe(200);
    const marcSession = opened.headers['mcp-session-id'] as string;
    const held = () =>
      raw(replica.origin, d.lb.url, {
        method: 'GET',
        headers: { authorization: `Bearer ${marc.token}`, accept: 'text/event-stream', 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': marcSession },
      });
    // A replica serves the event stream of a session it holds (200), and has none for one it does not (405).
    expect((await held()).status).toBe(200);
    const first: string[] = [];
    for (let i = 0; i < 230; i++) {
      const r = await initialize(claire.token);
      expect(r.status, r.body).toBe(200);
      if (i < 5) first.push(r.headers['mcp-session-id'] as string);
    }
    expect((await held()).status).toBe(200);
    // Claire's own oldest sessions made room for her newest.
    for (const id of first) {
      const r = await raw(replica.origin, d.lb.url, {
        method: 'GET',
        headers: { authorization: `Bearer ${claire.token}`, accept: 'text/event-stream', 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': id },
      });
      expect(r.status).toBe(405);
    }
  }, 180_000);
});
