// One loopback rule for "may plain http be spoken here": the configuration's URLs (the workspace and
// the public URL) and the API client's root take and refuse the same hosts, as typed or as a URL
// writes them.
import { describe, expect, it } from 'vitest';
import { parseApiRoot } from '../../src/api/lookup.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { isLoopbackHost } from '../../src/net/loopback.js';

const LOOPBACK = [
  'localhost',
  'LOCALHOST',
  'localhost.',
  'acme.localhost',
  'acme.localhost.',
  '127.0.0.1',
  '127.0.0.1.',
  '127.255.255.254',
  '127.1',
  '[::1]',
  '::1',
  '[0:0:0:0:0:0:0:1]',
  '[::ffff:127.0.0.1]',
  '::ffff:127.0.0.1',
];
const NOT_LOOPBACK = [
  'example.com',
  'localhost.example.com',
  'localhostx',
  '127.0.0.1.example.com',
  '128.0.0.1',
  '10.0.0.1',
  '0.0.0.0',
  '[::]',
  '[::2]',
  '[::ffff:10.0.0.1]',
  '[127.0.0.1]x',
  '127.0.0.256',
];

/** The hostname as a URL gives it to both callers, where the text can be a URL's host at all. */
const asUrl = (host: string) => {
  try {
    return new URL(`http://${host}:8080`);
  } catch {
    return undefined;
  }
};

describe('isLoopbackHost', () => {
  it.each(LOOPBACK)('%s is loopback, as typed and as a URL writes it', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
    const url = asUrl(host);
    if (url) expect(isLoopbackHost(url.hostname), url.hostname).toBe(true);
  });

  it.each(NOT_LOOPBACK)('%s is not', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
    const url = asUrl(host);
    if (url) expect(isLoopbackHost(url.hostname), url.hostname).toBe(false);
  });

  it('is the rule of both callers: the API client and the configuration accept plain http on the same hosts', () => {
    for (const host of [...LOOPBACK, ...NOT_LOOPBACK]) {
      const url = asUrl(host);
      if (!url) continue;
      const origin = `http://${url.host}`;
      const client = (() => {
        try {
          parseApiRoot(`${origin}/api/v1`);
          return true;
        } catch {
          return false;
        }
      })();
      const config = (() => {
        try {
          loadConfig({ WORKSPACE_URL: origin });
          return true;
        } catch (e) {
          if (!(e instanceof ConfigError)) throw e;
          return false;
        }
      })();
      expect([host, client], 'the API client').toEqual([host, isLoopbackHost(url.hostname)]);
      expect([host, config], 'the configuration').toEqual([host, isLoopbackHost(url.hostname)]);
    }
  });
});
