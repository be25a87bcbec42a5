// The one bounded body reader of the server's HTTP code (the loopback endpoint, the remote front and
// its OAuth endpoints, a resource's file, a client's metadata document), and its JSON-RPC errors.
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BodyTooLarge, readBody, sendJsonRpcError } from '../../src/net/http-io.js';

const chunks = (...sizes: number[]) => Readable.from(sizes.map((n) => Buffer.alloc(n, 0x61)));

describe('readBody', () => {
  it('reads a body of up to its limit, whole', async () => {
    expect((await readBody(chunks(3, 4, 3), 10)).length).toBe(10);
    expect((await readBody(chunks(), 10)).length).toBe(0);
  });

  it('refuses a body one byte over, as it streams in, and reads no further', async () => {
    const body = chunks(6, 5, 100);
    const refused = readBody(body, 10);
    await expect(refused).rejects.toBeInstanceOf(BodyTooLarge);
    await expect(refused).rejects.toMatchObject({ limit: 10 });
    // Leaving the loop destroyed the stream: the chunk past the limit was never read.
    expect(body.destroyed).toBe(true);
  });

  it('with the declared length, refuses a request whose Content-Length is over the limit before reading a byte', async () => {
    let read = false;
    const req = Object.assign(
      (async function* () {
        read = true;
        yield Buffer.alloc(1);
      })(),
      { headers: { 'content-length': '11' } },
    );
    await expect(readBody(req, 10, true)).rejects.toBeInstanceOf(BodyTooLarge);
    expect(read).toBe(false);
    // Without it, the declared length is not read: only the bytes count.
    const small = Object.assign(chunks(2), { headers: { 'content-length': '11' } });
    expect((await readBody(small, 10)).length).toBe(2);
  });
});

describe('sendJsonRpcError', () => {
  it('answers the JSON-RPC error with its status and headers, and only ends an answer already begun', async () => {
    const server = createServer((req, res) => {
      if (req.url === '/begun') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('partial ');
        sendJsonRpcError(res, 500, -32603, 'Internal error.');
        return;
      }
      sendJsonRpcError(res, 429, -32000, 'Too many.', 7, { 'Retry-After': '30' });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const get = (path: string) =>
      new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
        request({ host: '127.0.0.1', port, path }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            body += c;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        })
          .on('error', reject)
          .end();
      });
    try {
      const refused = await get('/');
      expect(refused.status).toBe(429);
      expect(refused.headers['retry-after']).toBe('30');
      expect(refused.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(refused.body)).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32000, message: 'Too many.' } });
      const begun = await get('/begun');
      expect([begun.status, begun.body]).toEqual([200, 'partial ']);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
