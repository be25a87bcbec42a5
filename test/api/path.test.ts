import { describe, expect, it } from 'vitest';
import { findOperation } from '../../catalog/index.js';
import { InvalidArgumentError } from '../../src/api/errors.js';
import { buildPath } from '../../src/api/path.js';
import { appendQuery } from '../../src/api/query.js';

// The media operations name a stored file in {path}: the catalog says so with their segmentedParam.
const media = findOperation('get_media')!;
const thumbnail = findOperation('get_media_thumbnail')!;

function refusal(fn: () => unknown): InvalidArgumentError {
  try {
    fn();
  } catch (err) {
    if (err instanceof InvalidArgumentError) return err;
    throw err;
  }
  throw new Error('expected an InvalidArgumentError');
}

describe('buildPath', () => {
  it('encodes each parameter as one segment, so no value can change the endpoint', () => {
    const t = '/engagements/{engagement}/findings/{finding}';
    expect(buildPath(t, { engagement: '../../workspace', finding: 'F1' })).toBe('/engagements/..%2F..%2Fworkspace/findings/F1');
    expect(buildPath(t, { engagement: 'E1', finding: 'x?limit=500#top' })).toBe('/engagements/E1/findings/x%3Flimit%3D500%23top');
    expect(buildPath(t, { engagement: '%2e%2e', finding: 'café' })).toBe('/engagements/%252e%252e/findings/caf%C3%A9');
  });

  it('refuses a parameter that is empty, "." or "..", naming it', () => {
    for (const bad of ['', '.', '..']) {
      const err = refusal(() => buildPath('/engagements/{engagement}/findings', { engagement: bad }));
      expect(err.field).toBe('engagement');
    }
  });

  it('refuses a missing parameter, naming it', () => {
    const err = refusal(() => buildPath('/engagements/{engagement}/findings/{finding}', { engagement: 'E1' }));
    expect(err.field).toBe('finding');
    expect(err.message).toContain('finding');
  });

  it('refuses text that cannot be encoded (a lone surrogate)', () => {
    expect(refusal(() => buildPath('/interviews/{interview}', { interview: '\uD800' })).field).toBe('interview');
  });

  it('keeps the slashes of a media path and encodes each of its segments', () => {
    expect(buildPath(media.path, { disk: 'public', path: 'frames/S1/shot 1#a?.png' }, media.segmentedParam)).toBe(
      '/media/public/frames/S1/shot%201%23a%3F.png',
    );
    expect(buildPath(thumbnail.path, { disk: 'public', path: 'a/b.jpg' }, thumbnail.segmentedParam)).toBe('/media-thumbnails/public/a/b.jpg');
  });

  it('refuses media paths with empty, "." or ".." segments', () => {
    for (const bad of ['../secrets.txt', 'a/../../b', '/etc/passwd', 'a//b', 'a/', './a', '']) {
      expect(refusal(() => buildPath(media.path, { disk: 'public', path: bad }, media.segmentedParam)).field).toBe('path');
    }
  });

  it('keeps the media disk one segment, and only the media {path} may hold slashes', () => {
    expect(media.segmentedParam).toBe('path');
    expect(thumbnail.segmentedParam).toBe('path');
    expect(buildPath(media.path, { disk: 'a/b', path: 'c' }, media.segmentedParam)).toBe('/media/a%2Fb/c');
    expect(buildPath('/interviews/{interview}/sources/{type}/{source}', { interview: 'I', type: 'a/b', source: 'S' })).toBe('/interviews/I/sources/a%2Fb/S');
  });
});

describe('appendQuery', () => {
  it('leaves the path alone without arguments', () => {
    expect(appendQuery('/x', undefined)).toBe('/x');
    expect(appendQuery('/x', { a: undefined, b: null })).toBe('/x');
  });

  it('repeats arrays, encodes objects as JSON and booleans as 1/0', () => {
    expect(appendQuery('/x', { ids: ['a', 'b'], f: { k: 'v' }, on: true, off: false, n: 5 })).toBe('/x?ids=a&ids=b&f=%7B%22k%22%3A%22v%22%7D&on=1&off=0&n=5');
  });

  it('encodes keys and values so no argument can add a parameter', () => {
    expect(appendQuery('/x', { cursor: 'abc&limit=999', 'we&ird': 'ok' })).toBe('/x?cursor=abc%26limit%3D999&we%26ird=ok');
  });
});
