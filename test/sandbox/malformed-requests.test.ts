// Malformed requests, down to broken HTTP on a raw socket: never a 500, never a crash.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { call } from './raw-http.js';

let sb: SandboxHandle;
let port: number;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, rateLimit: false });
  port = Number(new URL(sb.url).port);
});
afterAll(() => sb.close());

/** Send raw bytes, return the status code of the answer (0 when the connection closed without one). */
function raw(bytes: string | Buffer, waitMs = 2000): Promise<number> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    let got = '';
    const done = () => {
      s.destroy();
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(got);
      resolve(m ? Number(m[1]) : 0);
    };
    const timer = setTimeout(done, waitMs);
    s.on('data', (c) => {
      got += c.toString('latin1');
      if (/\r\n\r\n/.test(got)) {
        clearTimeout(timer);
        done();
      }
    });
    s.on('error', () => {});
    s.on('close', () => {
      clearTimeout(timer);
      done();
    });
    s.write(bytes);
  });
}

const auth = () => `Authorization: Bearer ${sb.tokens.write}\r\n`;

describe('robustness', () => {
  it('answers broken HTTP with a 4xx or closes, without a 500', async () => {
    const cases: Array<string | Buffer> = [
      'GARBAGE\r\n\r\n',
      'GET /api/v1/me HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n',
      'GET /api/v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nNoColonHere\r\n\r\n',
      `GET /api/v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Huge: ${'a'.repeat(100_000)}\r\n\r\n`,
      `POST /api/v1/client-companies HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth()}Content-Type: application/json\r\nContent-Length: abc\r\n\r\n{}`,
      `POST /api/v1/client-companies HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth()}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n`,
      `PATCH /api/v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth()}Content-Type: application/json\r\nContent-Length: ${64 * 1024 * 1024}\r\n\r\n{`,
      `GET /api/v1/me%00 HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth()}\r\n`,
      `GET http://127.0.0.1/api/v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth()}\r\n`,
      `GET * HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
      `GET /api/v1/me HTTP/1.0\r\n${auth()}\r\n`,
      Buffer.from([0x16, 0x03, 0x01, 0x00, 0xa5, 0x01, 0x00, 0x00, 0xa1, 0x03, 0x03]), // a TLS hello
    ];
    for (const c of cases) {
      const status = await raw(c);
      expect(status === 0 || (status >= 200 && status < 500), `${String(c).slice(0, 60)} -> ${status}`).toBe(true);
    }
  });

  it('answers odd paths, methods, bodies and headers with an envelope, never a 500', async () => {
    const checks: Array<[string, string, Parameters<typeof call>[3]]> = [
      ['GET', '/me%zz', {}],
      ['GET', '/%E0%A4%A', {}],
      ['GET', '/engagements/..%2F..%2Fetc', {}],
      ['GET', '/media/local/../secret', {}],
      ['GET', '/media/local/a//b', {}],
      ['GET', `/engagements/${'x'.repeat(5000)}`, {}],
      ['GET', '//me', {}],
      ['GET', '/me/', {}],
      ['OPTIONS', '/me', {}],
      ['GET', '/workspace/members?limit=1&limit=2&cursor=%zz', {}],
      ['GET', '/workspace/members?limit=1e400', {}],
      ['PATCH', '/me', { rawBody: '[1,2,3]', headers: { 'content-type': 'application/json' } }],
      ['PATCH', '/me', { rawBody: 'null', headers: { 'content-type': 'application/json' } }],
      ['PATCH', '/me', { rawBody: `${'['.repeat(5000)}${']'.repeat(5000)}`, headers: { 'content-type': 'application/json' } }],
      ['PATCH', '/me', { rawBody: '{"name": "\ud800"}', headers: { 'content-type': 'application/json; charset=latin1' } }],
      ['PATCH', '/me', { body: { name: { $gt: '' } } }],
      ['POST', `/engagements/${ENGAGEMENT_AP}/artifacts`, { rawBody: 'no boundary', headers: { 'content-type': 'multipart/form-data' } }],
      ['POST', `/engagements/${ENGAGEMENT_AP}/artifacts`, { rawBody: '--x\r\nbroken', headers: { 'content-type': 'multipart/form-data; boundary=x' } }],
      ['POST', `/engagements/${ENGAGEMENT_AP}/artifacts`, { body: { file: 'x' } }],
      ['GET', '/me', { headers: { 'accept-language': `${'fr;q=abc,'.repeat(200)}` } }],
      ['GET', '/me', { headers: { authorization: `Bearer ${'a'.repeat(8000)}` }, token: null }],
      ['GET', '/me', { headers: { authorization: 'Basic Zm9vOmJhcg==' }, token: null }],
      ['HEAD', '/me', {}],
    ];
    for (const [method, path, o] of checks) {
      const r = await call(sb, method, path, o);
      expect(r.status, `${method} ${path}`).toBeLessThan(500);
      if (r.status >= 400 && method !== 'HEAD')
        expect(r.json, `${method} ${path}`).toEqual({ code: expect.any(String), message: expect.any(String), details: expect.any(Object) });
    }
  });

  it('refuses an upload over the artifact limit with 422 on the field file', async () => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(25600 * 1024 + 1)]), 'too-big.pdf');
    const r = await fetch(`${sb.api}/engagements/${ENGAGEMENT_AP}/artifacts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sb.tokens.write}`, 'accept-language': 'fr' },
      body: form,
    });
    expect(r.status).toBe(422);
    const body = (await r.json()) as { code: string; details: { fields: Record<string, string[]> } };
    expect(body.code).toBe('validation.failed');
    expect(body.details.fields.file?.[0]).toMatch(/25600/);
  });

  it('is still alive and answering after all of that', async () => {
    const r = await call(sb, 'GET', '/me');
    expect(r.status).toBe(200);
    expect(sb.requests().some((e) => e.status >= 500)).toBe(false);
  });
});
