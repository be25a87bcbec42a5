// A real redis-server for a test: its own process on a free loopback port, its own temp folder, no
// persistence; stop() kills it and removes the folder. A machine without redis-server fails the test
// that asked for it, saying how to install it (.ci/run does), never skips it.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { findProgram, freePort } from './programs.js';

export interface RedisHandle {
  /** redis://127.0.0.1:PORT/0 */
  url: string;
  port: number;
  stop(): Promise<void>;
  /** SIGKILL, as a crash: clients see their connections drop. What was saved (SAVE) is kept on disk. */
  kill(): Promise<void>;
  /** Start it again on the same port and folder (loading what SAVE wrote there). */
  restart(): Promise<void>;
}

function findRedisServer(): string {
  return findProgram(
    'redis-server',
    'redis-server is not installed, and these tests need a real one: install it (Debian: apt-get install -y redis-server; .ci/run does this when it is missing).',
  );
}

export async function startRedis(): Promise<RedisHandle> {
  return startServer('redis-server', (port, dir) => ({
    args: ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    ready: 'Ready to accept connections',
  }));
}

/**
 * A redis-server (or, with `--sentinel` in its arguments, a Sentinel) on a free loopback port, in its
 * own temp folder: `launch` gives its arguments and the line of its log that says it is ready.
 */
async function startServer(
  what: string,
  launchFor: (port: number, dir: string) => { args: string[]; ready: string; setup?: () => Promise<void> },
): Promise<RedisHandle> {
  const bin = findRedisServer();
  const dir = await mkdtemp(join(tmpdir(), 'wcm-redis-'));
  // A port found free can be taken before redis binds it: try a few.
  let lastOutput = '';
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const { args, ready: readyText, setup } = launchFor(port, dir);
    await setup?.();
    const launch = () => spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let child = launch();
    const ready = await waitReady(child, readyText);
    if (ready.ok) {
      return {
        url: `redis://127.0.0.1:${port}/0`,
        port,
        stop: async () => {
          await stopChild(child);
          await rm(dir, { recursive: true, force: true });
        },
        kill: async () => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
          child.kill('SIGKILL');
          await exited;
        },
        restart: async () => {
          child = launch();
          const again = await waitReady(child, readyText);
          if (!again.ok) throw new Error(`${what} did not start again on port ${port}: ${again.output.slice(-1000)}`);
        },
      };
    }
    lastOutput = ready.output;
    await stopChild(child);
  }
  await rm(dir, { recursive: true, force: true });
  throw new Error(`${what} did not start: ${lastOutput.slice(-1000)}`);
}

/** The name the Sentinels of startSentinelGroup monitor the master under. */
export const SENTINEL_MASTER_NAME = 'wcm';

export interface SentinelGroup {
  /** REDIS_URL for the group: redis-sentinel://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3/wcm */
  url: string;
  master: RedisHandle;
  replica: RedisHandle;
  sentinels: RedisHandle[];
  stop(): Promise<void>;
}

/**
 * A master, one replica of it and three Sentinels watching them (quorum 2), each its own process on
 * a free loopback port, resolved once every Sentinel knows the replica and the two other Sentinels
 * (before that, a failover could not be agreed). The Sentinels call the master down after
 * `downAfterMs` without an answer and give a failover `failoverTimeoutMs`: small, so a test's
 * switch takes a few seconds.
 */
export async function startSentinelGroup(opts: { downAfterMs?: number; failoverTimeoutMs?: number } = {}): Promise<SentinelGroup> {
  const started: RedisHandle[] = [];
  const stop = async () => {
    for (const h of started.reverse()) await h.stop().catch(() => {});
  };
  try {
    const master = await startRedis();
    started.push(master);
    const replica = await startServer('redis-server (replica)', (port, dir) => ({
      args: ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--replicaof', '127.0.0.1', String(master.port)],
      ready: 'MASTER <-> REPLICA sync: Finished with success',
    }));
    started.push(replica);
    const sentinels: RedisHandle[] = [];
    for (let i = 0; i < 3; i++) {
      const sentinel = await startServer('redis-server --sentinel', (port, dir) => {
        const conf = join(dir, 'sentinel.conf');
        const lines = [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${SENTINEL_MASTER_NAME} 127.0.0.1 ${master.port} 2`,
          `sentinel down-after-milliseconds ${SENTINEL_MASTER_NAME} ${opts.downAfterMs ?? 500}`,
          `sentinel failover-timeout ${SENTINEL_MASTER_NAME} ${opts.failoverTimeoutMs ?? 2_000}`,
          `sentinel parallel-syncs ${SENTINEL_MASTER_NAME} 1`,
        ];
        // A Sentinel rewrites its configuration file: it must be its own, and writable.
        return { args: [conf, '--sentinel'], ready: '+monitor master', setup: () => writeFile(conf, `${lines.join('\n')}\n`) };
      });
      started.push(sentinel);
      sentinels.push(sentinel);
    }
    await waitForTopology(sentinels);
    return { url: `redis-sentinel://${sentinels.map((s) => `127.0.0.1:${s.port}`).join(',')}/${SENTINEL_MASTER_NAME}`, master, replica, sentinels, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Polled (within a bound) until every Sentinel sees the replica and the two other Sentinels. */
async function waitForTopology(sentinels: RedisHandle[]): Promise<void> {
  const clients = await Promise.all(sentinels.map((s) => createClient({ url: s.url.replace(/\/0$/, '') }).connect()));
  try {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const seen = await Promise.all(
        clients.map(async (c) => {
          const replicas = (await c.sendCommand(['SENTINEL', 'REPLICAS', SENTINEL_MASTER_NAME])) as unknown[];
          const others = (await c.sendCommand(['SENTINEL', 'SENTINELS', SENTINEL_MASTER_NAME])) as unknown[];
          return replicas.length >= 1 && others.length >= sentinels.length - 1;
        }),
      );
      if (seen.every(Boolean)) return;
      if (Date.now() > deadline) throw new Error('the Sentinels did not all see the replica and each other within 20 s');
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    for (const c of clients) c.destroy();
  }
}

function waitReady(child: ChildProcess, readyText: string): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    let output = '';
    const timer = setTimeout(() => finish(false), 10_000);
    const finish = (ok: boolean) => {
      clearTimeout(timer);
      child.stdout?.removeListener('data', onData);
      child.removeListener('exit', onExit);
      resolve({ ok, output });
    };
    const onData = (d: Buffer) => {
      output += d.toString('utf8');
      if (output.includes(readyText)) finish(true);
    };
    const onExit = () => finish(false);
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (d: Buffer) => (output += d.toString('utf8')));
    child.once('exit', onExit);
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
