// A member's 2025 session attacked with the other era's requests and after its sign-in ends, over two
// replicas of the real `serve --remote` on one real Redis (member-sessions.test.ts covers the 2025
// requests of another member):
// - A 2026-07-28 request naming another member's session id is served statelessly for its own sender
//   only, and its DELETE or GET neither ends nor takes the session: the owner goes on, on every replica.
// - Once the owner's sign-in is revoked, the session id opens nothing: their old token is refused 401,
//   another member's 404, on every replica, and nothing reaches the workspace.
// - A member's two sign-ins (two clients) stay apart: each one's calls go out with its own workspace
//   token, even while the other is busy on the same replica. One API client per member, its token the
//   latest request's, would let a call of one sign-in go out with the other's token: the workspace
//   would see the wrong authorization, and a sign-in revoked at the workspace could go on riding the
//   member's live one.
// - 2026 listen streams are capped per member on a replica: uncapped, one member could open as many
//   as the replica takes connections (4,096, shared by everyone), each holding a server, and lock everyone
//   else out. Past the cap a new one is refused 429; another member still listens.
// - Large bodies (uploads as content, up to about 35 MB each, held whole while read) are capped per
//   member on a replica: uncapped, one member sending many at once could hold the replica's memory.
import { describe, expect, it } from 'vitest';
import { MAX_LARGE_BODIES_PER_MEMBER, MAX_LISTENS_PER_MEMBER } from '../../src/remote/serve-remote.js';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { gate } from '../helpers/reached.js';
import { eraParams } from '../reliability/stdio-peer.js';
import { CLAIRE, type Deployment, legacyCall, MARC, postHeaders, raw, remoteFixture, toReplica } from './deployment.js';
import { revoke } from './helpers.js';

const remote = remoteFixture();
const { closers, deploy, signIn } = remote;

/** A 2026-07-28 request as `token`, naming `sessionId` all the same. */
function modernCall(token: string, sessionId: string, method: string, params: Record<string, unknown>, httpMethod = 'POST') {
  const headers: Record<string, string> = {
    authorization: `Bearer ${token}`,
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-session-id': sessionId,
  };
  if (httpMethod !== 'POST') return { method: httpMethod, headers };
  return {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', 'mcp-method': method, ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 9, method, params: eraParams('modern', params) }),
  };
}

const membersAt = (d: Deployment, template: string) =>
  new Set(
    d.sandbox
      .requests()
      .filter((r) => r.template === template)
      .map((r) => r.member_id),
  );

describe("a 2025 session against the other era's requests and a revoked sign-in", () => {
  it("a 2026 request naming another member's session acts for its sender only, and its DELETE or GET leaves the session to its owner, on every replica", async () => {
    const d = await deploy();
    const claire = await signIn(d, CLAIRE, 'write', 'legacy');
    const marc = await signIn(d, MARC, 'read', 'modern');
    const sessionId = claire.transport.sessionId as string;
    d.sandbox.clearRequests();
    await claire.client.callTool({ name: 'get_workspace', arguments: {} });
    const [claireId] = [...membersAt(d, '/workspace')];
    expect(claireId).toBeTruthy();

    for (const replica of [...d.replicas, ...d.replicas]) {
      const send = (spec: Parameters<typeof raw>[2]) => raw(replica.origin, d.lb.url, spec);
      d.sandbox.clearRequests();
      const called = await send(modernCall(marc.token, sessionId, 'tools/call', { name: 'list_engagements', arguments: {} }));
      expect(called.status, called.body).toBe(200);
      const seen = membersAt(d, '/engagements');
      expect(seen.size).toBe(1);
      expect(seen.has(claireId)).toBe(false);
      // Neither ends nor takes her session (whatever the era's answer to them is).
      const ended = await send(modernCall(marc.token, sessionId, '', {}, 'DELETE'));
      expect(ended.status).not.toBe(200);
      const stream = await send(modernCall(marc.token, sessionId, '', {}, 'GET'));
      expect(String(stream.headers['content-type'])).not.toMatch(/event-stream/);
    }
    // Her session is whole on both replicas.
    for (const replica of d.replicas) {
      const r = await raw(replica.origin, d.lb.url, legacyCall(claire.token, sessionId, 'tools/call', { name: 'get_workspace', arguments: {} }));
      expect(r.status, r.body).toBe(200);
      expect(r.body).not.toMatch(/"isError":true/);
    }
  }, 120_000);

  it("once the owner signs out, the session id opens nothing: 401 with their old token, 404 with another member's, nothing sent", async () => {
    const d = await deploy();
    const claire = await signIn(d, CLAIRE, 'write', 'legacy');
    const marc = await signIn(d, MARC, 'write', 'legacy');
    const sessionId = claire.transport.sessionId as string;
    const clientId = (claire.provider.clientInformation() as { client_id: string }).client_id;
    const revoked = await revoke(d.lb.url, clientId, claire.provider.stored?.refresh_token as string);
    expect(revoked.status).toBe(200);
    d.sandbox.clearRequests();
    for (const replica of [...d.replicas, ...d.replicas]) {
      for (const method of ['tools/list', 'tools/call']) {
        const params = method === 'tools/call' ? { name: 'create_finding', arguments: {} } : {};
        const own = await raw(replica.origin, d.lb.url, legacyCall(claire.token, sessionId, method, params));
        expect(own.status, own.body).toBe(401);
        const other = await raw(replica.origin, d.lb.url, legacyCall(marc.token, sessionId, method, params));
        expect(other.status, other.body).toBe(404);
      }
    }
    expect(d.sandbox.requests().filter((r) => r.path.startsWith('/api/v1/'))).toEqual([]);
  }, 120_000);
});

