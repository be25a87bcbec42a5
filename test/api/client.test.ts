import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { area, op } from '../../catalog/shared.js';
import { ApiClient, type ApiClientOptions } from '../../src/api/client.js';
import { InvalidArgumentError, WorkspaceApiError } from '../../src/api/errors.js';
import { RateLimiter } from '../../src/api/limiter.js';
import type { Operation } from '../../src/operation.js';
import { type FakeWorkspace, fakeWorkspace, type Handler, sendJson } from './fake-workspace.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function setup(handler: Handler, opts: Partial<ApiClientOptions> = {}): Promise<{ ws: FakeWorkspace; client: ApiClient }> {
  const ws = await fakeWorkspace(handler);
  const client = new ApiClient({ baseUrl: ws.api, token: () => 'pat_test', limiter: new RateLimiter(), ...opts });
  cleanups.push(
    () => ws.close(),
    () => client.close(),
  );
  return { ws, client };
}

describe('ApiClient: envelopes and headers', () => {
  it('sends the bearer token, Accept JSON, the locale and the user agent', async () => {
    const { ws, client } = await setup((_, res) => sendJson(res, 200, { data: { id: 'x' } }), {
      locale: 'fr',
      userAgent: 'test-agent/1.0',
    });
    await client.request({ method: 'GET', path: '/me' });
    const h = ws.hits[0]!.headers;
    expect(ws.hits[0]!.url).toBe('/api/v1/me');
    expect(h.authorization).toBe('Bearer pat_test');
    expect(h.accept).toBe('application/json');
    expect(h['accept-language']).toBe('fr');
    expect(h['user-agent']).toBe('test-agent/1.0');
  });

  it('decodes the {data, meta} envelope of a page', async () => {
    const { client } = await setup((_, res) =>
      sendJson(res, 200, { data: [{ id: 'a' }, { id: 'b' }], meta: { next_cursor: 'c2', prev_cursor: null, limit: 2 } }),
    );
    const r = await client.request({ method: 'GET', path: '/workspace/members', query: { limit: 2 } });
    expect(r.status).toBe(200);
    expect(r.data).toEqual([{ id: 'a' }, { id: 'b' }]);
    expect(r.meta).toEqual({ next_cursor: 'c2', prev_cursor: null, limit: 2 });
    expect(r.fromCache).toBe(false);
    expect(r.attempts).toBe(1);
  });

  it('hands over a JSON document that is not an envelope as the data itself', async () => {
    const { client } = await setup((_, res) => sendJson(res, 200, { openapi: '3.1.0', paths: {} }));
    const r = await client.request({ method: 'GET', path: '/openapi.json' });
    expect(r.data).toEqual({ openapi: '3.1.0', paths: {} });
  });

  it('answers a 204 with no data', async () => {
    const { ws, client } = await setup((_, res) => {
      res.writeHead(204);
      res.end();
    });
    const r = await client.request({ method: 'DELETE', path: '/workspace/members/{member}', pathParams: { member: '01J0000000000000000000000A' } });
    expect(r.status).toBe(204);
    expect(r.data).toBeUndefined();
    expect(ws.hits[0]!.method).toBe('DELETE');
  });

  it('turns an error envelope into a WorkspaceApiError with its code, message and details', async () => {
    const { client } = await setup((_, res) =>
      sendJson(res, 422, { code: 'validation.failed', message: 'The given data was invalid.', details: { fields: { name: ['required'] } } }),
    );
    const err = await client.request({ method: 'PATCH', path: '/me', json: { name: '' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkspaceApiError);
    const e = err as WorkspaceApiError;
    expect(e.status).toBe(422);
    expect(e.code).toBe('validation.failed');
    expect(e.message).toBe('The given data was invalid.');
    expect(e.details).toEqual({ fields: { name: ['required'] } });
    expect(e.rateLimitRetries).toBe(0);
  });

  it('turns an HTML 502 page from a proxy into a typed error with a readable message', async () => {
    const { client } = await setup(
      (_, res) => {
        res.writeHead(502, { 'content-type': 'text/html' });
        res.end('<html><head><title>502 Bad Gateway</title></head><body><h1>nginx</h1></body></html>');
      },
      { retry: { maxNetworkRetries: 0 } },
    );
    const err = await client.request({ method: 'GET', path: '/workspace' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkspaceApiError);
    const e = err as WorkspaceApiError;
    expect(e.status).toBe(502);
    expect(e.code).toBe('http.502');
    expect(e.message).toContain('HTTP 502 Bad Gateway');
    expect(e.message).toContain('text/html');
    expect(e.message).toContain('"502 Bad Gateway"');
    expect(e.message).not.toContain('<');
  });

  it('sends a JSON body with its content type', async () => {
    const { ws, client } = await setup((_, res) => sendJson(res, 201, { data: { id: 'f1' } }));
    const r = await client.request({
      method: 'POST',
      path: '/engagements/{engagement}/findings',
      pathParams: { engagement: '01J0000000000000000000000E' },
      json: { type: 'irritant', statement: 'Invoices are typed twice.' },
    });
    expect(r.status).toBe(201);
    expect(ws.hits[0]!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(ws.hits[0]!.body)).toEqual({ type: 'irritant', statement: 'Invoices are typed twice.' });
  });

  it('encodes the query: nulls dropped, arrays repeated, objects as JSON, booleans as 1/0', async () => {
    const { ws, client } = await setup((_, res) => sendJson(res, 200, { data: [] }));
    await client.request({
      method: 'GET',
      path: '/workspace/usage/entries',
      query: { cursor: undefined, period: null, usage: ['chat', 'stt'], filter: { a: 1 }, include_tests: false, q: 'a b&c' },
    });
    expect(ws.hits[0]!.url).toBe('/api/v1/workspace/usage/entries?usage=chat&usage=stt&filter=%7B%22a%22%3A1%7D&include_tests=0&q=a%20b%26c');
  });

  it('uploads multipart fields and files', async () => {
    const { ws, client } = await setup((_, res) => sendJson(res, 201, { data: { id: 's1' } }));
    await client.request({
      method: 'POST',
      path: '/engagements/{engagement}/external-sources',
      pathParams: { engagement: '01J0000000000000000000000E' },
      multipart: {
        fields: { name: 'ERP export' },
        files: { file: { blob: new Blob(['col1,col2\n1,2\n'], { type: 'text/csv' }), filename: 'export.csv' } },
      },
    });
    const hit = ws.hits[0]!;
    expect(hit.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(hit.body).toContain('name="name"\r\n\r\nERP export');
    expect(hit.body).toContain('name="file"; filename="export.csv"');
    expect(hit.body).toContain('col1,col2\n1,2\n');
  });

  it('streams a file answer with its type, name and size', async () => {
    const { ws, client } = await setup((_, res) => {
      res.writeHead(200, {
        'content-type': 'application/pdf',
        'content-length': '9',
        'content-disposition': `attachment; filename="report.pdf"; filename*=UTF-8''rapport%20final.pdf`,
      });
      res.end('%PDF-1.4\n');
    });
    const r = await client.request({
      method: 'GET',
      path: '/engagements/{engagement}/exports/{export}/download',
      pathParams: { engagement: '01J0000000000000000000000E', export: '01J0000000000000000000000X' },
      response: 'file',
    });
    expect(ws.hits[0]!.headers.accept).toBe('application/json, */*;q=0.8');
    expect(r.file?.contentType).toBe('application/pdf');
    expect(r.file?.filename).toBe('rapport final.pdf');
    expect(r.file?.size).toBe(9);
    const chunks: Buffer[] = [];
    for await (const c of r.file!.body) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('%PDF-1.4\n');
  });
});

describe('ApiClient: callOperation', () => {
  // A complete entry, as the catalog holds it (op() builds what area() completes).
  const entry = (e: Parameters<typeof op>[0]) => area('usage', [op(e)])[0] as Operation;
  const listAlerts = entry({ name: 'list_alerts', title: 'List', description: 'x', method: 'GET', path: '/workspace/usage/alerts', paginated: true });
  const setBudget = entry({
    name: 'set_budget',
    title: 'Set',
    description: 'x',
    method: 'PUT',
    path: '/workspace/usage/budget',
    fields: () => ({ monthly_amount: z.number() }),
    destructive: false,
  });
  const review = entry({
    name: 'review_finding',
    title: 'Review',
    description: 'x',
    method: 'POST',
    path: '/engagements/{engagement}/findings/{finding}/review',
    fields: () => ({ review_status: z.string() }),
    destructive: false,
  });
  const cancel = entry({
    name: 'cancel_run',
    title: 'Cancel',
    description: 'x',
    method: 'POST',
    path: '/engagements/{engagement}/analysis/runs/{run}/cancel',
    destructive: true,
  });

  it('puts path parameters in the path, and the rest in the query of a GET', async () => {
    const { ws, client } = await setup((_, res) => sendJson(res, 200, { data: [] }));
    await client.callOperation(listAlerts, { limit: 5, cursor: 'abc' });
    expect(ws.hits[0]!.url).toBe('/api/v1/workspace/usage/alerts?limit=5&cursor=abc');
  });

  it('puts the non-path arguments of a write in the JSON body', async () => {
    const { ws, client } = await setup((_, res) => sendJson(res, 200, { data: {} }));
    await client.callOperation(review, { engagement: 'E1', finding: 'F1', review_status: 'validated' });
    await client.callOperation(setBudget, { monthly_amount: 500 });
    expect(ws.hits[0]!.url).toBe('/api/v1/engagements/E1/findings/F1/review');
    expect(JSON.parse(ws.hits[0]!.body)).toEqual({ review_status: 'validated' });
    expect(ws.hits[1]!.method).toBe('PUT');
    expect(JSON.parse(ws.hits[1]!.body)).toEqual({ monthly_amount: 500 });
  });

  it('sends no body for an action without fields', async () => {
    const { ws, client } = await setup((_, res) => sendJson(res, 200, { data: {} }));
    await client.callOperation(cancel, { engagement: 'E1', run: 'R1' });
    expect(ws.hits[0]!.url).toBe('/api/v1/engagements/E1/analysis/runs/R1/cancel');
    expect(ws.hits[0]!.body).toBe('');
    expect(ws.hits[0]!.headers['content-type']).toBeUndefined();
  });

  it('refuses a missing path parameter before sending anything', async () => {
    const { ws, client } = await setup((_, res) => sendJson(res, 200, { data: {} }));
    const err = await client.callOperation(cancel, { engagement: 'E1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as InvalidArgumentError).field).toBe('run');
    expect(ws.hits).toHaveLength(0);
  });
});

describe('ApiClient: path parameters over the wire', () => {
  it('a traversal in a path parameter stays inside its segment and never reaches /workspace', async () => {
    const { ws, client } = await setup((_, res) => sendJson(res, 404, { code: 'resource.not_found', message: 'Not found', details: {} }));
    await client.request({ method: 'GET', path: '/engagements/{engagement}/findings', pathParams: { engagement: '../../workspace' } }).catch(() => undefined);
    await client.request({ method: 'GET', path: '/engagements/{engagement}/findings', pathParams: { engagement: 'x?admin=1#frag' } }).catch(() => undefined);
    expect(ws.hits.map((h) => h.url)).toEqual(['/api/v1/engagements/..%2F..%2Fworkspace/findings', '/api/v1/engagements/x%3Fadmin%3D1%23frag/findings']);
  });

  it('a media path keeps its slashes, each segment encoded', async () => {
    const { ws, client } = await setup((_, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end('png');
    });
    const r = await client.request({
      method: 'GET',
      path: '/media/{disk}/{path}',
      pathParams: { disk: 'public', path: 'frames/2026 11/shot #1.png' },
      // The media operation's facet: its {path} names a stored file and keeps its slashes.
      segmentedParam: 'path',
      response: 'file',
    });
    r.file!.body.resume();
    expect(ws.hits[0]!.url).toBe('/api/v1/media/public/frames/2026%2011/shot%20%231.png');
  });
});

describe('ApiClient: 401 and token refresh', () => {
  it('on a 401, asks for a refresh once and retries with the new token', async () => {
    let token = 'old';
    let refreshes = 0;
    const { ws, client } = await setup(
      (hit, res) =>
        hit.headers.authorization === 'Bearer new'
          ? sendJson(res, 200, { data: { ok: true } })
          : sendJson(res, 401, { code: 'auth.unauthenticated', message: 'Unauthenticated.', details: {} }),
      {
        token: () => token,
        onUnauthorized: async () => {
          refreshes++;
          token = 'new';
          return true;
        },
      },
    );
    const r = await client.request({ method: 'GET', path: '/me' });
    expect(r.data).toEqual({ ok: true });
    expect(refreshes).toBe(1);
    expect(ws.hits.map((h) => h.headers.authorization)).toEqual(['Bearer old', 'Bearer new']);
  });

  it('a second 401 after a refresh is an error, not a loop', async () => {
    let refreshes = 0;
    const { ws, client } = await setup((_, res) => sendJson(res, 401, { code: 'auth.unauthenticated', message: 'Unauthenticated.', details: {} }), {
      onUnauthorized: async () => {
        refreshes++;
        return true;
      },
    });
    const err = await client.request({ method: 'GET', path: '/me' }).catch((e: unknown) => e);
    expect((err as WorkspaceApiError).status).toBe(401);
    expect(refreshes).toBe(1);
    expect(ws.hits).toHaveLength(2);
  });

  it('when the refresh fails, the 401 is returned after one request', async () => {
    const { ws, client } = await setup((_, res) => sendJson(res, 401, { code: 'auth.unauthenticated', message: 'Unauthenticated.', details: {} }), {
      onUnauthorized: async () => false,
    });
    const err = await client.request({ method: 'GET', path: '/me' }).catch((e: unknown) => e);
    expect((err as WorkspaceApiError).code).toBe('auth.unauthenticated');
    expect(ws.hits).toHaveLength(1);
  });
});

describe('ApiClient: reference cache', () => {
  const drivers = { method: 'GET', path: '/ai/enums/drivers', cacheable: true } as const;

  it('serves a fresh reference read from the cache: the second call reaches no server', async () => {
    const { ws, client } = await setup((_, res) => sendJson(res, 200, { data: ['openai', 'mistral'] }));
    const first = await client.request(drivers);
    const second = await client.request(drivers);
    expect(ws.hits).toHaveLength(1);
    expect(first.fromCache).toBe(false);
    expect(second.fromCache).toBe(true);
    expect(second.attempts).toBe(0);
    expect(second.data).toEqual(['openai', 'mistral']);
  });

  it('keeps the answers of two tokens apart', async () => {
    let token = 'pat_a';
    const { ws, client } = await setup((hit, res) => sendJson(res, 200, { data: hit.headers.authorization }), { token: () => token });
    expect((await client.request(drivers)).data).toBe('Bearer pat_a');
    token = 'pat_b';
    expect((await client.request(drivers)).data).toBe('Bearer pat_b');
    expect(ws.hits).toHaveLength(2);
  });

  it('does not cache reads that are not marked cacheable', async () => {
    const { ws, client } = await setup((_, res) => sendJson(res, 200, { data: [] }));
    await client.request({ method: 'GET', path: '/ai/profiles' });
    await client.request({ method: 'GET', path: '/ai/profiles' });
    expect(ws.hits).toHaveLength(2);
  });

  it('forgets cached reads of an area after a write to it', async () => {
    const { ws, client } = await setup((_, res) => sendJson(res, 200, { data: [] }));
    await client.request({ method: 'GET', path: '/ai/catalog', cacheable: true });
    await client.request({ method: 'PUT', path: '/ai/profiles', json: {} });
    await client.request({ method: 'GET', path: '/ai/catalog', cacheable: true });
    expect(ws.hits.map((h) => `${h.method} ${h.url}`)).toEqual(['GET /api/v1/ai/catalog', 'PUT /api/v1/ai/profiles', 'GET /api/v1/ai/catalog']);
  });
});

describe('ApiClient: origins', () => {
  it('reaches a *.localhost workspace on 127.0.0.1 and sends its host name', async () => {
    const ws = await fakeWorkspace((_, res) => sendJson(res, 200, { data: { name: 'Acme' } }));
    const client = new ApiClient({ baseUrl: `http://acme.localhost:${ws.port}/api/v1`, token: () => 'pat_test', limiter: new RateLimiter() });
    cleanups.push(
      () => ws.close(),
      () => client.close(),
    );
    const r = await client.request({ method: 'GET', path: '/workspace' });
    expect(r.data).toEqual({ name: 'Acme' });
    expect(ws.hits[0]!.headers.host).toBe(`acme.localhost:${ws.port}`);
  });

  it('refuses plain http off loopback, naming the reason', () => {
    expect(() => new ApiClient({ baseUrl: 'http://example.com/api/v1', token: () => 't', limiter: new RateLimiter() })).toThrow(/must use https/);
    expect(() => new ApiClient({ baseUrl: 'ftp://example.com/api/v1', token: () => 't', limiter: new RateLimiter() })).toThrow(InvalidArgumentError);
  });

  it('allows https anywhere and http on loopback hosts', async () => {
    for (const baseUrl of [
      'https://acme.workspace.example/api/v1',
      'http://127.0.0.1:8080/api/v1',
      'http://localhost:8080/api/v1',
      'http://globex.localhost:8080/api/v1',
      'http://[::1]:8080/api/v1',
    ]) {
      const client = new ApiClient({ baseUrl, token: () => 't', limiter: new RateLimiter() });
      await client.close();
    }
  });
});
