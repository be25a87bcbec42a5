// What a client reads before signing in, behind a TLS-terminating proxy: every link on the public
// origin (WORKSPACE_PUBLIC_URL), whatever address the server listens on; the issuer is that origin
// exactly; the metadata offers a read-only scope and names a registration endpoint and PKCE S256.
// And the settings the remote front refuses to start with.
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createRemoteFront } from '../../src/remote/front.js';
import { canonicalResource, parsePublicUrl, RemoteConfigError } from '../../src/remote/metadata.js';
import { StateKeyError } from '../../src/remote/sealing.js';
import { MemoryStore } from '../../src/store/memory.js';
import { captureLogs, type Replica, STATE_KEY, startReplica } from './helpers.js';

let replica: Replica | undefined;
afterEach(async () => {
  await replica?.close();
  replica = undefined;
});

const PUBLIC = 'https://mcp.example.test';

/** A request as the proxy forwards it: to the replica's port, with the public Host. */
function viaProxy(path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  const port = (replica!.server.address() as { port: number }).port;
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: init.method ?? 'GET', headers: { host: 'mcp.example.test', ...init.headers } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

describe('metadata behind a proxy', () => {
  it('links only to the public origin, names the server itself as authorization server, and offers read and write', async () => {
    replica = await startReplica({
      publicUrl: `${PUBLIC}/`,
      workspaceUrl: 'http://127.0.0.1:9',
      workspaceApi: '',
      store: new MemoryStore(),
      stateKey: STATE_KEY,
      logger: captureLogs().logger,
    });
    const unauth = await viaProxy('/mcp', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(unauth.status).toBe(401);
    expect(unauth.headers['www-authenticate']).toBe(`Bearer resource_metadata="${PUBLIC}/.well-known/oauth-protected-resource/mcp"`);

    const prm = JSON.parse((await viaProxy('/.well-known/oauth-protected-resource/mcp')).body);
    expect(prm).toEqual({
      resource: `${PUBLIC}/mcp`,
      authorization_servers: [PUBLIC],
      scopes_supported: ['read', 'write'],
      bearer_methods_supported: ['header'],
      resource_name: expect.any(String),
    });
    const root = JSON.parse((await viaProxy('/.well-known/oauth-protected-resource')).body);
    expect(root.resource).toBe(PUBLIC);
    expect(root.authorization_servers).toEqual([PUBLIC]);

    const as = JSON.parse((await viaProxy('/.well-known/oauth-authorization-server')).body) as Record<string, unknown>;
    expect(as.issuer).toBe(PUBLIC);
    for (const key of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint', 'revocation_endpoint']) {
      expect(String(as[key]).startsWith(`${PUBLIC}/oauth/`), key).toBe(true);
    }
    expect(as).toMatchObject({
      code_challenge_methods_supported: ['S256'],
      scopes_supported: ['read', 'write'],
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['none'],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
    });
  });

  it('browser-based clients may register and exchange tokens cross-site (CORS); a wrong method is 405 with Allow', async () => {
    replica = await startReplica({
      publicUrl: PUBLIC,
      workspaceUrl: 'http://127.0.0.1:9',
      workspaceApi: '',
      store: new MemoryStore(),
      stateKey: STATE_KEY,
      logger: captureLogs().logger,
    });
    const pre = await viaProxy('/oauth/register', {
      method: 'OPTIONS',
      headers: { origin: 'https://inspector.example', 'access-control-request-method': 'POST' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('*');
    const reg = await viaProxy('/oauth/register', {
      method: 'POST',
      headers: { origin: 'https://inspector.example', 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['https://inspector.example/cb'] }),
    });
    expect(reg.status).toBe(201);
    expect(reg.headers['access-control-allow-origin']).toBe('*');
    const bad = await viaProxy('/oauth/token', { headers: { origin: 'https://inspector.example' } });
    expect(bad.status).toBe(405);
    expect(bad.headers.allow).toBe('POST');
    expect(bad.headers['access-control-allow-origin']).toBe('*');
  });

  it('health is up whatever the store; readiness follows the store', async () => {
    let broken = false;
    const store = new MemoryStore();
    const flaky = Object.assign(Object.create(store) as MemoryStore, {
      get: (k: string) => (broken ? Promise.reject(new Error('ECONNREFUSED')) : store.get(k)),
    });
    replica = await startReplica({
      publicUrl: PUBLIC,
      workspaceUrl: 'http://127.0.0.1:9',
      workspaceApi: '',
      store: flaky,
      stateKey: STATE_KEY,
      logger: captureLogs().logger,
    });
    expect((await viaProxy('/healthz')).status).toBe(200);
    expect((await viaProxy('/readyz')).status).toBe(200);
    broken = true;
    expect((await viaProxy('/healthz')).status).toBe(200);
    expect((await viaProxy('/readyz')).status).toBe(503);
  });
});

describe('settings', () => {
  const base = {
    workspaceUrl: 'https://acme.workspace-consulting.com',
    store: new MemoryStore(),
    stateKey: STATE_KEY,
    logger: captureLogs().logger,
    mcp: () => {},
  };

  it('the public URL is an https origin (http only on loopback), without path, query or credentials', () => {
    expect(parsePublicUrl('https://mcp.example.com/').origin).toBe('https://mcp.example.com');
    expect(parsePublicUrl('http://127.0.0.1:8080').origin).toBe('http://127.0.0.1:8080');
    for (const bad of [
      'http://mcp.example.com',
      'https://mcp.example.com/mcp',
      'https://mcp.example.com/?x=1',
      'https://u:p@mcp.example.com',
      'mcp.example.com',
      '',
    ]) {
      expect(() => createRemoteFront({ ...base, publicUrl: bad }), bad).toThrow(RemoteConfigError);
    }
  });

  it('the workspace URL is https (http only on loopback)', () => {
    expect(() => createRemoteFront({ ...base, publicUrl: PUBLIC, workspaceUrl: 'http://acme.example.com' })).toThrow(RemoteConfigError);
  });

  it('the state key is exactly 32 bytes of base64', () => {
    for (const bad of ['', 'short', Buffer.alloc(16, 1).toString('base64'), Buffer.alloc(33, 1).toString('base64'), 'not base64 at all!!']) {
      expect(() => createRemoteFront({ ...base, publicUrl: PUBLIC, stateKey: bad }), bad).toThrow(StateKeyError);
    }
    expect(() => createRemoteFront({ ...base, publicUrl: PUBLIC, stateKey: Buffer.alloc(32, 3).toString('base64url') })).not.toThrow();
  });

  it('resource indicators are compared in canonical form', () => {
    expect(canonicalResource('HTTPS://MCP.Example.test/mcp/')).toBe('https://mcp.example.test/mcp');
    expect(canonicalResource('https://mcp.example.test')).toBe('https://mcp.example.test');
    expect(canonicalResource('https://mcp.example.test/mcp#x')).toBeUndefined();
    expect(canonicalResource('https://mcp.example.test/mcp?x=1')).toBeUndefined();
    expect(canonicalResource('mcp')).toBeUndefined();
  });
});
