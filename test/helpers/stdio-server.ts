// The server as a desktop client or a client library starts it: `node --import tsx src/cli.ts` over
// stdio, on a sandbox started by the test (its request log shows what reached the workspace). The
// command, arguments and environment are given to each library's own stdio transport; HOME, the
// config and download folders are a scratch folder removed by `cleanup`.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { ROOT } from './spawn.js';

export interface StdioServer {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

/** The environment of a server on this sandbox: its token, a scratch HOME, and what the test adds. */
export interface ServerHome {
  env: Record<string, string>;
  home: string;
  cleanup(): Promise<void>;
}

export async function serverHome(sandbox: SandboxHandle, env: Record<string, string> = {}): Promise<ServerHome> {
  const home = await mkdtemp(join(tmpdir(), 'wcm-server-'));
  return {
    home,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      LANG: 'C',
      WORKSPACE_URL: sandbox.url,
      WORKSPACE_TOKEN: sandbox.tokens.write,
      WORKSPACE_CONFIG_DIR: join(home, 'config'),
      WORKSPACE_DOWNLOAD_DIR: join(home, 'downloads'),
      LOG_LEVEL: 'warn',
      ...env,
    },
    cleanup: () => rm(home, { recursive: true, force: true }),
  };
}

export async function stdioServer(sandbox: SandboxHandle, env: Record<string, string> = {}): Promise<StdioServer> {
  const server = await serverHome(sandbox, env);
  return { command: process.execPath, args: ['--import', 'tsx', join(ROOT, 'src/cli.ts')], cwd: ROOT, env: server.env, cleanup: server.cleanup };
}

/** Requests that reached the workspace's API, the live description's own fetch aside. */
export function apiRequests(sandbox: SandboxHandle) {
  return sandbox.requests().filter((r) => r.path.startsWith('/api/v1/') && !r.path.endsWith('/openapi.json'));
}
