// The sandbox pipeline as a client sees it: envelopes, pagination, and every error class.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_BERTHIER, ENGAGEMENT_AP, ENGAGEMENT_GLOBEX, MEMBER_CLAIRE } from '../../src/sandbox/data/ids.js';
import { demoToken } from '../../src/sandbox/data/workspace.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { call } from './raw-http.js';

let sb: SandboxHandle;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, rateLimit: false });
});
afterAll(() => sb.close());

describe('envelopes', () => {
  it('answers a read with {data} and the member the token acts for', async () => {
    const r = await call(sb, 'GET', '/me', { token: sb.tokens.read });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(r.json)).toEqual(['data']);
    expect(r.json.data).toMatchObject({ id: MEMBER_CLAIRE, name: 'Claire Dubois', role: 'admin' });
  });

  it('answers a creating POST with 201 and the new record, and a delete with 204 and no body', async () => {
    const created = await call(sb, 'POST', '/workspace/invitations', { body: { email: 'new.person@example.com', role: 'consultant' } });
    expect(created.status).toBe(201);
    expect(created.json.data).toMatchObject({ email: 'new.person@example.com', role: 'consultant', status: 'pending' });
    expect(created.json.data.id).toMatch(/^[0-9A-Z]{26}$/);
    const deleted = await call(sb, 'DELETE', `/workspace/invitations/${created.json.data.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
  });

  it("gives errors as {code, message, details} with the message in the caller's language", async () => {
    const en = await call(sb, 'GET', '/engagements/01AAAAAAAAAAAAAAAAAAAAAAAA');
    const fr = await call(sb, 'GET', '/engagements/01AAAAAAAAAAAAAAAAAAAAAAAA', { locale: 'fr' });
    expect(en.status).toBe(404);
    expect(en.json).toEqual({ code: 'resource.not_found', message: expect.stringContaining('not found'), details: {} });
    expect(fr.json.code).toBe('resource.not_found');
    expect(fr.json.message).toMatch(/introuvable/);
  });

  it('serves the assumed engagement operations', async () => {
    const list = await call(sb, 'GET', '/engagements');
    expect(list.json.data.map((e: { id: string }) => e.id)).toContain(ENGAGEMENT_AP);
    const one = await call(sb, 'GET', `/engagements/${ENGAGEMENT_AP}`);
    expect(one.json.data).toMatchObject({ client_company_id: CLIENT_BERTHIER, client_company: { name: 'Maison Berthier SA' } });
  });
});

describe('cursor pagination', () => {
  it('walks a whole list two by two, each item once, ending with next_cursor null', async () => {
    const all = (await call(sb, 'GET', '/workspace/members?limit=200')).json.data.map((m: { id: string }) => m.id);
    expect(all.length).toBeGreaterThanOrEqual(3);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r = await call(sb, 'GET', `/workspace/members?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(r.status).toBe(200);
      expect(r.json.meta.limit).toBe(2);
      expect(r.json.data.length).toBeLessThanOrEqual(2);
      if (pages === 0) expect(r.json.meta.prev_cursor).toBeNull();
      else expect(r.json.meta.prev_cursor).toEqual(expect.any(String));
      seen.push(...r.json.data.map((m: { id: string }) => m.id));
      cursor = r.json.meta.next_cursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(all);
    expect(pages).toBe(Math.ceil(all.length / 2));
  });

  it('defaults to 50 per page', async () => {
    const r = await call(sb, 'GET', '/workspace/members');
    expect(r.json.meta).toEqual({ next_cursor: null, prev_cursor: null, limit: 50 });
  });

  it.each([['0'], ['201'], ['abc']])('refuses limit=%s with 422 on the field limit', async (limit) => {
    const r = await call(sb, 'GET', `/workspace/members?limit=${limit}`);
    expect(r.status).toBe(422);
    expect(r.json.code).toBe('validation.failed');
    expect(Object.keys(r.json.details.fields)).toEqual(['limit']);
  });

  it('refuses a tampered cursor and a cursor of another list', async () => {
    const first = await call(sb, 'GET', '/workspace/members?limit=1');
    const cursor = first.json.meta.next_cursor as string;
    const forged = Buffer.from(JSON.stringify({ o: 1, l: 'x' })).toString('base64url');
    for (const [path, c] of [
      ['/workspace/members', forged],
      ['/workspace/members', `${cursor}A`],
      ['/client-companies', cursor],
    ] as const) {
      const r = await call(sb, 'GET', `${path}?limit=1&cursor=${encodeURIComponent(c)}`);
      expect(r.status).toBe(422);
      expect(Object.keys(r.json.details.fields)).toEqual(['cursor']);
    }
  });
});

