// A real redis-server for a test: its own process on a free loopback port, its own temp folder, no
// persistence; stop() kills it and removes the folder. A machine without redis-server fails the test
// that asked for it, saying how to install it (npm test installs it first when it may), never skips it.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  const bin = findRedisServer();
  const dir = await mkdtemp(join(tmpdir(), 'wcm-redis-'));
  // A port found free can be taken before redis binds it: try a few.
  let lastOutput = '';
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const launch = () =>
      spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    let child = launch();
    const ready = await waitReady(child);
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
          const again = await waitReady(child);
          if (!again.ok) throw new Error(`redis-server did not start again on port ${port}: ${again.output.slice(-1000)}`);
        },
      };
    }
    lastOutput = ready.output;
    await stopChild(child);
  }
  await rm(dir, { recursive: true, force: true });
  throw new Error(`redis-server did not start: ${lastOutput.slice(-1000)}`);
}

function waitReady(child: ChildProcess): Promise<{ ok: boolean; output: string }> {
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
      if (output.includes('Ready to accept connections')) finish(true);
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
