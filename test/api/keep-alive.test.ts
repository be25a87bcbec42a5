// Kept-alive connections the server closes just as the client reuses them: the race of HTTP
// keep-alive, played deterministically by a raw server that answers the first request of each
// connection and closes the connection as soon as a second one arrives on it, answering nothing. A
// read is sent again on a new connection (it never reached the workspace); a write is not, as it may
// have reached it (docs/architecture.md, Writes and retries).
import { once } from 'node:events';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { OutcomeUnknownError } from '../../src/api/errors.js';
import { RateLimiter } from '../../src/api/limiter.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

/** A server whose connections each carry one answer: a second request on one closes it, unanswered. */
async function closingOnReuse() {
  const requests: Array<{ line: string; connection: number }> = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createServer((socket) => {
    const connection = ++connections;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let served = 0;
    let buffered = '';
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      // The requests of these tests carry small bodies announced by Content-Length.
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffered.slice(0, end);
        const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        buffered = buffered.slice(end + 4 + length);
        requests.push({ line: head.split('\r\n', 1)[0] as string, connection });
        if (served++ > 0) {
          // The server's keep-alive timer fired as this request came in.
          socket.resetAndDestroy();
          return;
        }
        const body = '{"data":{"ok":true}}';
        socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: keep-alive\r\n\r\n${body}`);
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const api = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  cleanups.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { api, requests };
}

/** A client that gives up at the first network failure (as a sign-in's GET /me does): only the reuse race may be sent again. */
function clientOf(api: string): ApiClient {
  const client = new ApiClient({ baseUrl: api, token: () => 'pat_test', limiter: new RateLimiter(), retry: { maxNetworkRetries: 0 } });
  cleanups.push(() => client.close());
  return client;
}

describe('a kept-alive connection the server closes as it is reused', () => {
  it('sends a read again on a new connection, and it succeeds', async () => {
    const { api, requests } = await closingOnReuse();
    const client = clientOf(api);
    expect((await client.request({ method: 'GET', path: '/me' })).data).toEqual({ ok: true });
    const r = await client.request({ method: 'GET', path: '/workspace' });
    expect(r.data).toEqual({ ok: true });
    expect(r.attempts).toBe(2);
    expect(requests).toEqual([
      { line: 'GET /api/v1/me HTTP/1.1', connection: 1 },
      { line: 'GET /api/v1/workspace HTTP/1.1', connection: 1 },
      { line: 'GET /api/v1/workspace HTTP/1.1', connection: 2 },
    ]);
  });

  it('never sends a write again: it reached the server, which may have applied it', async () => {
    const { api, requests } = await closingOnReuse();
    const client = clientOf(api);
    await client.request({ method: 'GET', path: '/me' });
    const err = await client.request({ method: 'POST', path: '/workspace/invitations', json: { email: 'a@b.c' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect(requests.map((r) => r.line)).toEqual(['GET /api/v1/me HTTP/1.1', 'POST /api/v1/workspace/invitations HTTP/1.1']);
  });
});
