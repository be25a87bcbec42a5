// Faults of a firm deployment answered as retryable, in words a client can act on, over two replicas of
// the real `serve --remote` on a real Redis: Redis killed gives 503 with Retry-After on /mcp and
// temporarily_unavailable on the OAuth endpoints, and the replicas recover by themselves when it is
// back; the workspace's token endpoint failing a refresh (503, or no answer) is a tool error saying to
// retry; bodies over the limit are refused from their declared length, and an unauthenticated request
// never has more than a small body read; a redirect URI with user-info is refused at authorization.
import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { errorDetail } from '../../src/mcp/render/tool-result.js';
import { CLAIRE, type Deployment, legacyCall, raw, remoteFixture } from './deployment.js';
import { authorizeUrl, pkce, REDIRECT, register } from './helpers.js';

const remote = remoteFixture();
const { closers, deploy, signIn } = remote;

/** The test's own Redis clients carry a name; the replicas' stores' have none. */
const testClient = (url: string) => createClient({ url, name: 'test' });

/** The clients of the replicas' stores connected to Redis and past their handshake (HELLO 3). */
async function serverClients(redis: ReturnType<typeof testClient>): Promise<string[]> {
  const list = String(await redis.sendCommand(['CLIENT', 'LIST']));
  return list
    .split('\n')
    .filter((l) => / name= /.test(l) && / resp=3( |$)/.test(l))
    .map((l) => /(?:^| )addr=(\S+)/.exec(l)?.[1] as string);
}

/**
 * Resolves once `count` store clients are back on the restarted Redis, each past its handshake:
 * those already there, then each HELLO Redis reports to a MONITOR as it runs it. Redis sends a
 * client its answer to HELLO as it sends the monitor the command, so by the time a request of the
 * test's reaches a replica, the answer that makes its store ready is already there, read first.
 */
async function reconnected(url: string, count: number): Promise<void> {
  const monitor = testClient(url);
  await monitor.connect();
  try {
    const back = new Set<string>();
    let all = () => {};
    const allBack = new Promise<void>((resolve) => (all = resolve));
    const add = (addr: string) => {
      back.add(addr);
      if (back.size >= count) all();
    };
    await monitor.monitor((line) => {
      const hello = /^\S+ \[\d+ (\S+)\] "HELLO" "3"$/.exec(line);
      if (hello) add(hello[1] as string);
    });
    const probe = testClient(url);
    await probe.connect();
    for (const addr of await serverClients(probe)) add(addr);
    await probe.close();
    await allBack;
  } finally {
    await monitor.close();
  }
}

const textOf = (r: { content?: unknown }) => ((r.content as { type: string; text?: string }[] | undefined) ?? []).map((c) => c.text ?? '').join('\n');

