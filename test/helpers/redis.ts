// A real redis-server for a test: its own process on a free loopback port, its own temp folder, no
// persistence; stop() kills it and removes the folder. A machine without redis-server fails the test
// that asked for it, saying how to install it (npm test installs it first when it may), never skips it.
import { type ChildProcess, spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
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
    'redis-server is not installed, and these tests need a real one: install it (Debian: apt-get install -y redis-server; npm test does this when it is missing and it may).',
  );
}

export async function startRedis(): Promise<RedisHandle> {
  return startServer('redis-server', (port, dir) => ({
    args: ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    ready: 'Ready to accept connections',
  }));
}

/** A server of startServer: a RedisHandle that also reads the log of the process now running. */
interface ServerHandle extends RedisHandle {
  /** Resolves true once the log so far satisfies `seen`, false if the process exits or `timeoutMs` passes first. */
  logged(seen: (log: string) => boolean, timeoutMs: number): Promise<boolean>;
}

/**
 * A redis-server (or, with `--sentinel` in its arguments, a Sentinel) on a free loopback port, in its
 * own temp folder: `launchFor` gives its arguments and the line of its log that says it is ready.
 */
async function startServer(
  what: string,
  launchFor: (port: number, dir: string) => { args: string[]; ready: string; setup?: () => Promise<void> },
): Promise<ServerHandle> {
  const bin = findRedisServer();
  const dir = await mkdtemp(join(tmpdir(), 'wcm-redis-'));
  // A port found free can be taken before redis binds it: try a few.
  let lastOutput = '';
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const { args, ready: readyText, setup } = launchFor(port, dir);
    await setup?.();
    let log = '';
    const events = new EventEmitter();
    const launch = () => {
      const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      log = '';
      const onData = (d: Buffer) => {
        log += d.toString('utf8');
        events.emit('change');
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.once('exit', () => events.emit('change'));
      return child;
    };
    let child = launch();
    const logged = (seen: (log: string) => boolean, timeoutMs: number) =>
      new Promise<boolean>((resolve) => {
        const running = child;
        const finish = (ok: boolean) => {
          clearTimeout(timer);
          events.removeListener('change', check);
          resolve(ok);
        };
        const check = () => {
          if (seen(log)) finish(true);
          else if (running.exitCode !== null || running.signalCode !== null) finish(false);
        };
        const timer = setTimeout(() => finish(false), timeoutMs);
        events.on('change', check);
        check();
      });
    const ready = () => logged((l) => l.includes(readyText), 10_000);
    if (await ready()) {
      return {
        url: `redis://127.0.0.1:${port}/0`,
        port,
        logged,
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
          if (!(await ready())) throw new Error(`${what} did not start again on port ${port}: ${log.slice(-1000)}`);
        },
      };
    }
    lastOutput = log;
    await stopChild(child);
  }
  await rm(dir, { recursive: true, force: true });
  throw new Error(`${what} did not start: ${lastOutput.slice(-1000)}`);
}

/** Keys Redis expires, heard as it expires them, and time let go by on Redis's own clock. */
export interface KeyExpiries {
  /** Resolves once Redis has expired `key` (at once if it did since these were first heard). */
  expired(key: string): Promise<void>;
  /**
   * Resolves once `ms` have gone by on Redis's clock: a key of its own set to live `ms` has expired.
   * What Redis reads of its clock afterwards (TIME in a script, a key's expiry) is at least `ms` later.
   */
  pass(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** Hears the keys the Redis at `url` (database 0) expires, from now on: its keyspace notifications. */
export async function keyExpiries(url: string): Promise<KeyExpiries> {
  const redis = createClient({ url });
  await redis.connect();
  const events = redis.duplicate();
  await events.connect();
  await redis.sendCommand(['CONFIG', 'SET', 'notify-keyspace-events', 'Ex']);
  const seen = new Set<string>();
  const waiting = new Map<string, () => void>();
  await events.subscribe('__keyevent@0__:expired', (key) => {
    seen.add(key);
    waiting.get(key)?.();
  });
  const expired = (key: string) => (seen.has(key) ? Promise.resolve() : new Promise<void>((resolve) => waiting.set(key, resolve)));
  let n = 0;
  return {
    expired,
    async pass(ms) {
      const key = `test-clock:${process.pid}:${++n}`;
      const gone = expired(key);
      await redis.sendCommand(['SET', key, '1', 'PX', String(Math.max(1, Math.ceil(ms)))]);
      await gone;
    },
    async close() {
      await events.close();
      await redis.close();
    },
  };
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
    const sentinels: ServerHandle[] = [];
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

/**
 * The Sentinels' switch to the replica as the new master: `first` resolves with when a Sentinel
 * first announced it (`+switch-master`); `all` once every Sentinel has said hello on the replica as
 * its master (each says hello every 2 s on each instance it watches, through its link to it), so
 * that a client asking any of them from then on is told a master the Sentinel is connected to (one
 * it still connects to is no valid master to node-redis).
 */
export async function masterSwitches(group: SentinelGroup): Promise<{ first: Promise<number>; all: Promise<void>; close(): Promise<void> }> {
  // A Sentinel has no databases to select.
  const subs = group.sentinels.map((s) => createClient({ url: s.url.replace(/\/0$/, '') }));
  const hellos = createClient({ url: group.replica.url });
  // Each subscribed before this resolves: an announcement made after cannot be missed.
  const announced = await Promise.all(
    subs.map(async (sub) => {
      await sub.connect();
      let tell = (_at: number) => {};
      const at = new Promise<number>((resolve) => (tell = resolve));
      await sub.subscribe('+switch-master', () => tell(Date.now()));
      return { at };
    }),
  );
  const named = new Set<string>();
  let allNamed = () => {};
  const all = new Promise<void>((resolve) => (allNamed = resolve));
  // Promoted, the replica closes its clients (the Sentinels ask it to): this one connects and subscribes again.
  hellos.on('error', () => {});
  await hellos.connect();
  // A hello: ip, port, run id, epoch, then the master's name, ip, port and config epoch.
  await hellos.subscribe('__sentinel__:hello', (hello) => {
    const [, port, , , name, , masterPort] = hello.split(',');
    if (name === SENTINEL_MASTER_NAME && masterPort === String(group.replica.port)) named.add(port as string);
    if (named.size === group.sentinels.length) allNamed();
  });
  return {
    first: Promise.race(announced.map((a) => a.at)),
    all,
    close: async () => void (await Promise.all([...subs, hellos].map((c) => c.close()))),
  };
}

/**
 * Until every Sentinel has logged the replica (`+slave`) and the two other Sentinels (`+sentinel`),
 * each found through the master and the others' hello messages.
 */
async function waitForTopology(sentinels: ServerHandle[]): Promise<void> {
  const count = (log: string, event: string) => log.split('\n').filter((line) => line.includes(` ${event} `)).length;
  const found = await Promise.all(
    sentinels.map((s) => s.logged((log) => count(log, '+slave') >= 1 && count(log, '+sentinel') >= sentinels.length - 1, 20_000)),
  );
  if (!found.every(Boolean)) throw new Error('the Sentinels did not all see the replica and each other within 20 s');
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
