import { getEventListeners } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiClient, type ApiClientOptions } from '../../src/api/client.js';
import { NetworkError, OutcomeUnknownError, RateLimitWaitTooLongError, RequestTimeoutError, WorkspaceApiError } from '../../src/api/errors.js';
import { RateLimiter } from '../../src/api/limiter.js';
import { type FakeWorkspace, fakeWorkspace, type Handler, sendJson } from './fake-workspace.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  vi.useRealTimers();
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function setup(handler: Handler, opts: Partial<ApiClientOptions> = {}): Promise<{ ws: FakeWorkspace; client: ApiClient }> {
  const ws = await fakeWorkspace(handler);
  const client = new ApiClient({
    baseUrl: ws.api,
    token: () => 'pat_test',
    // A one-second window, so that requests these tests make in a row never wait for the budget
    // (limiter.test.ts covers the pacing). These tests are about the client's retries.
    limiter: new RateLimiter({ windowMs: 1_000 }),
    ...opts,
    retry: { backoffBaseMs: 10, ...opts.retry },
  });
  cleanups.push(
    () => ws.close(),
    () => client.close(),
  );
  return { ws, client };
}

/**
 * From here on the clock stands still (vitest's fake timers; I/O runs as ever): a call that ends
 * does so at once, through what the test does, never because a wait or a timeout ran out.
 */
function stopTheClock(): void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
}

/** Answer each request with the next of `answers`, the last one repeating. */
function inTurn(...answers: Handler[]): Handler {
  let n = 0;
  return (hit, res, req) => answers[Math.min(n++, answers.length - 1)]!(hit, res, req);
}

const ok: Handler = (_, res) => sendJson(res, 200, { data: { ok: true } });
const created: Handler = (_, res) => sendJson(res, 201, { data: { id: 'new' } });
const unavailable: Handler = (_, res) => sendJson(res, 503, { code: 'service.unavailable', message: 'Maintenance.', details: {} });
const reset: Handler = (_, res) => {
  res.socket?.destroy();
};
const hang: Handler = () => undefined;
const rateLimited =
  (retryAfter: string): Handler =>
  (_, res) =>
    sendJson(
      res,
      429,
      { code: 'rate.limited', message: 'Too many requests.', details: {} },
      {
        'retry-after': retryAfter,
        'x-ratelimit-limit': '120',
        'x-ratelimit-remaining': '0',
      },
    );

function isAbortError(e: unknown): boolean {
  return e instanceof Error && e.name === 'AbortError';
}