describe('Redis unavailable', () => {
  it('answers 503 with Retry-After on /mcp and temporarily_unavailable on the OAuth endpoints, and the replicas recover without a restart', async () => {
    const d = await deploy();
    const claire = await signIn(d, CLAIRE, 'write', 'modern');
    expect((await claire.client.callTool({ name: 'get_workspace', arguments: {} })).isError).toBeFalsy();
    // What the replicas stored so far is written to disk, so the member's sign-in outlives the crash.
    const admin = testClient(remote.redis.url);
    await admin.connect();
    await admin.sendCommand(['SAVE']);
    const storeClients = (await serverClients(admin)).length;
    expect(storeClients).toBeGreaterThanOrEqual(d.replicas.length);
    await admin.close();
    await remote.redis.kill();
    // Started again even when this test fails midway: the others need it.
    let down = true;
    closers.unshift(async () => {
      if (down) await remote.redis.restart();
    });

    const latencies: number[] = [];
    const timed = async <T>(f: () => Promise<T>) => {
      const t = performance.now();
      const out = await f();
      latencies.push(performance.now() - t);
      return out;
    };
    for (const replica of d.replicas) {
      // A few more /mcp requests than checked, for the latency figure.
      for (let i = 0; i < 20; i++) await timed(() => raw(replica.origin, d.lb.url, legacyCall(claire.token, undefined, 'tools/list')));
      const mcp = await timed(() => raw(replica.origin, d.lb.url, legacyCall(claire.token, undefined, 'tools/list')));
      expect(mcp.status, mcp.body).toBe(503);
      expect(Number(mcp.headers['retry-after'])).toBeGreaterThan(0);
      expect(JSON.parse(mcp.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringMatching(/briefly unavailable/) } });

      const registration = await timed(() =>
        raw(replica.origin, d.lb.url, {
          method: 'POST',
          path: '/oauth/register',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ client_name: 'x', redirect_uris: [REDIRECT] }),
        }),
      );
      const tokenEndpoint = await timed(() =>
        raw(replica.origin, d.lb.url, {
          method: 'POST',
          path: '/oauth/token',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'refresh_token', client_id: 'mcp_x', refresh_token: 'wcm_rt_x' }).toString(),
        }),
      );
      const asked = new URL(authorizeUrl(d.lb.url, { response_type: 'code', client_id: 'mcp_x', redirect_uri: REDIRECT }));
      const authorization = await timed(() => raw(replica.origin, d.lb.url, { method: 'GET', path: asked.pathname + asked.search }));
      for (const oauth of [registration, tokenEndpoint, authorization]) {
        expect(oauth.status, oauth.body).toBe(503);
        expect(Number(oauth.headers['retry-after'])).toBeGreaterThan(0);
        expect(JSON.parse(oauth.body)).toMatchObject({ error: 'temporarily_unavailable' });
      }
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    process.stderr.write(
      `Redis down: ${latencies.length} answers 503, median ${sorted[Math.floor(sorted.length / 2)]?.toFixed(1)} ms, ` +
        `95th percentile ${sorted[Math.floor(sorted.length * 0.95)]?.toFixed(1)} ms, max ${sorted.at(-1)?.toFixed(1)} ms\n`,
    );

    // Back on the same port: the replicas reconnect by themselves, and the member carries on.
    await remote.redis.restart();
    down = false;
    await reconnected(remote.redis.url, storeClients);
    const answers = await Promise.all(d.replicas.map((r) => raw(r.origin, d.lb.url, legacyCall(claire.token, undefined, 'tools/list'))));
    expect(answers.map((a) => a.status)).toEqual(d.replicas.map(() => 200));
    const after = await claire.client.callTool({ name: 'get_workspace', arguments: {} });
    expect(after.isError, textOf(after)).toBeFalsy();
    for (const r of d.replicas) expect(r.child.exitCode).toBeNull();
  }, 120_000);
});

describe("the workspace's token endpoint failing a refresh", () => {
  for (const how of ['unavailable', 'hang'] as const) {
    it(`a refresh answered ${how === 'hang' ? 'never' : '503'} is a tool error saying the workspace is briefly unavailable and to retry`, async () => {
      const d = await deploy();
      const claire = await signIn(d, CLAIRE, 'write', 'legacy');
      expect((await claire.client.callTool({ name: 'get_workspace', arguments: {} })).isError).toBeFalsy();
      // The workspace's access token ends early; the refresh it calls for fails.
      d.sandbox.oauth.expireAccessTokens();
      d.sandbox.oauth.failRefreshes(how);
      const t = performance.now();
      const failed = await claire.client.callTool({ name: 'get_workspace', arguments: {} });
      process.stderr.write(`refresh ${how}: tool error after ${(performance.now() - t).toFixed(0)} ms\n`);
      expect(failed.isError).toBe(true);
      expect(textOf(failed)).toMatch(/briefly unavailable/);
      expect(textOf(failed)).toMatch(/retry|call again/i);
      expect(errorDetail(failed)).toMatchObject({ status: 503, code: 'workspace.briefly_unavailable' });
      // The workspace is back: the same call works, no new sign-in.
      d.sandbox.oauth.failRefreshes(undefined);
      const again = await claire.client.callTool({ name: 'get_workspace', arguments: {} });
      expect(again.isError, textOf(again)).toBeFalsy();
    }, 120_000);
  }
});

