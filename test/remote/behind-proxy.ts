// The deployment's proxy as shipped (deploy/), run by the real program in front of two replicas of the
// real CLI's `serve --remote` on one real Redis, in front of the sandbox whose OAuth consents by
// itself. The tests of test/remote/caddy.test.ts (deploy/Caddyfile) and test/remote/haproxy.test.ts
// (deploy/haproxy.cfg), written once: the file is the shipped one but for its upstream addresses and
// the lines a test run puts first (test/helpers/proxy.ts; the first test holds it to that). The public
// origin is http://localhost:PORT, as a trial on one machine sets it, and the replicas'
// WORKSPACE_PUBLIC_URL is that same origin. Everything goes through the proxy, as a member's MCP client
// (SDK v2, Streamable HTTP, OAuth) and browser would:
// - the sign-in is found from the 401 and made through the proxy; tools are listed and a read is called;
// - a job's progress notifications come through as they are sent, before the answer (not buffered);
// - the Host header reaches the replicas as the client sent it;
// - one replica killed mid-session: the next calls are served by the other, nobody signs in again;
// - the proxy's active health checks (/readyz) take out a replica whose Redis is gone.
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { CallToolResult, Progress } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { logged } from '../helpers/logged.js';
import { freePort } from '../helpers/programs.js';
import { PortTakenError, type ProxyHandle, SHIPPED_UPSTREAMS } from '../helpers/proxy.js';
import { type RedisHandle, startRedis } from '../helpers/redis.js';
import { ROOT } from '../helpers/spawn.js';
import type { Era } from '../helpers/stack.js';
import { signInAutoConsent } from './deployment.js';
import { DEFAULT_SURFACE_TOOLS, type ServeRemote, spawnServeRemote, type TestOAuthProvider } from './helpers.js';

type Json = Record<string, any>;
const RUNS = '/engagements/{engagement}/analysis/runs';
// A job is polled within a quarter of the member's rate window: over a 6 s window, every 0.2 to 1 s
// (instead of 2 to 10 s over a minute), so a run's progress moves within the test's patience. The
// sandbox keeps its real clock: an analysis run lasts 90 s, far longer than any test here waits.
const REPLICA_ENV = { WORKSPACE_RATE_LIMIT: '120/6', WORKSPACE_JOB_WAIT_SECONDS: '60' };

/** A proxy of the deployment, as the shared tests need it. */
export interface ProxyUnderTest {
  /** As the tests name it: "Caddy", "HAProxy". */
  name: string;
  /** The shipped file, from the repository's root: deploy/Caddyfile. */
  file: string;
  /** The lines a test run puts before the shipped file's text. */
  prefix: readonly string[];
  /** Fails, saying how to install it, when the program is missing: called before anything starts. */
  find(): void;
  start(opts: { port: number; upstreams: string[] }): Promise<ProxyHandle>;
  /** Resolves once the proxy has taken the replica at `address` (host:port) out after its /readyz answered 503. */
  takenOutAfter503(proxy: ProxyHandle, address: string): Promise<void>;
  /** Why a replica killed mid-session is noticed behind the proxy installed here (that test then skips, saying so); undefined when it is not. */
  failoverGap(): string | undefined;
}

export interface Deployment {
  proxy: ProxyHandle;
  replicas: ServeRemote[];
  mcpUrl: URL;
}

interface Member {
  client: Client;
  provider: TestOAuthProvider;
}

/** What a file adds to the shared tests: the main deployment, its members, and its sandbox. */
export interface BehindProxy {
  main(): Deployment;
  sandbox(): SandboxHandle;
  /** The members signed in so far, by era (a test may close them and take them out). */
  members: Map<Era, Promise<Member>>;
}

/** Resolves once `done` holds of what `r` wrote to stderr; fails after 10 s, naming `what`. */
async function replicaLogged(r: ServeRemote, done: (stderr: string) => boolean, what: string): Promise<void> {
  await logged(r.child, r.stderr, done, what, 10_000);
}

