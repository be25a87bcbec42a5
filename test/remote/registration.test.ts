// Anonymous registration is bounded, over two replicas of the real `serve --remote` on a real Redis:
// 1,500 registrations from one address leave a few dozen records, each living minutes until its first
// sign-in (then the full term), with redirect URIs capped in size; the rest are refused 429 with
// Retry-After. The figures (keys and bytes Redis holds) are printed.
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { REGISTRATION_LIMITS } from '../../src/remote/clients.js';
import { CLAIRE, type Deployment, remoteFixture } from './deployment.js';
import { codeSignIn, REDIRECT } from './helpers.js';

const remote = remoteFixture();
const { closers } = remote;

/** A fresh deployment on an empty Redis: each test counts registrations from the same address anew. */
async function deploy(env: Record<string, string> = {}): Promise<Deployment> {
  const db = createClient({ url: remote.redis.url });
  await db.connect();
  await db.sendCommand(['FLUSHALL']);
  await db.close();
  return remote.deploy(env);
}

async function admin() {
  const c = createClient({ url: remote.redis.url });
  await c.connect();
  closers.push(() => c.close());
  return c;
}

const register = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

/** The largest registration a caller may send: ten redirect URIs of 400 characters, a long name and client_uri. */
function bigRegistration(i: number) {
  const pad = (n: number) => 'p'.repeat(n);
  return {
    client_name: `flood ${i} ${pad(180)}`,
    client_uri: `https://flood.example/${pad(970)}`,
    redirect_uris: Array.from({ length: 10 }, (_, k) => `https://flood.example/${k}/${pad(370)}`),
  };
}

describe('anonymous registration', () => {
  it('1,500 registrations from one address leave Redis bounded: a few dozen records, living minutes, the rest refused 429', async () => {
    const d = await deploy();
    const db = await admin();
    const keysBefore = Number(await db.sendCommand(['DBSIZE']));
    const memoryOf = async () => Number(/used_memory:(\d+)/.exec(String(await db.sendCommand(['INFO', 'memory'])))?.[1]);
    const memBefore = await memoryOf();
    const statuses = new Map<number, number>();
    let retryAfter: string | null = null;
    for (let batch = 0; batch < 30; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 50 }, async (_, k) => {
          // An X-Forwarded-For from a caller, not from a trusted proxy (none is configured): ignored.
          const res = await register(d.lb.url, bigRegistration(batch * 50 + k), { 'x-forwarded-for': `198.51.100.${k}` });
          if (res.status === 429) retryAfter = res.headers.get('retry-after');
          await res.body?.cancel();
          return res.status;
        }),
      );
      for (const s of answers) statuses.set(s, (statuses.get(s) ?? 0) + 1);
    }
    const clientKeys = (await db.sendCommand(['KEYS', 'wcm:remote:client:*'])) as string[];
    let clientBytes = 0;
    for (const k of clientKeys) clientBytes += Number(await db.sendCommand(['MEMORY', 'USAGE', k]));
    const keysAfter = Number(await db.sendCommand(['DBSIZE']));
    const memAfter = await memoryOf();
    process.stderr.write(
      `1,500 registrations from one address: answers ${JSON.stringify(Object.fromEntries(statuses))}; Redis +${keysAfter - keysBefore} keys ` +
        `(${clientKeys.length} registrations, ${clientBytes} bytes by MEMORY USAGE, ${Math.round(clientBytes / Math.max(1, clientKeys.length))} each), ` +
        `used_memory +${memAfter - memBefore} bytes\n`,
    );
    const limit = REGISTRATION_LIMITS.perAddress.limit;
    expect(statuses.get(201)).toBe(limit);
    expect(statuses.get(429)).toBe(1_500 - limit);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    expect(clientKeys).toHaveLength(limit);
    // The registrations, and the window that counts them: nothing else.
    expect(keysAfter - keysBefore).toBeLessThanOrEqual(limit + 4);
    // Unused, each is forgotten within minutes.
    for (const k of clientKeys) {
      const ttl = Number(await db.sendCommand(['PTTL', k]));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(REGISTRATION_LIMITS.unusedTtlMs);
    }
  }, 180_000);

  it('redirect URIs larger than the cap are refused; a registration signed in with is kept for the full term', async () => {
    const d = await deploy();
    const huge = await register(d.lb.url, {
      client_name: 'huge',
      redirect_uris: Array.from({ length: 10 }, (_, k) => `https://a.example/${k}/${'x'.repeat(1900)}`),
    });
    expect(huge.status).toBe(400);
    expect(await huge.json()).toMatchObject({ error: 'invalid_redirect_uri' });

    const res = await register(d.lb.url, { client_name: 'kept', redirect_uris: [REDIRECT] });
    expect(res.status).toBe(201);
    const clientId = ((await res.json()) as { client_id: string }).client_id;
    const db = await admin();
    const ttlOf = async () => Number(await db.sendCommand(['PTTL', `wcm:remote:client:${clientId}`]));
    expect(await ttlOf()).toBeLessThanOrEqual(REGISTRATION_LIMITS.unusedTtlMs);
    const t = await codeSignIn(d.lb.url, clientId, { email: CLAIRE, consent: 'read' }, { state: 's' });
    expect(t.status).toBe(200);
    // Its first sign-in keeps it for the full term (90 days), far beyond the minutes of an unused one.
    expect(await ttlOf()).toBeGreaterThan(30 * 24 * 3600 * 1000);
  }, 120_000);

  it('behind trusted proxies, callers are counted by the address the proxy forwards, not by the proxy', async () => {
    // The balancer connects from 127.0.0.1 and passes X-Forwarded-For on as a proxy appends it.
    const d = await deploy({ WORKSPACE_TRUSTED_PROXIES: '127.0.0.1, ::1' });
    const limit = REGISTRATION_LIMITS.perAddress.limit;
    const from = async (address: string) => {
      const res = await register(d.lb.url, { client_name: 'c', redirect_uris: [REDIRECT] }, { 'x-forwarded-for': `10.9.9.9, ${address}` });
      await res.body?.cancel();
      return res.status;
    };
    const first: number[] = [];
    for (let i = 0; i <= limit; i++) first.push(await from('203.0.113.7'));
    expect(first.filter((s) => s === 201)).toHaveLength(limit);
    expect(first.at(-1)).toBe(429);
    // Another caller behind the same proxy has its own count; the left-most (caller-written) entry is not it.
    expect(await from('203.0.113.8')).toBe(201);
  }, 120_000);
});