/** The head of a JSON POST to /mcp declaring `declared` bytes of body, written by hand. */
function postHead(publicUrl: string, headers: Record<string, string>, declared: number): string {
  return [
    'POST /mcp HTTP/1.1',
    `Host: ${new URL(publicUrl).host}`,
    'Content-Type: application/json',
    `Content-Length: ${declared}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    '',
    '',
  ].join('\r\n');
}

/**
 * A POST to /mcp declaring `declared` bytes, sent raw to a replica: the body streams in 64 KiB chunks
 * until the server answers and then, to see whether it keeps reading, up to `maxBytes` in all.
 */
function hugePost(origin: string, publicUrl: string, headers: Record<string, string>, declared: number, maxBytes: number) {
  const u = new URL(origin);
  return new Promise<{ status: number; written: number; closedByServer: boolean }>((resolve) => {
    const socket = connect(Number(u.port), u.hostname);
    let answer = '';
    let written = 0;
    let closed = false;
    const head = postHead(publicUrl, { Accept: 'application/json, text/event-stream', ...headers }, declared);
    const finish = () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0), written, closedByServer: closed });
    socket.on('data', (c) => (answer += c.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      closed = true;
      finish();
    });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const pump = () => {
      while (!closed && written < maxBytes) {
        written += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
      if (!closed) {
        // All sent (more than any socket buffer holds) and the connection still open: the server read it all.
        socket.removeAllListeners('close');
        socket.destroy();
        finish();
      }
    };
    socket.write(head, pump);
  });
}

/**
 * The same POST from a client that reads nothing while it sends: it writes until the server stops
 * reading (no drain for `stallMs`), and only then reads what came back. A server that closed with
 * the body unread sent a reset, which throws away the answer waiting unread: the client found none
 * (status 0) before the close lingered.
 */
function hugePostReadLate(origin: string, publicUrl: string, headers: Record<string, string>, declared: number, stallMs: number) {
  const u = new URL(origin);
  return new Promise<{ status: number }>((resolve) => {
    const socket = connect(Number(u.port), u.hostname);
    socket.pause();
    let answer = '';
    const head = postHead(publicUrl, headers, declared);
    // Writing on after the server's close fails (EPIPE): expected, the answer is what matters.
    socket.on('error', () => {});
    socket.on('close', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0) }));
    const readNow = () => {
      socket.on('data', (c) => (answer += c.toString('latin1')));
      socket.resume();
    };
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let stall: NodeJS.Timeout | undefined;
    const pump = () => {
      clearTimeout(stall);
      while (!socket.destroyed) {
        if (!socket.write(chunk)) {
          stall = setTimeout(readNow, stallMs);
          return void socket.once('drain', pump);
        }
      }
    };
    socket.write(head, pump);
  });
}

describe('request bodies', () => {
  it('a body declared over the limit is refused 413 from its Content-Length, and the connection closed without reading it', async () => {
    const d = await deploy();
    const claire = await signIn(d, CLAIRE, 'write', 'modern');
    const [replica] = d.replicas as [Deployment['replicas'][number]];
    const r = await hugePost(replica.origin, d.lb.url, { Authorization: `Bearer ${claire.token}` }, 100 * 1024 * 1024, 32 * 1024 * 1024);
    process.stderr.write(`declared 100 MB with a token: HTTP ${r.status}, ${(r.written / 1024 / 1024).toFixed(1)} MB sent before the server closed\n`);
    expect(r.status).toBe(413);
    expect(r.closedByServer).toBe(true);
  }, 120_000);

  it('a client still sending when refused gets its 413 all the same: the server closes lingering, not with a reset', async () => {
    const d = await deploy();
    const claire = await signIn(d, CLAIRE, 'write', 'modern');
    const [replica] = d.replicas as [Deployment['replicas'][number]];
    const r = await hugePostReadLate(replica.origin, d.lb.url, { Authorization: `Bearer ${claire.token}` }, 100 * 1024 * 1024, 300);
    expect(r.status).toBe(413);
    const anonymous = await hugePostReadLate(replica.origin, d.lb.url, {}, 64 * 1024 * 1024, 300);
    expect(anonymous.status).toBe(401);
  }, 120_000);

  it('an unauthenticated request is answered 401 without its body being read: the connection closes', async () => {
    const d = await deploy();
    const [replica] = d.replicas as [Deployment['replicas'][number]];
    const r = await hugePost(replica.origin, d.lb.url, {}, 64 * 1024 * 1024, 64 * 1024 * 1024);
    process.stderr.write(`declared 64 MB without a token: HTTP ${r.status}, ${(r.written / 1024 / 1024).toFixed(1)} MB sent before the server closed\n`);
    expect(r.status).toBe(401);
    expect(r.closedByServer).toBe(true);
  }, 120_000);
});

describe('redirect URIs at authorization', () => {
  it('a loopback redirect with user-info does not match the registered one', async () => {
    const d = await deploy();
    const clientId = await register(d.lb.url);
    const { challenge } = pkce();
    const port = new URL(REDIRECT).port;
    for (const asked of [`http://x@127.0.0.1:${port}/callback`, `http://x:y@127.0.0.1:${port}/callback`, 'http://evil@127.0.0.1:50123/callback']) {
      const res = await fetch(
        authorizeUrl(d.lb.url, { response_type: 'code', client_id: clientId, redirect_uri: asked, code_challenge: challenge, code_challenge_method: 'S256' }),
        { redirect: 'manual' },
      );
      expect(res.status, asked).toBe(400);
      expect(res.headers.get('location'), asked).toBeNull();
      expect(await res.text()).toMatch(/Unknown redirect/);
    }
  }, 60_000);
});
