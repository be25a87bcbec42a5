// A real HAProxy for a test, run on the deployment's own deploy/haproxy.cfg (test/helpers/proxy.ts):
// the file as shipped but for its upstream addresses, with PROXY_BIND a socket on loopback and no TLS
// (PROXY_TLS empty), as a trial on one machine sets them. In the foreground (-db), where its server
// state changes come on stdout (the shipped log) and stderr.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findProgram } from './programs.js';
import { deriveShipped, type ProxyHandle, startProxy } from './proxy.js';
import { ROOT } from './spawn.js';

export const HAPROXY_CFG = 'deploy/haproxy.cfg';

export const findHaproxy = (): string =>
  findProgram(
    'haproxy',
    'haproxy is not installed, and this test runs the shipped deploy/haproxy.cfg in a real one: install it (Debian and Ubuntu: apt-get install -y haproxy; npm test does this when it is missing and it may).',
  );

/** `haproxy -db -f` the derived file, listening on 127.0.0.1:PORT (a socket it inherits), in front of `upstreams`. */
export function startHaproxy(opts: { port: number; upstreams: string[] }): Promise<ProxyHandle> {
  return startProxy({
    name: 'HAProxy',
    bin: findHaproxy(),
    args: (file) => ['-db', '-f', file],
    configName: 'haproxy.cfg',
    configText: deriveShipped(HAPROXY_CFG, readFileSync(join(ROOT, HAPROXY_CFG), 'utf8'), opts.upstreams),
    // It logs nothing once it listens: it is handed its socket, bound on 127.0.0.1:PORT.
    env: { PROXY_BIND: 'fd@3', PROXY_TLS: '' },
    port: opts.port,
    portTaken: /cannot bind socket|Address already in use/i,
    listening: 'fd',
  });
}

/**
 * Resolves once HAProxy has marked the replica at `address` (host:port) down, for a reason that
 * includes `why` ("code: 503", its health check's answer): its log names the server by its name in
 * the file.
 */
export async function markedDown(haproxy: ProxyHandle, address: string, why: string): Promise<void> {
  const server = /^\s*server (\S+) (\S+)/gm;
  const name = [...haproxy.configText.matchAll(server)].find((m) => m[2] === address)?.[1];
  if (!name) throw new Error(`${HAPROXY_CFG} as run has no server at ${address}`);
  await haproxy.waitForLine((l) => l.includes(`Server replicas/${name} is DOWN`) && l.includes(why), `replicas/${name} (${address}) marked down (${why})`);
}
