// The rate limit (scaled in time) and the fault injection of the admin surface.
import { connect } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { TestClock } from '../helpers/clock.js';
import { reached } from '../helpers/reached.js';
import { call } from './raw-http.js';

let sb: SandboxHandle | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

describe('rate limit', () => {
  it('refuses the 121st request of the window with 429, headers and a counted refusal, then lets requests through again', async () => {
    // timeScale 0.05: the 60 s window lasts 3 s. The sandbox's clock stands still until moved, so
    // the 120 requests fall in one window however long they take.
    const clock = new TestClock({ frozen: true });
    sb = await startSandbox({ port: 0, timeScale: 0.05, clock: clock.now });
    const token = sb.tokens.read;
    const answers = await Promise.all(Array.from({ length: 120 }, () => call(sb!, 'GET', '/me', { token })));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.every((a) => a.headers['x-ratelimit-limit'] === '120')).toBe(true);
    expect(answers.map((a) => Number(a.headers['x-ratelimit-remaining'])).sort((a, b) => a - b)[0]).toBe(0);

    const refused = await call(sb, 'GET', '/me', { token });
    expect(refused.status).toBe(429);
    expect(refused.json.code).toBe('rate.limited');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    const retryAfter = String(refused.headers['retry-after']);
    expect(retryAfter).toMatch(/^\d+\.\d{3}$/); // scaled: fractional seconds
    expect(Number(retryAfter)).toBeGreaterThan(0);
    expect(Number(retryAfter)).toBeLessThanOrEqual(3);

    // Another token has its own budget.
    expect((await call(sb, 'GET', '/me', { token: sb.tokens.write })).status).toBe(200);

    // Not a moment before Retry-After, and from then on.
    clock.advance(Number(retryAfter) * 1000 - 1);
    expect((await call(sb, 'GET', '/me', { token })).status).toBe(429);
    clock.advance(1);
    expect((await call(sb, 'GET', '/me', { token })).status).toBe(200);

    const summary = await call(sb, 'GET', '/workspace/usage/summary', { token: sb.tokens.write });
    expect(summary.status).toBe(200);
    // Both refusals counted.
    expect(JSON.stringify(summary.json.data)).toMatch(/"rate_limited_requests":2\b/);
  });

  it('gives a whole-second Retry-After at real speed', async () => {
    sb = await startSandbox({ port: 0 });
    for (let i = 0; i < 120; i++) await call(sb, 'GET', '/me', { token: sb.tokens.read });
    const refused = await call(sb, 'GET', '/me', { token: sb.tokens.read });
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
  });
});