/** SIGKILL, the process gone (its sockets closed) when this resolves. */
export async function kill(r: ServeRemote): Promise<void> {
  const gone = new Promise((resolve) => r.child.once('exit', resolve));
  r.child.kill('SIGKILL');
  await gone;
}

/** A request straight to an address, with the Host header given (fetch does not let a caller set Host). */
export function rawRequest(
  url: string,
  opts: { method?: string; host?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: u.hostname, port: u.port, method: opts.method ?? 'GET', path: u.pathname + u.search, headers: { host: opts.host ?? u.host, ...opts.headers } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

const ERAS: { era: Era; label: string }[] = [
  { era: 'modern', label: '2026-07-28' },
  { era: 'legacy', label: '2025-11-25' },
];

/** Registers the shared tests of `proxy` (call once, at a file's top level). */
export function describeBehindProxy(proxy: ProxyUnderTest): BehindProxy {
  let redis: RedisHandle;
  let sandbox: SandboxHandle;
  let main: Deployment;
  const cleanups: (() => Promise<unknown>)[] = [];
  const members = new Map<Era, Promise<Member>>();

  /**
   * Replicas answering for http://localhost:PORT (started by `replicas`, which registers their
   * cleanup), then the proxy on PORT in front of them. A port found free and taken before the proxy
   * binds it (another program on this machine): everything again on another port.
   */
  async function deploy(replicas: (publicUrl: string) => Promise<ServeRemote[]>): Promise<Deployment> {
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const started = await replicas(`http://localhost:${port}`);
      try {
        const handle = await proxy.start({ port, upstreams: started.map((r) => new URL(r.origin).host) });
        cleanups.push(() => handle.stop());
        return { proxy: handle, replicas: started, mcpUrl: new URL('/mcp', handle.origin) };
      } catch (err) {
        if (!(err instanceof PortTakenError) || attempt >= 3) throw err;
        for (const r of started) await r.stop();
      }
    }
  }

  async function replica(publicUrl: string, redisUrl: string): Promise<ServeRemote> {
    const r = await spawnServeRemote({ workspaceUrl: sandbox.url, publicUrl, redisUrl, extra: REPLICA_ENV });
    cleanups.push(r.stop);
    return r;
  }

  /** The era's member, signed in through the proxy once for the file (the first test that needs one signs in): the 401, discovery, registration, PKCE, the consent. */
  function member(era: Era): Promise<Member> {
    let m = members.get(era);
    if (!m) {
      m = signInAutoConsent(main.mcpUrl, era, `${proxy.name.toLowerCase()}-test`).then((signedIn) => {
        cleanups.push(() => signedIn.client.close());
        return signedIn;
      });
      members.set(era, m);
    }
    return m;
  }

  beforeAll(async () => {
    // Before anything starts: no proxy is a failure that says how to get one.
    proxy.find();
    redis = await startRedis();
    cleanups.push(() => redis.stop());
    sandbox = await startSandbox({ port: 0, rateLimit: false, oauth: { autoConsent: 'write' }, logger: () => {} });
    cleanups.push(() => sandbox.close());
    main = await deploy((publicUrl) => Promise.all([replica(publicUrl, redis.url), replica(publicUrl, redis.url)]));
  }, 60_000);

  afterAll(async () => {
    // In the reverse order of starting: clients before the proxy and replicas they use, Redis last.
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
  });

  describe(`${proxy.file} in a real ${proxy.name}, in front of two replicas of serve --remote`, () => {
    it('runs the shipped file: only the upstream addresses differ, after the lines a test run puts first', () => {
      const shipped = readFileSync(join(ROOT, proxy.file), 'utf8').split('\n');
      const ran = main.proxy.configText.split('\n');
      expect(ran.slice(0, proxy.prefix.length)).toEqual(proxy.prefix);
      const rest = ran.slice(proxy.prefix.length);
      expect(rest).toHaveLength(shipped.length);
      const upstreams = main.replicas.map((r) => new URL(r.origin).host);
      const changed = shipped.flatMap((line, i) => (line === rest[i] ? [] : [i]));
      // Each changed line is a line naming the compose services, with the replicas' addresses instead.
      expect(changed.length).toBeGreaterThan(0);
      for (const at of changed) {
        const line = shipped[at] as string;
        expect(
          SHIPPED_UPSTREAMS.some((a) => line.includes(a)),
          line,
        ).toBe(true);
        expect(rest[at]).toBe(SHIPPED_UPSTREAMS.reduce((l, a, i) => l.replace(a, upstreams[i] as string), line));
      }
    });

    for (const { era, label } of ERAS) {
      it(`a ${label} client finds the sign-in from the 401, signs in, lists the tools and calls a read, all through ${proxy.name}`, async () => {
        // What the client meets first: the 401 and its pointer to the metadata, on the public origin.
        const bare = await fetch(main.mcpUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        });
        expect(bare.status).toBe(401);
        await bare.body?.cancel();
        const metadataUrl = `${main.proxy.origin}/.well-known/oauth-protected-resource/mcp`;
        expect(bare.headers.get('www-authenticate')).toContain(`resource_metadata="${metadataUrl}"`);
        const prm = (await (await fetch(metadataUrl)).json()) as Json;
        expect(prm).toMatchObject({ resource: main.mcpUrl.href, authorization_servers: [main.proxy.origin] });

        const { client, provider } = await member(era);
        // The client knows no address but the public origin: the sign-in went through the proxy.
        expect((provider.authorizationUrl as URL).origin).toBe(main.proxy.origin);
        expect(provider.tokens()?.access_token).toEqual(expect.any(String));
        const names = (await client.listTools()).tools.map((t) => t.name);
        expect(names).toHaveLength(DEFAULT_SURFACE_TOOLS);
        expect(names).toContain('list_findings');
        const r = (await client.callTool({ name: 'list_findings', arguments: { engagement: ENGAGEMENT_AP, limit: 3 } })) as CallToolResult;
        expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
        const items = (r.structuredContent as Json).items as Json[];
        expect(items).toHaveLength(3);
        for (const f of items) expect(f.engagement_id).toBe(ENGAGEMENT_AP);
      });
    }

    for (const { era, label } of ERAS) {
      it(`a ${label} client hears a job's progress through ${proxy.name} while the job runs, before the answer`, async () => {
        const { client } = await member(era);
        const seen: Progress[] = [];
        let secondHeard = () => {};
        const twoHeard = new Promise<void>((resolve) => (secondHeard = resolve));
        let answered = false;
        const result = client.callTool(
          { name: 'start_analysis_run', arguments: { engagement: ENGAGEMENT_AP, mode: 'incremental' } },
          {
            onprogress: (p: Progress) => {
              seen.push(p);
              if (seen.length >= 2) secondHeard();
            },
            timeout: 120_000,
          },
        ) as Promise<CallToolResult>;
        void result.then(
          () => (answered = true),
          () => (answered = true),
        );
        // The start's notification and one from a later poll: each reached the client on its own.
        await twoHeard;
        expect(answered).toBe(false);
        // The run (90 s) is still going, and goes on until it is cancelled at the workspace: an answer
        // that says "cancelled" was written after the notifications had reached the client.
        const runs = await fetch(`${sandbox.api}/engagements/${ENGAGEMENT_AP}/analysis/runs`, { headers: { authorization: `Bearer ${sandbox.tokens.read}` } });
        const run = ((await runs.json()) as { data: Json[] }).data[0] as Json;
        expect(['queued', 'running']).toContain(run.status);
        const cancel = await fetch(`${sandbox.api}/engagements/${ENGAGEMENT_AP}/analysis/runs/${run.id}/cancel`, {
          method: 'POST',
          headers: { authorization: `Bearer ${sandbox.tokens.write}` },
        });
        expect(cancel.status).toBe(200);
        const r = await result;
        expect(r.structuredContent).toMatchObject({ state: 'cancelled', job: { id: run.id, kind: 'analysis run', status: 'cancelled' } });
        const values = seen.map((p) => p.progress);
        for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1] as number);
        expect(sandbox.requests().some((q) => q.method === 'GET' && q.template === `${RUNS}/{run}`)).toBe(true);
      });
    }

    it('passes the Host header on as the client sent it: the replicas judge it, and refuse a foreign one', async () => {
      const path = '/.well-known/oauth-authorization-server';
      const proxyAddress = `http://127.0.0.1:${main.proxy.port}${path}`;
      // The public host: served, the issuer being the public origin.
      const ok = await rawRequest(proxyAddress, { host: `localhost:${main.proxy.port}` });
      expect(ok.status).toBe(200);
      expect(JSON.parse(ok.body)).toMatchObject({ issuer: main.proxy.origin });
      // Another port of the same name: the proxy passes it on (Caddy's site matches host names, not
      // ports; HAProxy does not look); the replica sees that Host and refuses it in its own words.
      const foreign = await rawRequest(proxyAddress, { host: 'localhost:1' });
      expect(foreign.status).toBe(421);
      expect(JSON.parse(foreign.body)).toMatchObject({
        error: 'invalid_request',
        error_description: expect.stringContaining(`answers for localhost:${main.proxy.port} only`),
      });
    });

    it('one replica killed mid-session: the next calls are served by the other, and nobody signs in again', async (ctx) => {
      const gap = proxy.failoverGap();
      ctx.skip(gap !== undefined, gap);
      const signedIn = await Promise.all(ERAS.map(({ era }) => member(era)));
      const pages = signedIn.map((m) => m.provider.authorizationUrl);
      await kill(main.replicas[0] as ServeRemote);
      // Round robin puts every other request on the dead replica until the proxy notes it down: each
      // of those is sent to the live one, its body with it.
      for (const { client } of signedIn) {
        for (let i = 0; i < 4; i++) {
          const r = (await client.callTool({ name: 'list_engagements', arguments: {} })) as CallToolResult;
          expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
        }
      }
      expect(signedIn.map((m) => m.provider.authorizationUrl)).toEqual(pages);
    });
  });

  describe(`${proxy.file}'s health checks`, () => {
    it('a replica whose Redis is gone answers /readyz 503, and the proxy takes it out: every request goes to the other', async () => {
      const { proxy: handle, replicas } = await deploy(async (publicUrl) => {
        const lost = await startRedis();
        cleanups.push(() => lost.stop());
        const started = await Promise.all([replica(publicUrl, redis.url), replica(publicUrl, lost.url)]);
        await lost.stop();
        // The replica hears its Redis close the connection (it logs it) and says so on /readyz before
        // the proxy starts, so the proxy's first health checks find it not ready.
        const sick = started[1] as ServeRemote;
        await replicaLogged(sick, (e) => e.includes('the state store reported an error'), 'the loss of its Redis');
        expect((await rawRequest(`${sick.origin}/readyz`)).status).toBe(503);
        return started;
      });
      const [healthy, sick] = replicas as [ServeRemote, ServeRemote];
      // The proxy asked the replica's /readyz, got the 503, and took the replica out of the rotation.
      await proxy.takenOutAfter503(handle, new URL(sick.origin).host);

      // A registration needs the store: the sick replica refuses it as retryable, the healthy one makes it.
      const register = (url: string, host?: string) =>
        rawRequest(`${url}/oauth/register`, {
          method: 'POST',
          ...(host ? { host } : {}),
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ client_name: 'health check test', redirect_uris: ['http://127.0.0.1:45999/callback'] }),
        });
      // Answered 503 with Retry-After (retryable), never a 500.
      const refused = await register(sick.origin, `localhost:${handle.port}`);
      expect(refused.status).toBe(503);
      expect(JSON.parse(refused.body)).toMatchObject({ error: 'temporarily_unavailable' });
      const registered = () =>
        healthy
          .stderr()
          .split('\n')
          .filter((l) => l.includes('remote.client_registered')).length;
      const before = registered();
      // Round robin would give the sick replica every other request: four in a row all succeed.
      for (let i = 0; i < 4; i++) {
        const r = await register(handle.origin);
        expect(r.status, r.body).toBe(201);
      }
      await replicaLogged(healthy, () => registered() === before + 4, 'the four registrations');
      expect(sick.stderr()).not.toContain('remote.client_registered');
    });
  });

  return { main: () => main, sandbox: () => sandbox, members };
}
