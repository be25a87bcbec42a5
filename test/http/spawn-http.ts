// `serve --http --port 0` from source as a child process, resolved once it says where it listens.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { spawnServer } from '../helpers/spawn.js';

export interface HttpChild {
  /** The MCP endpoint, http://127.0.0.1:PORT/mcp. */
  url: string;
  port: number;
  child: ChildProcessWithoutNullStreams;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Everything written to stdout so far (nothing is expected: stdout is not a channel in HTTP mode). */
  stdout(): string;
  /** SIGTERM, then the exit code (null when killed). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** `entry`: a built entry script to run instead of the sources (see spawnServer). */
export async function spawnHttpServer(env: Record<string, string> = {}, args: string[] = [], entry?: string): Promise<HttpChild> {
  const child = spawnServer({ LOG_LEVEL: 'warn', ...env }, ['serve', '--http', '--port', '0', ...args], entry);
  let err = '';
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => (err += d));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve --http did not start:\n${err}`)), 20_000);
    const look = () => {
      const m = /serving MCP over Streamable HTTP at (http:\/\/\S+\/mcp)/.exec(err);
      if (m) {
        clearTimeout(timer);
        child.stderr.off('data', look);
        resolve(m[1] as string);
      }
    };
    child.stderr.on('data', look);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve --http exited with ${code}:\n${err}`));
    });
  });
  return {
    url,
    port: Number(new URL(url).port),
    child,
    stderr: () => err,
    stdout: () => out,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = once(child, 'exit');
      child.kill(signal);
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}
