// A reverse proxy of the deployment (deploy/), run for a test on the file as shipped: its own process on
// a loopback port, its own temp folder (its HOME and XDG folders too: Caddy keeps its data there),
// ready once it listens (it says so, or it was handed its socket listening already) and a request
// through it then reaches a replica; stop() kills it and removes the folder. The file
// differs from the shipped one only in its upstream addresses (the test's replicas instead of the
// compose services) and in lines a test run puts first (deriveShipped). Caddy (test/helpers/caddy.ts)
// and HAProxy (test/helpers/haproxy.ts) each say how to start theirs. A machine without the program
// fails the test that asked for it, saying how to install it (npm test installs it first when it may).
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

/** The shipped file's upstreams, as the compose file names its replicas. */
export const SHIPPED_UPSTREAMS = ['mcp-1:8080', 'mcp-2:8080'];

/** `shipped` with each of SHIPPED_UPSTREAMS (found exactly once) replaced by the one of `upstreams` at its place, after `prefix`'s lines. */
export function deriveShipped(file: string, shipped: string, upstreams: readonly string[], prefix: readonly string[] = []): string {
  let text = shipped;
  SHIPPED_UPSTREAMS.forEach((address, i) => {
    const at = text.indexOf(address);
    if (at < 0 || text.indexOf(address, at + 1) >= 0) {
      throw new Error(`${file} no longer names the upstream ${address} exactly once: update test/helpers/proxy.ts with it`);
    }
    text = text.slice(0, at) + (upstreams[i] as string) + text.slice(at + address.length);
  });
  return prefix.map((l) => `${l}\n`).join('') + text;
}

/** The port found free was taken before the proxy bound it: start again on another. */
export class PortTakenError extends Error {}

export interface ProxyHandle {
  /** `http://localhost:PORT`: the public origin, and the replicas' public URL. */
  origin: string;
  port: number;
  /** The configuration it runs, as written to disk. */
  configText: string;
  child: ChildProcessByStdio<Writable, Readable, Readable>;
  /** Everything it wrote, stdout and stderr, as it came. */
  output(): string;
  /** Resolves with the first whole line of its output (already written or to come) that `match` accepts. */
  waitForLine(match: (line: string) => boolean, what: string, ms?: number): Promise<string>;
  stop(): Promise<void>;
}

export interface ProxyLaunch {
  /** The program's name, as errors say it. */
  name: string;
  bin: string;
  /** Its arguments, given the configuration file's path. */
  args(configFile: string): string[];
  /** The configuration file's name in the temp folder, and its text. */
  configName: string;
  configText: string;
  /** Its environment, beside PATH, HOME and the XDG folders (in its temp folder). */
  env: Record<string, string>;
  port: number;
  /** Output that says the port was taken. */
  portTaken: RegExp;
  /**
   * How the test knows it listens: the line of its output that says so, or `fd`: it is handed its
   * socket, bound and listening, as fd 3 (its environment names it), so a request waits in the
   * socket's queue until it runs.
   */
  listening: { line: RegExp } | 'fd';
}

/** A socket listening on 127.0.0.1:`port`, for a child to inherit: PortTakenError if the port is taken. */
async function listeningSocket(port: number, name: string): Promise<{ fd: number; close(): void }> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new PortTakenError(`port ${port} was taken before ${name} bound it`) : err),
    );
    server.listen({ port, host: '127.0.0.1', exclusive: true }, resolve);
  });
  // node:net has no public way to hand a listening socket to a child that is not Node: its handle's fd.
  const fd = (server as unknown as { _handle: { fd: number } })._handle.fd;
  return { fd, close: () => server.close() };
}

/**
 * The proxy of `launch` on http://localhost:PORT, ready once it listens and a request through it is
 * then answered by a replica (GET /healthz). Rejects with PortTakenError when the port was taken
 * meanwhile, or with its output when it stops, is not listening in time, or answers otherwise.
 */
export async function startProxy(launch: ProxyLaunch): Promise<ProxyHandle> {
  const socket = launch.listening === 'fd' ? await listeningSocket(launch.port, launch.name) : undefined;
  const dir = await mkdtemp(join(tmpdir(), `wcm-${launch.name.toLowerCase()}-`));
  const configFile = join(dir, launch.configName);
  await writeFile(configFile, launch.configText);
  const origin = `http://localhost:${launch.port}`;
  const child = spawn(launch.bin, launch.args(configFile), {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      XDG_DATA_HOME: join(dir, 'data'),
      XDG_CONFIG_HOME: join(dir, 'config'),
      XDG_CACHE_HOME: join(dir, 'cache'),
      ...launch.env,
    },
    stdio: ['pipe', 'pipe', 'pipe', ...(socket ? [socket.fd] : [])],
  }) as ChildProcessByStdio<Writable, Readable, Readable>;
  // The child holds the socket now: this process must not accept on it.
  socket?.close();
  let output = '';
  const lines: string[] = [];
  let partial = '';
  const waiters = new Set<() => void>();
  const take = (d: Buffer) => {
    const text = d.toString('utf8');
    output += text;
    partial += text;
    const complete = partial.split('\n');
    partial = complete.pop() ?? '';
    lines.push(...complete);
    for (const w of waiters) w();
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      // At once: a proxy asked to stop waits for the connections its clients still hold open (keep-alive
      // ones, event streams), and nothing of its own needs to outlive the test.
      child.kill('SIGKILL');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  const handle: ProxyHandle = {
    origin,
    port: launch.port,
    configText: launch.configText,
    child,
    output: () => output,
    waitForLine(match, what, ms = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = lines.find(match);
          if (hit !== undefined) {
            done();
            resolve(hit);
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`${launch.name} did not log ${what} within ${ms} ms: ${output.slice(-2000)}`));
        }, ms);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    stop,
  };

  try {
    const listening = launch.listening;
    if (listening !== 'fd') {
      const exit = exited.then(() => {
        if (launch.portTaken.test(output)) throw new PortTakenError(`port ${launch.port} was taken before ${launch.name} bound it`);
        throw new Error(`${launch.name} exited (${child.exitCode ?? child.signalCode}) before it listened: ${output.slice(-2000)}`);
      });
      // Heard only when it exits first (later, stop() ends it).
      exit.catch(() => {});
      await Promise.race([handle.waitForLine((l) => listening.line.test(l), 'that it listens'), exit]);
    }
    // Ready: a request through the proxy is answered by a replica (the body tells: Caddy answers an
    // unrouted request with an empty 200).
    const res = await fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(20_000) });
    const body = await res.text();
    if (res.status !== 200 || !body.includes('"status":"ok"')) {
      throw new Error(`${launch.name} answered /healthz ${res.status} ${body.slice(0, 200)}: ${output.slice(-2000)}`);
    }
    return handle;
  } catch (err) {
    await stop();
    throw err;
  }
}
