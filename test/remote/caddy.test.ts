// The deployment's proxy as shipped: deploy/Caddyfile run by a real Caddy (`caddy run --adapter
// caddyfile`), in front of two replicas of the real CLI's `serve --remote` on one real Redis, in front
// of the sandbox whose OAuth consents by itself. The Caddyfile is the shipped one but for its upstream
// addresses and a global options block for the test run (test/helpers/caddy.ts; the first test holds
// it to that). SITE_ADDRESS is http://localhost:PORT, as compose gives it for a trial on one machine,
// and the replicas' WORKSPACE_PUBLIC_URL is that same origin. Everything goes through Caddy, as a
// member's MCP client (SDK v2, Streamable HTTP, OAuth) and browser would:
// - the sign-in is found from the 401 and made through Caddy; tools are listed and a read is called;
// - a job's progress notifications come through as they are sent, before the answer (SSE streamed);
// - the Host header reaches the replicas as the client sent it;
// - one replica killed mid-session: the next calls are served by the other, nobody signs in again;
// - Caddy's active health checks (/readyz) take out a replica whose Redis is gone.
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import type { Client } from '@modelcontextprotocol/client';
import type { CallToolResult, Progress } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import {
  atLeast,
  type CaddyHandle,
  caddyVersion,
  findCaddy,
  PortTakenError,
  SHIPPED_CADDYFILE,
  SHIPPED_UPSTREAMS,
  startCaddy,
  TEST_GLOBAL_OPTIONS,
} from '../helpers/caddy.js';
import { until } from '../helpers/eras.js';
import { freePort } from '../helpers/programs.js';
import { type RedisHandle, startRedis } from '../helpers/redis.js';
import type { Era } from '../helpers/stack.js';
import { signInAutoConsent } from './deployment.js';
import { DEFAULT_SURFACE_TOOLS, type ServeRemote, spawnServeRemote, type TestOAuthProvider } from './helpers.js';

type Json = Record<string, any>;
const RUNS = '/engagements/{engagement}/analysis/runs';
// A job is polled within a quarter of the member's rate window: over a 6 s window, every 0.2 to 1 s
// (instead of 2 to 10 s over a minute), so a run's progress moves within the test's patience. The
// sandbox keeps its real clock: an analysis run lasts 90 s, far longer than any test here waits.
const REPLICA_ENV = { WORKSPACE_RATE_LIMIT: '120/6', WORKSPACE_JOB_WAIT_SECONDS: '60' };

let redis: RedisHandle;
let sandbox: SandboxHandle;
const cleanups: (() => Promise<unknown>)[] = [];

interface Deployment {
  caddy: CaddyHandle;
  replicas: ServeRemote[];
  mcpUrl: URL;
}

/**
 * Replicas answering for http://localhost:PORT (started by `replicas`, which registers their
 * cleanup), then Caddy on PORT in front of them. A port found free and taken before Caddy binds it
 * (another program on this machine): everything again on another port.
 */