describe("one member's sign-ins", () => {
  it("each one's calls go out with its own workspace token, even while the other is busy on the same replica", async () => {
    const d = await deploy();
    d.lb.targets.splice(1);
    const first = await signIn(d, CLAIRE, 'write', 'modern');
    const second = await signIn(d, CLAIRE, 'write', 'modern');
    const tokenOf = async (m: typeof first) => {
      d.sandbox.clearRequests();
      await m.client.callTool({ name: 'get_workspace', arguments: {} });
      const seen = new Set(
        d.sandbox
          .requests()
          .filter((r) => r.template === '/workspace')
          .map((r) => r.token_id),
      );
      expect(seen.size).toBe(1);
      return [...seen][0];
    };
    const firstToken = await tokenOf(first);
    const secondToken = await tokenOf(second);
    expect(firstToken).toBeTruthy();
    expect(secondToken).not.toBe(firstToken);

    // The second sign-in's script is held in its first call while the first sign-in works.
    const held = gate();
    d.sandbox.admin.fault({ count: 1, match: { method: 'GET', path: '/engagements/{engagement}/findings' }, before: held.before });
    d.sandbox.clearRequests();
    const script = second.client.callTool({
      name: 'run_read_script',
      arguments: {
        script: `await api.list_findings({ engagement: ${JSON.stringify(ENGAGEMENT_AP)}, limit: 1 }); return (await api.get_engagement({ engagement: ${JSON.stringify(ENGAGEMENT_AP)} })).id;`,
      },
    });
    await held.held(1);
    await first.client.callTool({ name: 'list_engagements', arguments: {} });
    held.open();
    expect(((await script) as { isError?: boolean }).isError).toBeFalsy();
    const byTemplate = (t: string) =>
      d.sandbox
        .requests()
        .filter((r) => r.template === t)
        .map((r) => r.token_id);
    expect(byTemplate('/engagements')).toEqual([firstToken]);
    expect(byTemplate('/engagements/{engagement}/findings')).toEqual([secondToken]);
    expect(byTemplate('/engagements/{engagement}')).toEqual([secondToken]);
  }, 120_000);
});