describe('error classes', () => {
  it.each([
    ['missing', null],
    ['malformed', 'not-a-token'],
    ['unknown', `pat_${'0'.repeat(40)}`],
    ['revoked', demoToken('atelier', 'revoked')],
    ['expired', demoToken('atelier', 'expired')],
  ])('answers 401 auth.unauthenticated to a %s token', async (reason, token) => {
    const r = await call(sb, 'GET', '/me', { token });
    expect(r.status).toBe(401);
    expect(r.json).toMatchObject({ code: 'auth.unauthenticated', details: { reason } });
    expect(r.headers['www-authenticate']).toMatch(/^Bearer .*resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource"/);
  });

  it('serves the OAuth metadata the 401 points at, on the workspace host', async () => {
    const r = await fetch(`${sb.url}/.well-known/oauth-protected-resource`);
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ resource: `${sb.url}/api/v1`, authorization_servers: [sb.url] });
  });

  it('refuses a write with a read token (403 auth.insufficient_scope), but lets it ask the audit chat', async () => {
    const write = await call(sb, 'PATCH', '/me', { token: sb.tokens.read, body: { name: 'Claire D.' } });
    expect(write.status).toBe(403);
    expect(write.json.code).toBe('auth.insufficient_scope');
    const ask = await call(sb, 'POST', `/engagements/${ENGAGEMENT_AP}/chat/ask`, {
      token: sb.tokens.read,
      body: { question: 'Qui ressaisit les factures fournisseurs ?' },
    });
    expect(ask.status).toBe(200);
    expect(ask.json.data).toEqual({ answer: expect.any(String), citations: expect.any(Array), thread_id: null });
    const citations = ask.json.data.citations as Array<{ source_type: string; excerpt: string; interview_id: string }>;
    expect(citations).toHaveLength(3);
    for (const c of citations) expect(c).toMatchObject({ source_type: 'transcript_segment', interview_id: expect.stringMatching(/^[0-9A-Z]{26}$/) });
    expect(citations[0]!.excerpt).toMatch(/ressais|factur/i);
  });

  it.each([
    ['POST', '/ai/credentials'],
    ['GET', '/me/tokens'],
    ['DELETE', '/me/connected-apps/01AAAAAAAAAAAAAAAAAAAAAAAA'],
    ['POST', '/workspace/support-access'],
  ])('answers 403 integrations.session_required to %s %s, even with a write token', async (method, path) => {
    const r = await call(sb, method, path);
    expect(r.status).toBe(403);
    expect(r.json.code).toBe('integrations.session_required');
  });

  it('answers 404 for an id of the other workspace, both ways', async () => {
    const fromAtelier = await call(sb, 'GET', `/engagements/${ENGAGEMENT_GLOBEX}`);
    expect(fromAtelier.status).toBe(404);
    const globex = sb.workspaces.find((w) => w.slug === 'globex')!;
    const fromGlobex = await call(sb, 'GET', `/engagements/${ENGAGEMENT_AP}`, { host: 'globex.localhost', token: globex.tokens.read });
    expect(fromGlobex.status).toBe(404);
    const own = await call(sb, 'GET', `/engagements/${ENGAGEMENT_GLOBEX}`, { host: 'globex.localhost', token: globex.tokens.read });
    expect(own.status).toBe(200);
    // A token is valid in its own workspace only.
    const foreignToken = await call(sb, 'GET', '/me', { host: 'globex.localhost', token: sb.tokens.read });
    expect(foreignToken.status).toBe(401);
  });

  it('answers 404 workspace.not_found to an unknown host, and route.not_found to an unknown path', async () => {
    const host = await call(sb, 'GET', '/me', { host: 'initech.localhost' });
    expect(host.status).toBe(404);
    expect(host.json.code).toBe('workspace.not_found');
    const route = await call(sb, 'GET', '/no/such/thing');
    expect(route.status).toBe(404);
    expect(route.json.code).toBe('route.not_found');
  });

  it('answers 405 with Allow to a known path with the wrong method', async () => {
    const r = await call(sb, 'PUT', '/me', { body: {} });
    expect(r.status).toBe(405);
    expect(r.json.code).toBe('route.method_not_allowed');
    expect(r.headers.allow).toBe('GET, PATCH');
  });

  it('answers 415 to a JSON operation sent as a form, and 400 to broken JSON', async () => {
    const form = await call(sb, 'PATCH', '/me', { rawBody: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(415);
    expect(form.json.code).toBe('request.unsupported_media_type');
    const broken = await call(sb, 'PATCH', '/me', { rawBody: '{"name": ', headers: { 'content-type': 'application/json' } });
    expect(broken.status).toBe(400);
    expect(broken.json.code).toBe('request.malformed_json');
  });

  it('answers 413 to a body over 32 MiB', async () => {
    const big = Buffer.alloc(32 * 1024 * 1024 + 1, 0x20);
    const r = await call(sb, 'PATCH', '/me', { rawBody: big, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(413);
    expect(r.json.code).toBe('request.too_large');
  });

  it('answers 422 with details.fields per dotted path, in English and in French', async () => {
    const body = { name: '', locales: [], settings: { require_2fa_for_consultants: 'yes' }, unknown_key: 1 };
    const en = await call(sb, 'PATCH', '/workspace', { body });
    expect(en.status).toBe(422);
    expect(en.json.code).toBe('validation.failed');
    expect(Object.keys(en.json.details.fields).sort()).toEqual(['locales', 'name', 'settings.require_2fa_for_consultants']);
    const fr = await call(sb, 'PATCH', '/workspace', { body, locale: 'fr' });
    expect(fr.json.code).toBe('validation.failed');
    expect(fr.json.message).toBe('Les données fournies sont invalides.');
    expect(fr.json.details.fields.name[0]).not.toBe(en.json.details.fields.name[0]);
  });

  it('ignores unknown body keys rather than refusing them', async () => {
    const r = await call(sb, 'POST', '/client-companies', { body: { name: 'Ébénisterie Roux', sidebar: true } });
    expect(r.status).toBe(201);
    expect(r.json.data).not.toHaveProperty('sidebar');
  });
});

describe('request log', () => {
  it('records what reached /api/v1: template, workspace, scope, query and parsed body', async () => {
    sb.clearRequests();
    await call(sb, 'GET', '/workspace/members?limit=2');
    await call(sb, 'PATCH', '/me', { body: { locale: 'fr' } });
    const log = sb.requests();
    expect(log).toHaveLength(2);
    expect(log[0]).toMatchObject({
      method: 'GET',
      path: '/api/v1/workspace/members',
      template: '/workspace/members',
      workspace: 'atelier',
      scope: 'write',
      query: { limit: '2' },
      status: 200,
      handler_ran: true,
    });
    expect(log[1]).toMatchObject({ method: 'PATCH', template: '/me', body: { locale: 'fr' }, status: 200 });
  });
});

describe('seed data', () => {
  it('is identical on every start, generated ids included', async () => {
    const other = await startSandbox({ port: 0, rateLimit: false });
    try {
      for (const path of ['/workspace/invitations', '/client-companies']) {
        const a = await call(sb, 'GET', `${path}?limit=200`);
        const b = await call(other, 'GET', `${path}?limit=200`);
        const seeded = (r: typeof a) => r.json.data.filter((x: { created_at: string }) => x.created_at < '2026-11-01').map((x: { id: string }) => x.id);
        expect(seeded(a).length).toBeGreaterThan(0);
        expect(seeded(a)).toEqual(seeded(b));
      }
    } finally {
      await other.close();
    }
  });
});

describe('the request log awaited', () => {
  it('resolves with a request already logged, or with the next one logged, and names what it waited for when none comes', async () => {
    sb.clearRequests();
    await call(sb, 'GET', '/me');
    const me = await sb.waitForRequest((e) => e.template === '/me');
    expect(me).toMatchObject({ method: 'GET', status: 200 });
    const next = sb.waitForRequest((e) => e.template === '/workspace');
    await call(sb, 'GET', '/workspace');
    expect(await next).toMatchObject({ method: 'GET', template: '/workspace', status: 200 });
    await expect(sb.waitForRequest((e) => e.template === '/nothing', 50, 'request to /nothing')).rejects.toThrow(
      'the sandbox logged no request to /nothing within 50 ms',
    );
  });
});

describe("the sandbox's clock", () => {
  it('stamps what handlers write with the clock it was given', async () => {
    const at = Date.parse('2031-05-04T03:02:01.000Z');
    const clocked = await startSandbox({ port: 0, rateLimit: false, clock: () => at });
    try {
      const created = await call(clocked, 'POST', '/workspace/invitations', { body: { email: 'clocked@example.com', role: 'consultant' } });
      expect(created.status).toBe(201);
      // An invitation expires seven days after it is made, on the sandbox's clock.
      expect(created.json.data.expires_at).toBe('2031-05-11T03:02:01.000Z');
    } finally {
      await clocked.close();
    }
  });
});