async function deploy(replicas: (publicUrl: string) => Promise<ServeRemote[]>): Promise<Deployment> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const started = await replicas(`http://localhost:${port}`);
    try {
      const caddy = await startCaddy({ port, upstreams: started.map((r) => new URL(r.origin).host) });
      cleanups.push(() => caddy.stop());
      return { caddy, replicas: started, mcpUrl: new URL('/mcp', caddy.origin) };
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

let main: Deployment;

/** Undefined without caddy (beforeAll then fails, saying how to install it). */
const version = (() => {
  try {
    return caddyVersion();
  } catch {
    return undefined;
  }
})();
/** Caddy sends a request with a body to the next upstream after a refused connection (github.com/caddyserver/caddy/pull/7547). */
const retriesBodies = version !== undefined && atLeast(version, [2, 11, 2]);

/** SIGKILL, the process gone (its sockets closed) when this resolves. */
async function kill(r: ServeRemote): Promise<void> {
  const gone = new Promise((resolve) => r.child.once('exit', resolve));
  r.child.kill('SIGKILL');
  await gone;
}

beforeAll(async () => {
  // Before anything starts: no caddy is a failure that says how to get one.
  findCaddy();
  redis = await startRedis();
  cleanups.push(() => redis.stop());
  sandbox = await startSandbox({ port: 0, rateLimit: false, oauth: { autoConsent: 'write' }, logger: () => {} });
  cleanups.push(() => sandbox.close());
  main = await deploy((publicUrl) => Promise.all([replica(publicUrl, redis.url), replica(publicUrl, redis.url)]));
}, 60_000);

afterAll(async () => {
  // In the reverse order of starting: clients before the Caddy and replicas they use, Redis last.
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
});

interface Member {
  client: Client;
  provider: TestOAuthProvider;
}
const members = new Map<Era, Promise<Member>>();

/** A member's client signed in through Caddy: the 401, discovery, registration, PKCE, the consent. */
async function signIn(era: Era): Promise<Member> {
  const m = await signInAutoConsent(main.mcpUrl, era, 'caddy-test');
  cleanups.push(() => m.client.close());
  return m;
}

/** The era's member, signed in once for the file (the first test that needs one signs in). */
function member(era: Era): Promise<Member> {
  let m = members.get(era);
  if (!m) {
    m = signIn(era);
    members.set(era, m);
  }
  return m;
}

/** A request straight to an address, with the Host header given (fetch does not let a caller set Host). */
function rawRequest(
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

describe('deploy/Caddyfile in a real Caddy, in front of two replicas of serve --remote', () => {
  it('runs the shipped file: only the upstream addresses differ, after a global options block for the test run', () => {
    const shipped = readFileSync(SHIPPED_CADDYFILE, 'utf8').split('\n');
    const ran = main.caddy.configText.split('\n');
    const globals = ['{', ...TEST_GLOBAL_OPTIONS.map((o) => `\t${o}`), '}'];
    expect(ran.slice(0, globals.length)).toEqual(globals);
    const rest = ran.slice(globals.length);
    expect(rest).toHaveLength(shipped.length);
    const changed = shipped.flatMap((line, i) => (line === rest[i] ? [] : [i]));
    expect(changed).toHaveLength(1);
    const at = changed[0] as number;
    const upstreams = main.replicas.map((r) => new URL(r.origin).host).join(' ');
    expect(shipped[at]).toContain(SHIPPED_UPSTREAMS);
    expect(rest[at]).toBe((shipped[at] as string).replace(SHIPPED_UPSTREAMS, upstreams));
    // The site address is the shipped placeholder, filled from the environment as compose does.
    expect(rest).toContain('{$SITE_ADDRESS} {');
  });

  for (const { era, label } of ERAS) {
    it(`a ${label} client finds the sign-in from the 401, signs in, lists the tools and calls a read, all through Caddy`, async () => {
      // What the client meets first: the 401 and its pointer to the metadata, on the public origin.
      const bare = await fetch(main.mcpUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(bare.status).toBe(401);
      await bare.body?.cancel();
      const metadataUrl = `${main.caddy.origin}/.well-known/oauth-protected-resource/mcp`;
      expect(bare.headers.get('www-authenticate')).toContain(`resource_metadata="${metadataUrl}"`);
      const prm = (await (await fetch(metadataUrl)).json()) as Json;
      expect(prm).toMatchObject({ resource: main.mcpUrl.href, authorization_servers: [main.caddy.origin] });

      const { client, provider } = await member(era);
      // The client knows no address but the public origin: the sign-in went through Caddy.
      expect((provider.authorizationUrl as URL).origin).toBe(main.caddy.origin);
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
    it(`a ${label} client hears a job's progress through Caddy while the job runs, before the answer`, async () => {
      const { client } = await member(era);
      const seen: Progress[] = [];
      let answered = false;
      const result = client.callTool(
        { name: 'start_analysis_run', arguments: { engagement: ENGAGEMENT_AP, mode: 'incremental' } },
        { onprogress: (p: Progress) => void seen.push(p), timeout: 120_000 },
      ) as Promise<CallToolResult>;
      void result.then(
        () => (answered = true),
        () => (answered = true),
      );
      // The start's notification and one from a later poll: each reached the client on its own.
      await until(() => (seen.length >= 2 ? true : undefined), 20_000, 'two progress notifications through Caddy');
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
    const caddyAddress = `http://127.0.0.1:${main.caddy.port}${path}`;
    // The public host: served, the issuer being the public origin.
    const ok = await rawRequest(caddyAddress, { host: `localhost:${main.caddy.port}` });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({ issuer: main.caddy.origin });
    // Another port of the same name: Caddy's site matches host names, not ports, so it proxies the
    // request; the replica sees that Host and refuses it in its own words.
    const foreign = await rawRequest(caddyAddress, { host: 'localhost:1' });
    expect(foreign.status).toBe(421);
    expect(JSON.parse(foreign.body)).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringContaining(`answers for localhost:${main.caddy.port} only`),
    });
  });

  it.runIf(retriesBodies)('one replica killed mid-session: the next calls are served by the other, and nobody signs in again', async () => {
    const signedIn = await Promise.all(ERAS.map(({ era }) => member(era)));
    const pages = signedIn.map((m) => m.provider.authorizationUrl);
    await kill(main.replicas[0] as ServeRemote);
    // Round robin puts every other request on the dead replica until Caddy notes it down: those are
    // sent to the live one within lb_try_duration.
    for (const { client } of signedIn) {
      for (let i = 0; i < 4; i++) {
        const r = (await client.callTool({ name: 'list_engagements', arguments: {} })) as CallToolResult;
        expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
      }
    }
    expect(signedIn.map((m) => m.provider.authorizationUrl)).toEqual(pages);
  });

  // Why deploy/Caddyfile asks for Caddy 2.11.2 or later (github.com/caddyserver/caddy issues/5454 and
  // issues/7546, fixed by pull/7547): before it, a request with a body whose first upstream refuses the connection is
  // sent to the next one with its body already closed, and answered 502; every MCP message is such a
  // POST. (That failure is then counted against the live replica too: with fail_duration, everything
  // is answered 503 until it expires. Seen here, not asserted: it is a matter of time.)
  it.runIf(version !== undefined && !retriesBodies)(
    `with Caddy before 2.11.2 (here ${version?.join('.')}), a POST sent to a replica that just died is answered 502 instead of going to the other`,
    async () => {
      // Nothing else through Caddy meanwhile (a client's event stream reconnecting would change whom
      // round robin picks): the members' clients are closed first.
      for (const [era, m] of members) {
        await (await m).client.close();
        members.delete(era);
      }
      const deadHost = new URL((main.replicas[0] as ServeRemote).origin).host;
      await kill(main.replicas[0] as ServeRemote);
      // Round robin: of two requests in a row, one is sent to the dead replica first.
      const statuses: number[] = [];
      for (let i = 0; i < 2; i++) {
        const r = await rawRequest(`${main.caddy.origin}/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ client_name: 'killed replica test', redirect_uris: ['http://127.0.0.1:45999/callback'] }),
        });
        statuses.push(r.status);
      }
      // The other request: answered by the live replica (201) when it came first, else 503 (the live
      // replica counted failed): not asserted, as said above.
      if (statuses.includes(502)) {
        await main.caddy.waitForLog((l) => String(l.msg).includes('invalid Read on closed Body'), 'the retry with a closed body');
      } else {
        // Caddy's periodic health check found the replica gone before either request reached it: then
        // no request was sent to it, which is the one way the bug does not show.
        expect(statuses).toEqual([201, 201]);
        await main.caddy.waitForLog((l) => String(l.logger).includes('health_checker') && l.host === deadHost, `the health check of ${deadHost}`);
      }
    },
  );
});

describe("deploy/Caddyfile's health checks", () => {
  it('a replica whose Redis is gone answers /readyz 503, and Caddy takes it out: every request goes to the other', async () => {
    const { caddy, replicas } = await deploy(async (publicUrl) => {
      const lost = await startRedis();
      cleanups.push(() => lost.stop());
      const started = await Promise.all([replica(publicUrl, redis.url), replica(publicUrl, lost.url)]);
      await lost.stop();
      // The replica hears its Redis close the connection and says so on /readyz before Caddy starts,
      // so Caddy's first health check (made at once, the next one 10 s later) finds it not ready.
      const sickReady = `${(started[1] as ServeRemote).origin}/readyz`;
      await until(async () => ((await rawRequest(sickReady)).status === 503 ? true : undefined), 10_000, 'the replica without Redis to answer /readyz 503');
      return started;
    });
    const [healthy, sick] = replicas as [ServeRemote, ServeRemote];
    const sickHost = new URL(sick.origin).host;
    // Caddy asked the replica's /readyz, got the 503, and took the replica out of the rotation (the
    // event is emitted once the mark is made).
    await caddy.waitForLog(
      (l) => l.logger === 'events' && l.name === 'unhealthy' && (l.data as Json | undefined)?.host === sickHost,
      `${sickHost} marked unhealthy`,
    );
    expect(caddy.logs().find((l) => String(l.logger).includes('health_checker') && l.host === sickHost)).toMatchObject({ status_code: 503 });

    // A registration needs the store: the sick replica refuses it as retryable, the healthy one makes it.
    const register = (url: string, host?: string) =>
      rawRequest(`${url}/oauth/register`, {
        method: 'POST',
        ...(host ? { host } : {}),
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'health check test', redirect_uris: ['http://127.0.0.1:45999/callback'] }),
      });
    // Answered 503 with Retry-After (retryable), never a 500.
    const refused = await register(sick.origin, `localhost:${caddy.port}`);
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
      const r = await register(caddy.origin);
      expect(r.status, r.body).toBe(201);
    }
    await until(() => (registered() === before + 4 ? true : undefined), 10_000, 'the healthy replica to log the four registrations');
    expect(sick.stderr()).not.toContain('remote.client_registered');
  });
});
