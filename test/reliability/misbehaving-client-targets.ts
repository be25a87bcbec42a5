// What the misbehaving-client tests (deep nesting, malformed requests) run against: the sandbox, one
// `serve --http` child and one stdio server per era, all on a read token and at debug level; every
// line they log is scanned for token material when the file ends.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { type HttpChild, spawnHttpServer } from '../helpers/spawn-http.js';
import { type Era, StdioPeer } from './stdio-peer.js';
import { LogScan } from './token-scan.js';

export const ERAS: readonly Era[] = ['legacy', 'modern'];

export interface Targets {
  readonly sandbox: SandboxHandle;
  readonly http: HttpChild;
  /** The stdio server of `era`. */
  peer(era: Era): StdioPeer;
}

/** Starts the targets before the file's tests (their home a new `prefix` folder) and stops them after. */
export function useMisbehavingClientTargets(prefix: string): Targets {
  let sandbox: SandboxHandle | undefined;
  let http: HttpChild | undefined;
  const scan = new LogScan();
  const peers = new Map<Era, StdioPeer>();

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, rateLimit: false });
    const dir = await mkdtemp(join(tmpdir(), prefix));
    const env = { WORKSPACE_URL: sandbox.url, WORKSPACE_TOKEN: sandbox.tokens.read, HOME: dir, WORKSPACE_CONFIG_DIR: join(dir, 'config'), LOG_LEVEL: 'debug' };
    [http] = await Promise.all([
      spawnHttpServer(env),
      ...ERAS.map(async (era) => {
        const peer = new StdioPeer('source', env, scan);
        peers.set(era, peer);
        await peer.open(era);
      }),
    ]);
  }, 60_000);

  afterAll(async () => {
    for (const p of peers.values()) if (p.child.exitCode === null) p.child.kill();
    scan.add(http?.stderr() ?? '');
    await http?.stop();
    await sandbox?.close();
    if (sandbox) expect(scan.leaks(Object.values(sandbox.tokens))).toEqual([]);
  });

  const started = <T>(x: T | undefined, what: string): T => {
    if (x === undefined) throw new Error(`${what} is not started: use it inside a test`);
    return x;
  };
  return {
    get sandbox() {
      return started(sandbox, 'the sandbox');
    },
    get http() {
      return started(http, 'serve --http');
    },
    peer: (era) => started(peers.get(era), `the ${era} stdio server`),
  };
}
