// The settings of the remote mode and the shared store, parsed and checked before anything uses
// them: --remote and where it listens, WORKSPACE_PUBLIC_URL, WORKSPACE_ALLOW_PERSONAL_TOKENS,
// REDIS_URL and WORKSPACE_STATE_KEY. Flags win over the environment, as for every setting.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig, SETTINGS } from '../../src/config.js';
import { parseRedisSentinelUrl } from '../../src/store/redis-sentinel-url.js';
import { runCli } from '../helpers/cli.js';

const KEY = randomBytes(32);
const PUBLIC = 'https://mcp.acme.example';

describe('remote mode settings', () => {
  it('are off by default: stdio, state in memory, no key', () => {
    const c = loadConfig({});
    expect(c.remote).toBeUndefined();
    expect(c.http).toBeUndefined();
    expect(c.redisUrl).toBeUndefined();
    expect(c.stateKey).toBeUndefined();
  });

  it('--remote listens on loopback by default (behind a proxy) and needs no public URL there', () => {
    expect(loadConfig({}, ['--remote'])).toMatchObject({ remote: { host: '127.0.0.1', port: 8765, allowPersonalTokens: false } });
    expect(loadConfig({}, ['--remote']).remote?.publicUrl).toBeUndefined();
    expect(loadConfig({ WORKSPACE_REMOTE: 'true', WORKSPACE_HTTP_PORT: '0' }).remote?.port).toBe(0);
  });

  it('--remote may listen on any address, since its clients sign in; off loopback it needs its public origin', () => {
    expect(() => loadConfig({}, ['--remote', '--host', '0.0.0.0'])).toThrow(/^Invalid WORKSPACE_PUBLIC_URL \(--public-url\): set it with --remote/);
    for (const host of ['0.0.0.0', '::', '[::]', '10.0.0.7', 'mcp-1.internal']) {
      expect(loadConfig({ WORKSPACE_PUBLIC_URL: PUBLIC }, ['--remote', '--host', host]).remote?.host).toBe(host.replace(/^\[|\]$/g, ''));
    }
    for (const host of ['not a host', 'http://0.0.0.0', '-bad-.example', '0.0.0.0:80']) {
      expect(() => loadConfig({ WORKSPACE_PUBLIC_URL: PUBLIC }, ['--remote', '--host', host]), host).toThrow(
        /^Invalid WORKSPACE_HTTP_HOST \(--host\): use an IP address/,
      );
    }
  });

  it('--remote wins over --http: one HTTP server, the authenticated one', () => {
    const c = loadConfig({}, ['--http', '--remote']);
    expect(c.remote?.host).toBe('127.0.0.1');
    expect(c.http).toBeUndefined();
  });

  it('refuses a personal token in remote mode, where it would let every client act as its owner', () => {
    expect(() => loadConfig({ WORKSPACE_TOKEN: 'pat_abcdefghijklmnop' }, ['--remote'])).toThrow(
      /^Invalid WORKSPACE_TOKEN \(--token\): leave it unset with --remote/,
    );
  });

  it('WORKSPACE_PUBLIC_URL is an https origin (http on loopback), kept without its trailing slash', () => {
    const remote = (url: string) => loadConfig({ WORKSPACE_PUBLIC_URL: url }, ['--remote', '--host', '0.0.0.0']).remote?.publicUrl;
    expect(remote('https://mcp.acme.example/')).toBe(PUBLIC);
    expect(remote('https://mcp.acme.example:8443')).toBe('https://mcp.acme.example:8443');
    expect(remote('http://127.0.0.1:8765')).toBe('http://127.0.0.1:8765');
    expect(() => remote('http://mcp.acme.example')).toThrow(/^Invalid WORKSPACE_PUBLIC_URL .*use https/);
    expect(() => remote('https://mcp.acme.example/mcp')).toThrow(/^Invalid WORKSPACE_PUBLIC_URL .*without a path/);
    expect(() => remote('https://mcp.acme.example/?x=1')).toThrow(/^Invalid WORKSPACE_PUBLIC_URL .*without a path, query/);
    expect(() => remote('https://u:p@mcp.acme.example')).toThrow(/^Invalid WORKSPACE_PUBLIC_URL .*remove the user name and password/);
    expect(() => remote('mcp.acme.example')).toThrow(/^Invalid WORKSPACE_PUBLIC_URL .*give the origin clients reach/);
  });

  it('WORKSPACE_ALLOW_PERSONAL_TOKENS is a boolean, false unless set, a bare flag too', () => {
    expect(loadConfig({ WORKSPACE_ALLOW_PERSONAL_TOKENS: 'true' }, ['--remote']).remote?.allowPersonalTokens).toBe(true);
    expect(loadConfig({}, ['--remote', '--allow-personal-tokens']).remote?.allowPersonalTokens).toBe(true);
    expect(loadConfig({ WORKSPACE_ALLOW_PERSONAL_TOKENS: 'yes' }, ['--remote', '--allow-personal-tokens=false']).remote?.allowPersonalTokens).toBe(false);
    expect(() => loadConfig({ WORKSPACE_ALLOW_PERSONAL_TOKENS: 'sometimes' })).toThrow(
      /^Invalid WORKSPACE_ALLOW_PERSONAL_TOKENS \(--allow-personal-tokens\): use true or false/,
    );
  });

  it('REDIS_URL is a redis:// or rediss:// URL with a host and an optional database number', () => {
    for (const url of ['redis://127.0.0.1:6379', 'rediss://:s3cret@redis.internal:6380/2', 'redis://user:pw@redis/']) {
      expect(loadConfig({ REDIS_URL: url }).redisUrl).toBe(url);
    }
    for (const url of ['http://redis.internal', 'redis://', 'redis://redis.internal/db', 'redis://redis.internal/0?x=1', 'localhost:6379']) {
      expect(() => loadConfig({ REDIS_URL: url }), url).toThrow(/^Invalid REDIS_URL \(--redis-url\): give a redis:\/\/ or rediss:\/\/ URL/);
    }
  });

  it('REDIS_URL may name Sentinels and their master: redis-sentinel://[user:password@]host:port,.../name[/db]', () => {
    expect(parseRedisSentinelUrl('redis-sentinel://app:p%40ss@10.0.0.1:26379,sentinel-2.internal:26380,[fd00::3]:26379/mymaster/2')).toEqual({
      name: 'mymaster',
      sentinels: [
        { host: '10.0.0.1', port: 26379 },
        { host: 'sentinel-2.internal', port: 26380 },
        { host: 'fd00::3', port: 26379 },
      ],
      username: 'app',
      password: 'p@ss',
      database: 2,
    });
    for (const url of ['redis-sentinel://127.0.0.1:26379/wcm', 'REDIS-SENTINEL://:pw@a:1,b:2/m-1']) {
      expect(loadConfig({ REDIS_URL: url }).redisUrl).toBe(url);
    }
    // No master name, a Sentinel without its port, a port out of range, a query: refused, and the refusal shows the shape.
    for (const url of ['redis-sentinel://127.0.0.1:26379', 'redis-sentinel://a:26379,b/m', 'redis-sentinel://a:70000/m', 'redis-sentinel://a:1/m?x=1']) {
      expect(parseRedisSentinelUrl(url), url).toBeUndefined();
      expect(() => loadConfig({ REDIS_URL: url }), url).toThrow(/^Invalid REDIS_URL \(--redis-url\): .*redis-sentinel:\/\//);
    }
  });

  it('WORKSPACE_STATE_KEY is 32 bytes in base64 (either alphabet, padded or not), and remote mode on Redis needs it', () => {
    for (const text of [KEY.toString('base64'), KEY.toString('base64url'), KEY.toString('base64').replace(/=$/, '')]) {
      expect(Buffer.from(loadConfig({ WORKSPACE_STATE_KEY: text }).stateKey ?? []).equals(KEY)).toBe(true);
    }
    for (const text of [
      randomBytes(16).toString('base64'),
      randomBytes(33).toString('base64'),
      'not base64 at all, not even close!!!!!!!!!!!!',
      KEY.toString('hex'),
    ]) {
      expect(() => loadConfig({ WORKSPACE_STATE_KEY: text })).toThrow(/^Invalid WORKSPACE_STATE_KEY \(--state-key\): give 32 random bytes in base64/);
    }
    expect(() => loadConfig({ REDIS_URL: 'rediss://redis.internal' }, ['--remote'])).toThrow(
      /^Invalid WORKSPACE_STATE_KEY .*set it with --remote and REDIS_URL/,
    );
    const c = loadConfig({ REDIS_URL: 'rediss://redis.internal', WORKSPACE_STATE_KEY: KEY.toString('base64') }, ['--remote']);
    expect(c.redisUrl).toBe('rediss://redis.internal');
    expect(c.stateKey).toHaveLength(32);
    // Local modes may share a Redis for rate budgets without a key: no sign-in is kept there.
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1' }).stateKey).toBeUndefined();
  });

  it('flags win over the environment for the new settings too', () => {
    const other = randomBytes(32);
    const c = loadConfig(
      { REDIS_URL: 'redis://env', WORKSPACE_STATE_KEY: KEY.toString('base64'), WORKSPACE_PUBLIC_URL: 'https://env.example', WORKSPACE_HTTP_HOST: '127.0.0.1' },
      ['--remote', '--redis-url', 'redis://flag', '--state-key', other.toString('base64'), '--public-url', PUBLIC, '--host', '0.0.0.0'],
    );
    expect(c.redisUrl).toBe('redis://flag');
    expect(Buffer.from(c.stateKey ?? []).equals(other)).toBe(true);
    expect(c.remote).toMatchObject({ host: '0.0.0.0', publicUrl: PUBLIC });
  });

  it('speaks French to a French member', () => {
    expect(() => loadConfig({ LANG: 'fr_FR.UTF-8', REDIS_URL: 'http://x' })).toThrow(
      /^REDIS_URL \(--redis-url\) invalide : donnez une URL redis:\/\/ ou rediss:\/\//,
    );
    expect(() => loadConfig({ WORKSPACE_LOCALE: 'fr' }, ['--remote', '--host', '0.0.0.0'])).toThrow(
      /^WORKSPACE_PUBLIC_URL \(--public-url\) invalide : réglez-le avec --remote/,
    );
  });

  it('--help lists every setting, the remote ones included, and the remote command line', async () => {
    const r = await runCli(['--help'], {});
    expect(r.code).toBe(0);
    for (const s of SETTINGS) expect(r.stderr).toMatch(new RegExp(`\\n  ${s.flag} +${s.env} +\\S`));
    expect(r.stderr).toContain('serve --remote [--host 0.0.0.0] [--port N] --public-url https://PUBLIC');
  });
});

describe('remote mode folders and links', () => {
  it('reads only WORKSPACE_REMOTE_UPLOAD_DIRS for path uploads (none by default), never the local WORKSPACE_UPLOAD_DIRS', () => {
    const local = { WORKSPACE_UPLOAD_DIRS: '/srv/local-uploads' };
    expect(loadConfig(local).uploadDirs).toEqual(['/srv/local-uploads']);
    expect(loadConfig(local, ['--remote']).uploadDirs).toEqual([]);
    expect(loadConfig({ ...local, WORKSPACE_REMOTE_UPLOAD_DIRS: '/srv/shared-uploads' }, ['--remote']).uploadDirs).toEqual(['/srv/shared-uploads']);
    expect(loadConfig({ WORKSPACE_REMOTE_UPLOAD_DIRS: '/srv/shared-uploads' }).uploadDirs).toEqual([]);
    expect(() => loadConfig({ WORKSPACE_REMOTE_UPLOAD_DIRS: 'relative' }, ['--remote'])).toThrow(/WORKSPACE_REMOTE_UPLOAD_DIRS/);
  });

  it('a download link lives 600 s unless WORKSPACE_DOWNLOAD_LINK_SECONDS says otherwise (1 to 86400)', () => {
    expect(loadConfig({}, ['--remote']).remote?.downloadLinkSeconds).toBe(600);
    expect(loadConfig({}, ['--remote', '--download-link-seconds', '60']).remote?.downloadLinkSeconds).toBe(60);
    for (const bad of ['0', '86401', '1.5', 'soon']) {
      expect(() => loadConfig({ WORKSPACE_DOWNLOAD_LINK_SECONDS: bad }, ['--remote']), bad).toThrow(/WORKSPACE_DOWNLOAD_LINK_SECONDS/);
    }
    expect(SETTINGS.map((s) => s.env)).toEqual(expect.arrayContaining(['WORKSPACE_REMOTE_UPLOAD_DIRS', 'WORKSPACE_DOWNLOAD_LINK_SECONDS']));
  });
});
