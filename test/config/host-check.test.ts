// `serve --http --host H` accepts exactly the hosts the HTTP server's Host check lets in: were
// they to disagree, `--host 127.0.0.2` would start a server that refuses every request (403) for its
// own Host. Both read the names from src/net/loopback.ts; this checks the pair end to end, through the real CLI and a
// real HTTP request addressed the way a client addresses the printed URL.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { loopbackHostNames, loopbackListenAddress } from '../../src/net/loopback.js';
import { refusal } from '../../src/serve/local-http.js';
import { runCli } from '../helpers/cli.js';
import { spawnHttpServer } from '../helpers/spawn-http.js';

const ACCEPTED = ['127.0.0.1', 'localhost', 'LocalHost', '::1', '[::1]'];
const REFUSED = ['127.0.0.2', '127.1', 'acme.localhost', '0.0.0.0', '::', '192.168.1.10', 'example.com', '[::1', '::1]'];

describe('--host of serve --http', () => {
  it('takes the names the Host check answers to, IPv6 with or without brackets, and gives listen its form', () => {
    expect(loopbackHostNames()).toEqual(['127.0.0.1', 'localhost', '[::1]']);
    expect(ACCEPTED.map((h) => loopbackListenAddress(h))).toEqual(['127.0.0.1', 'localhost', 'localhost', '::1', '::1']);
    for (const h of REFUSED) expect(loopbackListenAddress(h), h).toBeUndefined();
    for (const h of ACCEPTED) expect(loadConfig({}, ['--http', '--host', h]).http?.host).toBe(loopbackListenAddress(h));
    for (const h of REFUSED) {
      expect(() => loadConfig({}, ['--http', '--host', h]), h).toThrow(ConfigError);
      expect(() => loadConfig({}, ['--http', '--host', h]), h).toThrow(/^Invalid WORKSPACE_HTTP_HOST \(--host\): use 127\.0\.0\.1, localhost or ::1/);
    }
  });

  it('for any text, accepts it exactly when the Host check lets in the header a client sends for it', () => {
    const port = 8765;
    /** The Host header of a request to http://NAME:PORT, as written (IPv6 in brackets), before any normalising. */
    const headerFor = (name: string) => `${name.includes(':') && !name.startsWith('[') ? `[${name}]` : name}:${port}`;
    const hostLike = fc.oneof(
      fc.constantFrom(
        ...ACCEPTED,
        ...REFUSED,
        ' localhost ',
        'LOCALHOST',
        '[::1]',
        '[::1]:80',
        '0:0:0:0:0:0:0:1',
        'localhost.',
        '127.0.0.1.',
        '::ffff:127.0.0.1',
      ),
      fc.stringMatching(/^[[\]:.0-9a-fA-F]{1,12}$/),
      fc.stringMatching(/^[a-zA-Z0-9.-]{1,16}$/),
      fc.string({ maxLength: 12 }),
    );
    fc.assert(
      // Empty text is no value (the default, 127.0.0.1, applies); text starting with - is another flag.
      fc.property(
        hostLike.filter((h) => h.trim() !== '' && !h.startsWith('-')),
        (h) => {
          let listen: string | undefined;
          try {
            listen = loadConfig({}, ['--http', '--host', h]).http?.host;
          } catch (err) {
            if (!(err instanceof ConfigError)) throw err;
          }
          const admitted = refusal({ host: headerFor(h.trim()) }, port) === undefined;
          expect(listen !== undefined, JSON.stringify(h)).toBe(admitted);
          // The server it starts answers the Host of its own printed URL.
          if (listen !== undefined) expect(refusal({ host: headerFor(listen) }, port), JSON.stringify(h)).toBeUndefined();
        },
      ),
      { numRuns: 2_000, seed: 17 },
    );
  });

  it('a host it accepts serves the requests its clients send', { timeout: 120_000 }, async () => {
    for (const host of ACCEPTED) {
      const server = await spawnHttpServer({}, ['--host', host]);
      try {
        const res = await fetch(server.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'host-check', version: '1' } },
          }),
        });
        await res.body?.cancel();
        expect(res.status, `${host} -> ${server.url}`).toBe(200);
      } finally {
        await server.stop();
      }
    }
  });

  it('a host the Host check would refuse stops the command at once, with one line naming the setting', { timeout: 60_000 }, async () => {
    const runs = await Promise.all(['127.0.0.2', 'acme.localhost'].map((host) => runCli(['serve', '--http', '--port', '0', '--host', host], {})));
    for (const r of runs) {
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/Invalid WORKSPACE_HTTP_HOST \(--host\): use 127\.0\.0\.1, localhost or ::1/);
    }
  });
});
