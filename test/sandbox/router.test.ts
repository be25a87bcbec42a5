// Route matching on raw segments: encoded slashes stay inside a parameter, literals shadow parameters
// only for their own methods, the media path takes the rest of the path but never '.', '..' or ''.
import { describe, expect, it } from 'vitest';
import { Router } from '../../src/sandbox/router.js';

const router = new Router<string>();
for (const [m, p] of [
  ['GET', '/methods/templates'],
  ['GET', '/methods/{method}'],
  ['PATCH', '/methods/{method}'],
  ['POST', '/engagements/{engagement}/deliverable/documents/generate-all'],
  ['GET', '/engagements/{engagement}/deliverable/documents/{kind}'],
  ['GET', '/media/{disk}/{path}'],
  ['GET', '/guide/{ownerType}/{ownerId}/topics'],
] as const) {
  router.add(m, p, `${m} ${p}`, p.startsWith('/media/') ? 'path' : undefined);
}

describe('router', () => {
  it('prefers a literal segment to a parameter', () => {
    expect(router.match('GET', '/methods/templates')).toMatchObject({ kind: 'found', route: { target: 'GET /methods/templates' }, params: {} });
    expect(router.match('GET', '/methods/01ABC')).toMatchObject({ kind: 'found', params: { method: '01ABC' } });
  });

  it('falls back to the parameter when the literal has no route for the method', () => {
    expect(router.match('PATCH', '/methods/templates')).toMatchObject({ kind: 'found', params: { method: 'templates' } });
    expect(router.match('GET', '/engagements/E/deliverable/documents/generate-all')).toMatchObject({
      kind: 'found',
      params: { engagement: 'E', kind: 'generate-all' },
    });
  });

  it('decodes each segment after splitting, so %2F stays in its parameter', () => {
    expect(router.match('GET', '/guide/method/a%2Fb/topics')).toMatchObject({ kind: 'found', params: { ownerType: 'method', ownerId: 'a/b' } });
    expect(router.match('GET', '/methods/%zz')).toEqual({ kind: 'bad_path' });
  });

  it('gives the media path the remaining segments and refuses dot segments', () => {
    expect(router.match('GET', '/media/local/frames/2026/a%20b.png')).toMatchObject({ params: { disk: 'local', path: 'frames/2026/a b.png' } });
    for (const p of ['/media/local/../x', '/media/local/a/./b', '/media/local/a//b', '/media/local/', '/media/local/a%2Fb']) {
      expect(router.match('GET', p).kind, p).toBe('not_found');
    }
  });

  it('tells a wrong method (405 with the allowed ones) from an unknown path', () => {
    expect(router.match('DELETE', '/methods/templates')).toEqual({ kind: 'method_not_allowed', allowed: ['GET', 'PATCH'] });
    expect(router.match('GET', '/nothing/here')).toEqual({ kind: 'not_found' });
  });
});