describe('fault injection', () => {
  it('answers the next N matching requests with the fault status, then normally', async () => {
    sb = await startSandbox({ port: 0, rateLimit: false });
    sb.admin.fault({ count: 2, status: 503, match: { method: 'GET', path: '/me' } });
    const other = await call(sb, 'GET', '/workspace');
    expect(other.status).toBe(200);
    const a = await call(sb, 'GET', '/me');
    const b = await call(sb, 'GET', '/me');
    const c = await call(sb, 'GET', '/me');
    expect([a.status, b.status, c.status]).toEqual([503, 503, 200]);
    expect(a.json.code).toBe('sandbox.injected_fault');
    const log = sb.requests().filter((e) => e.template === '/me');
    expect(log.map((e) => [e.status, e.handler_ran])).toEqual([
      [503, false],
      [503, false],
      [200, true],
    ]);
  });

  it('injects 429 with Retry-After', async () => {
    sb = await startSandbox({ port: 0, rateLimit: false });
    sb.admin.fault({ count: 1, status: 429, retry_after: 2 });
    const r = await call(sb, 'GET', '/me');
    expect(r.status).toBe(429);
    expect(r.json.code).toBe('rate.limited');
    expect(r.headers['retry-after']).toBe('2');
  });

  it('can let the write happen and lose its answer (after_handler)', async () => {
    sb = await startSandbox({ port: 0, rateLimit: false });
    sb.admin.fault({ count: 1, status: 502, after_handler: true, match: { path: '/client-companies' } });
    const r = await call(sb, 'POST', '/client-companies', { body: { name: 'Scierie Vasseur' } });
    expect(r.status).toBe(502);
    const entry = sb.requests().at(-1)!;
    expect(entry).toMatchObject({ template: '/client-companies', status: 502, handler_ran: true, fault: { status: 502, after_handler: true } });
    const list = await call(sb, 'GET', '/client-companies');
    expect(list.json.data.map((c: { name: string }) => c.name)).toContain('Scierie Vasseur');
  });

  it('awaits a before hook (in process) when the request is taken, so another request lands ahead of its handler', async () => {
    sb = await startSandbox({ port: 0, rateLimit: false });
    const handle = sb;
    const order: string[] = [];
    sb.admin.fault({
      count: 1,
      match: { method: 'POST', path: '/client-companies' },
      before: async () => {
        order.push('hook');
        const other = await call(handle, 'POST', '/client-companies', { body: { name: 'Autre rédacteur' } });
        order.push(`other ${other.status}`);
      },
    });
    const r = await call(sb, 'POST', '/client-companies', { body: { name: 'Premier' } });
    expect(r.status).toBe(201);
    expect(order).toEqual(['hook', 'other 201']);
    // The hook's request was handled first, then the request that met the hook.
    expect(
      sb
        .requests()
        .filter((e) => e.template === '/client-companies')
        .map((e) => (e.body as { name: string }).name),
    ).toEqual(['Autre rédacteur', 'Premier']);
    // Over the admin API a function cannot be given.
    expect(() => handle.admin.fault({ count: 1, before: 'x' as unknown as () => void })).toThrow(/before must be a function/);
  });

  it('resets the connection without an answer', async () => {
    sb = await startSandbox({ port: 0, rateLimit: false });
    sb.admin.fault({ count: 1, reset: true });
    await expect(call(sb, 'GET', '/me')).rejects.toThrow();
    expect(sb.requests().at(-1)).toMatchObject({ status: 0, fault: { reset: true } });
    expect((await call(sb, 'GET', '/me')).status).toBe(200);
  });

  it('sends a truncated JSON body', async () => {
    sb = await startSandbox({ port: 0, rateLimit: false });
    sb.admin.fault({ count: 1, broken_body: true, after_handler: true });
    const r = await call(sb, 'GET', `/engagements/${ENGAGEMENT_AP}`);
    expect(r.status).toBe(200);
    expect(r.text.startsWith('{"data":')).toBe(true);
    expect(() => JSON.parse(r.text)).toThrow();
  });

  it('delays an answer by delay_ms, then answers normally', async () => {
    sb = await startSandbox({ port: 0, rateLimit: false });
    // The delay runs on vitest's fake setTimeout: the answer comes when the test moves the clock past it.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const taken = reached();
      sb.admin.fault({ count: 1, delay_ms: 150, before: taken.tell });
      let answered = false;
      const answer = call(sb, 'GET', '/me').finally(() => {
        answered = true;
      });
      await taken.reached;
      // A turn of the event loop: the sandbox is in the delay's wait.
      await new Promise((resolve) => setImmediate(resolve));
      await vi.advanceTimersByTimeAsync(149);
      expect(answered).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect((await answer).status).toBe(200);
    } finally {
      vi.useRealTimers();
    }
  });

  it('offers the same controls over HTTP under /__sandbox/ with the admin token only', async () => {
    sb = await startSandbox({ port: 0, rateLimit: false, adminToken: 'admin-secret' });
    const admin = (method: string, path: string, body?: unknown, token = 'admin-secret') =>
      fetch(`${sb!.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    expect((await admin('GET', '/__sandbox/requests', undefined, 'wrong')).status).toBe(401);
    expect((await admin('POST', '/__sandbox/faults', { count: 1, status: 500, match: { path: '/workspace' } })).status).toBe(201);
    expect((await call(sb, 'GET', '/workspace')).status).toBe(500);
    const log = (await (await admin('GET', '/__sandbox/requests')).json()) as { data: Array<{ status: number }> };
    expect(log.data.map((e) => e.status)).toEqual([500]);
    expect((await admin('POST', '/__sandbox/tokens/revoke', { token: sb.tokens.read })).status).toBe(200);
    expect((await call(sb, 'GET', '/me', { token: sb.tokens.read })).status).toBe(401);
    expect((await admin('POST', '/__sandbox/reset')).status).toBe(200);
    expect((await call(sb, 'GET', '/me', { token: sb.tokens.read })).status).toBe(200);
  });

  it('has no admin surface when started without an admin token', async () => {
    sb = await startSandbox({ port: 0, rateLimit: false });
    const r = await fetch(`${sb.url}/__sandbox/requests`, { headers: { authorization: 'Bearer anything' } });
    expect(r.status).toBe(404);
  });
});

describe('close', () => {
  it('resolves while a keep-alive connection is still open', async () => {
    sb = await startSandbox({ port: 0, rateLimit: false });
    const port = Number(new URL(sb.url).port);
    const socket = connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.write(`GET /api/v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${sb.tokens.read}\r\n\r\n`);
    await new Promise((r) => socket.once('data', r));
    const closed = new Promise((r) => socket.once('close', r));
    await sb.close();
    sb = undefined;
    await closed;
  });
});
