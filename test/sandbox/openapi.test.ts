// openapi.json: generated from the catalog and the assumed operations, a valid 3.1 shape; it documents
// every operation of the spec's list.

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../catalog/index.js';
import { assumedOperations } from '../../src/sandbox/assumed.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import type { SandboxOperation } from '../../src/sandbox/types.js';
import { call } from './raw-http.js';

const documented = readFileSync(new URL('../fixtures/documented-operations.tsv', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((l) => l.split('\t'));

let sb: SandboxHandle;
let doc: any;
let etag: string;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, rateLimit: false });
  const r = await call(sb, 'GET', '/openapi.json', { token: sb.tokens.read });
  expect(r.status).toBe(200);
  doc = r.json;
  etag = String(r.headers.etag);
});
afterAll(() => sb.close());

const operations = () =>
  Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, o]) => ({ path, method: method.toUpperCase(), o })),
  );

describe('openapi.json', () => {
  it('is an OpenAPI 3.1.0 document of version 1.0.0 with bearer security', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: expect.any(String), version: '1.0.0' });
    expect(doc.components.securitySchemes.bearer).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
  });

  it('describes every catalog operation (documented or curated) and every assumed one, nothing else', () => {
    const served = operations()
      .map((x) => `${x.method} ${x.path}`)
      .sort();
    const expected = [...catalog, ...assumedOperations].map((o) => `${o.method} ${o.path}`).sort();
    for (const [m, p] of documented) expect(served).toContain(`${m} ${p}`);
    expect(served).toEqual(expected);
    expect(served).not.toContain('GET /me/tokens');
  });

  it('marks only the assumed operations x-sandbox-assumed, and carries name, scope and tag of each', () => {
    const names = new Map<string, SandboxOperation>([...catalog, ...assumedOperations].map((o) => [`${o.method} ${o.path}`, o]));
    for (const { path, method, o } of operations()) {
      const op = names.get(`${method} ${path}`)!;
      expect(o.operationId).toBe(op.name);
      expect(o.summary).toBe(op.title);
      expect(o.tags).toEqual([op.toolset]);
      expect(o['x-scope']).toBe(op.scope);
      expect(o['x-sandbox-assumed']).toBe(op.assumed ? true : undefined);
      expect(Object.keys(o.responses)).toEqual(expect.arrayContaining(['401', '403', '404', '422', '429']));
    }
    expect(operations().filter((x) => x.o['x-sandbox-assumed'])).toHaveLength(assumedOperations.length);
  });

  it('gives path and paginated query parameters, JSON bodies and multipart uploads', () => {
    const findings = doc.paths['/engagements/{engagement}/findings'];
    const params = findings.get.parameters.map((p: any) => `${p.in}:${p.name}:${p.required}`);
    expect(params).toEqual(expect.arrayContaining(['path:engagement:true', 'query:cursor:false', 'query:limit:false']));
    const limit = findings.get.parameters.find((p: any) => p.name === 'limit');
    expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 200 });
    const create = findings.post.requestBody.content['application/json'].schema;
    expect(create.required).toEqual(expect.arrayContaining(['type', 'statement']));
    const upload = doc.paths['/engagements/{engagement}/artifacts'].post.requestBody.content['multipart/form-data'].schema;
    expect(upload.properties.file).toEqual({ type: 'string', format: 'binary' });
    expect(upload.required).toContain('file');
    expect(doc.paths['/engagements/{engagement}/chat/ask'].post['x-scope']).toBe('read');
  });

  it('is cached with an ETag: a revalidation answers 304 without a body', async () => {
    expect(etag).toMatch(/^".+"$/);
    const again = await call(sb, 'GET', '/openapi.json', { token: sb.tokens.read, headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
  });
});