/** A 2026 listen stream opened straight on a replica as `token`; kept open until `close()`. */
function listen(origin: string, publicUrl: string, token: string): Promise<{ status: number; type: string; close(): void }> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'subscriptions/listen',
    params: eraParams('modern', { notifications: { toolsListChanged: true } }),
  });
  return new Promise((resolve, reject) => {
    const req = toReplica(
      origin,
      publicUrl,
      {
        method: 'POST',
        headers: {
          ...postHeaders(token, '2026-07-28'),
          'mcp-method': 'subscriptions/listen',
        },
      },
      (res) => {
        res.on('error', () => {});
        if (!String(res.headers['content-type']).startsWith('text/event-stream')) res.resume();
        resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), close: () => res.destroy() });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('listen streams (2026)', () => {
  it("one member's are capped on a replica: past the cap a new one is refused 429, another member listens, and closing one makes room", async () => {
    const d = await deploy();
    const claire = await signIn(d, CLAIRE, 'write', 'modern');
    const marc = await signIn(d, MARC, 'read', 'modern');
    const [replica] = d.replicas as [Deployment['replicas'][number]];
    const open: Awaited<ReturnType<typeof listen>>[] = [];
    closers.push(async () => {
      for (const s of open) s.close();
    });
    let refused: Awaited<ReturnType<typeof listen>> | undefined;
    for (let i = 0; i < 3 * MAX_LISTENS_PER_MEMBER && !refused; i++) {
      const s = await listen(replica.origin, d.lb.url, claire.token);
      if (s.status === 200) open.push(s);
      else refused = s;
    }
    expect(refused?.status).toBe(429);
    // Her client's own stream may be on this replica too.
    expect(open.length).toBeGreaterThanOrEqual(MAX_LISTENS_PER_MEMBER - 1);
    expect(open.length).toBeLessThanOrEqual(MAX_LISTENS_PER_MEMBER);
    for (const s of open) expect(s.type).toMatch(/^text\/event-stream/);
    const his = await listen(replica.origin, d.lb.url, marc.token);
    open.push(his);
    expect(his.status).toBe(200);
    // Closed: the replica hears of it before it reads her next request, sent after.
    (open.shift() as { close(): void }).close();
    const again = await listen(replica.origin, d.lb.url, claire.token);
    open.push(again);
    expect(again.status).toBe(200);
  }, 120_000);
});

/** A POST to a replica declaring `length` bytes, of which only `sent` are written: held open until `abort()`. */
function heldBody(origin: string, publicUrl: string, token: string, length: number, sent: number) {
  let answered: (status: number) => void = () => {};
  const status = new Promise<number>((r) => {
    answered = r;
  });
  const req = toReplica(
    origin,
    publicUrl,
    {
      method: 'POST',
      headers: {
        ...postHeaders(token, '2025-11-25'),
        'content-length': String(length),
      },
    },
    (res) => {
      res.resume();
      answered(res.statusCode ?? 0);
    },
  );
  req.on('error', () => answered(-1));
  req.write(Buffer.alloc(sent, 0x20));
  return { status, abort: () => req.destroy() };
}

describe('large bodies', () => {
  it("one member's are capped on a replica: past the cap one is refused 429 before it is read; another member's is read", async () => {
    const d = await deploy();
    const claire = await signIn(d, CLAIRE, 'write', 'modern');
    const marc = await signIn(d, MARC, 'write', 'modern');
    const [replica] = d.replicas as [Deployment['replicas'][number]];
    const big = 20 * 1024 * 1024;
    // One more than the cap at once, not a byte of their bodies sent: whichever comes last is answered
    // at once, without its body, while the others hold their slots.
    const bodies = Array.from({ length: MAX_LARGE_BODIES_PER_MEMBER + 1 }, () => heldBody(replica.origin, d.lb.url, claire.token, big, 0));
    closers.push(async () => {
      for (const b of bodies) b.abort();
    });
    const first = await Promise.race(bodies.map((b, i) => b.status.then((status) => ({ i, status }))));
    expect(first.status).toBe(429);
    const held = bodies.filter((_, i) => i !== first.i);
    // Marc's large body is read and answered (a JSON-RPC error for its padding: it was read whole).
    const his = heldBody(replica.origin, d.lb.url, marc.token, 5 * 1024 * 1024, 5 * 1024 * 1024);
    expect(await his.status).toBe(400);
    // Once one of hers ends, her next one is read too: the replica hears of the end before it reads
    // the next request, sent after (nothing of the ended one's body was left to read first).
    (held.shift() as { abort(): void }).abort();
    const again = heldBody(replica.origin, d.lb.url, claire.token, 5 * 1024 * 1024, 5 * 1024 * 1024);
    expect(await again.status).toBe(400);
  }, 120_000);

  it('a body of unknown length that turns out small takes no slot while its call runs', async () => {
    const d = await deploy();
    const claire = await signIn(d, CLAIRE, 'write', 'modern');
    const [replica] = d.replicas as [Deployment['replicas'][number]];
    // Sent chunked (no Content-Length), as some proxies forward requests.
    const chunked = (name: string) => {
      return new Promise<number>((resolve, reject) => {
        const req = toReplica(
          replica.origin,
          d.lb.url,
          {
            method: 'POST',
            headers: {
              ...postHeaders(claire.token, '2026-07-28'),
              'mcp-method': 'tools/call',
              'mcp-name': name,
            },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        req.write(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: eraParams('modern', { name, arguments: {} }) }));
        req.end();
      });
    };
    const held = gate();
    d.sandbox.admin.fault({ count: MAX_LARGE_BODIES_PER_MEMBER, match: { method: 'GET', path: '/engagements' }, before: held.before });
    const running = Array.from({ length: MAX_LARGE_BODIES_PER_MEMBER }, () => chunked('list_engagements'));
    await held.held(MAX_LARGE_BODIES_PER_MEMBER);
    expect(await chunked('get_workspace')).toBe(200);
    held.open();
    expect(await Promise.all(running)).toEqual(running.map(() => 200));
  }, 120_000);
});