describe('429: waiting out the rate limit', () => {
  it('waits Retry-After seconds, then retries and succeeds', async () => {
    const { ws, client } = await setup(inTurn(rateLimited('1'), ok));
    const r = await client.request({ method: 'GET', path: '/workspace' });
    expect(r.data).toEqual({ ok: true });
    expect(r.rateLimitRetries).toBe(1);
    expect(r.attempts).toBe(2);
    expect(ws.hits[1]!.at - ws.hits[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it('logs each wait, without the token', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const { client } = await setup(inTurn(rateLimited('0'), ok), { logger: pino({ level: 'info' }, sink), token: () => 'pat_secret123' });
    await client.request({ method: 'GET', path: '/workspace' });
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(entry).toMatchObject({ level: 40, method: 'GET', path: '/api/v1/workspace', retryAfterSeconds: 0, retry: 1 });
    expect(lines.join('')).not.toContain('secret123');
  });

  it('retries a refused POST too: a 429 means the write was not processed', async () => {
    const { ws, client } = await setup(inTurn(rateLimited('0'), created));
    const r = await client.request({ method: 'POST', path: '/workspace/invitations', json: { email: 'a@b.c', role: 'admin' } });
    expect(r.status).toBe(201);
    expect(ws.hits).toHaveLength(2);
  });

  it('gives up after max429Retries, with the 429 as a typed error counting the waits', async () => {
    const { ws, client } = await setup(rateLimited('0'), { retry: { max429Retries: 2 } });
    const err = await client.request({ method: 'GET', path: '/workspace' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkspaceApiError);
    const e = err as WorkspaceApiError;
    expect(e.status).toBe(429);
    expect(e.code).toBe('rate.limited');
    expect(e.retryAfterSeconds).toBe(0);
    expect(e.rateLimitRetries).toBe(2);
    expect(ws.hits).toHaveLength(3);
  });

  it('fails at once when Retry-After is beyond the cap, instead of blocking the call', async () => {
    stopTheClock();
    const { ws, client } = await setup(rateLimited('3600'), { retry: { maxRetryAfterSeconds: 120 } });
    const waits: number[] = [];
    const err = await client.request({ method: 'GET', path: '/workspace', onRateWait: (ms) => waits.push(ms) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitWaitTooLongError);
    expect((err as RateLimitWaitTooLongError).retryAfterSeconds).toBe(3600);
    expect((err as RateLimitWaitTooLongError).capSeconds).toBe(120);
    expect((err as Error).message).toContain('3600 s');
    // No wait began (a wait reports itself as it starts).
    expect(waits).toEqual([]);
    expect(ws.hits).toHaveLength(1);
  });
});

describe('network failures and gateway errors', () => {
  it('a GET answered 503 then 200 succeeds', async () => {
    const { ws, client } = await setup(inTurn(unavailable, ok));
    const r = await client.request({ method: 'GET', path: '/workspace' });
    expect(r.data).toEqual({ ok: true });
    expect(r.attempts).toBe(2);
    expect(ws.hits).toHaveLength(2);
  });

  it('a POST answered 503 reaches the server exactly once and reports an unknown outcome', async () => {
    const { ws, client } = await setup(unavailable);
    const err = await client
      .request({ method: 'POST', path: '/engagements/{engagement}/exports', pathParams: { engagement: 'E1' }, json: { kind: 'bpmn' } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    const e = err as OutcomeUnknownError;
    expect(e.method).toBe('POST');
    expect(e.path).toBe('/api/v1/engagements/E1/exports');
    expect(e.message).toContain('may or may not');
    expect(e.message).toMatch(/List or read the resource/);
    expect((e.cause as WorkspaceApiError).status).toBe(503);
    expect(ws.hits).toHaveLength(1);
  });

  it('a PATCH whose connection is reset is not sent again', async () => {
    const { ws, client } = await setup(reset);
    const err = await client.request({ method: 'PATCH', path: '/me', json: { name: 'Ada' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect(ws.hits).toHaveLength(1);
  });

  it('a GET whose connection is reset is retried', async () => {
    const { ws, client } = await setup(inTurn(reset, ok));
    const r = await client.request({ method: 'GET', path: '/me' });
    expect(r.data).toEqual({ ok: true });
    expect(ws.hits).toHaveLength(2);
  });

  it('a DELETE keeps failing 503 until maxNetworkRetries, then reports the 503', async () => {
    const { ws, client } = await setup(unavailable, { retry: { maxNetworkRetries: 2 } });
    const err = await client.request({ method: 'DELETE', path: '/workspace/usage/budget' }).catch((e: unknown) => e);
    expect((err as WorkspaceApiError).status).toBe(503);
    expect(ws.hits).toHaveLength(3);
  });

  it('a POST refused before any connection is retried, and reaches the server once', async () => {
    // Take a free port, release it, and only start listening on it after the first attempt failed.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));

    // The first attempt has failed once the client says it will retry.
    let sawRefusal!: () => void;
    const refused = new Promise<void>((r) => (sawRefusal = r));
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        if (chunk.toString('utf8').includes('workspace unreachable, retrying')) sawRefusal();
        done();
      },
    });
    const client = new ApiClient({
      baseUrl: `http://127.0.0.1:${port}/api/v1`,
      token: () => 'pat_test',
      limiter: new RateLimiter(),
      logger: pino({ level: 'warn' }, sink),
      retry: { backoffBaseMs: 300, maxNetworkRetries: 2 },
    });
    cleanups.push(() => client.close());
    const pending = client.request({ method: 'POST', path: '/workspace/invitations', json: { email: 'a@b.c', role: 'admin' } });
    await refused;
    const { createServer: createHttp } = await import('node:http');
    let received = 0;
    const late = createHttp((_, res) => {
      received++;
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end('{"data":{"id":"inv"}}');
    });
    await new Promise<void>((r) => late.listen(port, '127.0.0.1', r));
    cleanups.push(
      () =>
        new Promise<void>((r) => {
          late.closeAllConnections();
          late.close(() => r());
        }),
    );

    const r = await pending;
    expect(r.status).toBe(201);
    expect(r.attempts).toBeGreaterThanOrEqual(2);
    expect(received).toBe(1);
  });

  it('an unreachable workspace becomes a NetworkError once the retries are spent', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const client = new ApiClient({ baseUrl: `http://127.0.0.1:${port}/api/v1`, token: () => 't', limiter: new RateLimiter(), retry: { backoffBaseMs: 5 } });
    cleanups.push(() => client.close());
    const err = await client.request({ method: 'GET', path: '/me' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toContain('ECONNREFUSED');
  });
});

describe('timeouts', () => {
  it('a GET that times out is retried as a network failure', async () => {
    const { ws, client } = await setup(inTurn(hang, ok), { timeoutMs: 150 });
    const r = await client.request({ method: 'GET', path: '/me' });
    expect(r.data).toEqual({ ok: true });
    expect(ws.hits).toHaveLength(2);
  });

  it('a GET that keeps timing out ends in RequestTimeoutError', async () => {
    const { ws, client } = await setup(hang, { timeoutMs: 100, retry: { maxNetworkRetries: 1 } });
    const err = await client.request({ method: 'GET', path: '/me' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestTimeoutError);
    expect(ws.hits).toHaveLength(2);
  });

  it('a POST that times out is not sent again: its outcome is unknown', async () => {
    const { ws, client } = await setup(hang, { timeoutMs: 100 });
    const err = await client.request({ method: 'POST', path: '/sessions/{session}/end', pathParams: { session: 'S1' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect((err as OutcomeUnknownError).cause).toBeInstanceOf(RequestTimeoutError);
    expect(ws.hits).toHaveLength(1);
  });
});

describe('cancellation', () => {
  it('aborts the request in flight: the server sees the socket close, the call rejects at once', async () => {
    stopTheClock();
    const { ws, client } = await setup(hang);
    const controller = new AbortController();
    const pending = client.request({ method: 'GET', path: '/me', signal: controller.signal }).catch((e: unknown) => e);
    await ws.when(() => ws.hits.length === 1);
    controller.abort();
    const err = await pending;
    expect(isAbortError(err)).toBe(true);
    await ws.when(() => ws.aborted.length === 1);
  });

  it('aborts a file answer whose body is still coming: its stream fails, the server sees the socket close', async () => {
    // The head and a first chunk, then nothing: the rest of the body never comes.
    const { ws, client } = await setup((_, res) => {
      res.writeHead(200, { 'content-type': 'application/pdf' });
      res.write('%PDF-');
    });
    const controller = new AbortController();
    const r = await client.request({ method: 'GET', path: '/files/{file}', pathParams: { file: 'F1' }, response: 'file', signal: controller.signal });
    const body = r.file?.body;
    if (!body) throw new Error('no file stream');
    const failed = new Promise<unknown>((resolve) => body.once('error', resolve));
    body.resume();
    controller.abort();
    expect(await failed).toBeInstanceOf(Error);
    await ws.when(() => ws.aborted.length === 1);
  });

  it("leaves no listener on the caller's signal once its requests are over", async () => {
    const { client } = await setup(ok);
    const controller = new AbortController();
    for (let i = 0; i < 5; i++) await client.request({ method: 'GET', path: '/me', signal: controller.signal });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('aborts the wait of a 429 backoff', async () => {
    stopTheClock();
    const { ws, client } = await setup(rateLimited('30'));
    const controller = new AbortController();
    // Aborted once the client waits out the Retry-After (it says so when the wait starts).
    let waiting!: () => void;
    const inBackoff = new Promise<void>((r) => (waiting = r));
    const pending = client.request({ method: 'GET', path: '/me', signal: controller.signal, onRateWait: () => waiting() }).catch((e: unknown) => e);
    await inBackoff;
    expect(ws.hits).toHaveLength(1);
    controller.abort('the user cancelled');
    const err = await pending;
    expect(isAbortError(err)).toBe(true);
    expect((err as Error).message).toBe('the user cancelled');
    expect(ws.hits).toHaveLength(1);
  });

  it('aborts a wait in the rate limiter queue without sending', async () => {
    stopTheClock();
    const limiter = new RateLimiter({ limit: 1, windowMs: 10_000 });
    const { ws, client } = await setup(ok, { limiter });
    await client.request({ method: 'GET', path: '/me' });
    const controller = new AbortController();
    // Aborted once the request waits in the limiter's queue (it says so when the wait starts).
    let waiting!: () => void;
    const queued = new Promise<void>((r) => (waiting = r));
    const pending = client.request({ method: 'GET', path: '/me', signal: controller.signal, onRateWait: () => waiting() }).catch((e: unknown) => e);
    await queued;
    expect(limiter.stats().queued).toBe(1);
    controller.abort();
    const err = await pending;
    expect(isAbortError(err)).toBe(true);
    expect(ws.hits).toHaveLength(1);
    expect(limiter.stats().queued).toBe(0);
  });

  it('an already aborted call sends nothing', async () => {
    const { ws, client } = await setup(ok);
    const err = await client.request({ method: 'GET', path: '/me', signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(isAbortError(err)).toBe(true);
    expect(ws.hits).toHaveLength(0);
  });
});
