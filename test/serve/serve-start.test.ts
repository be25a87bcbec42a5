// What a stdio session loads: the packages only some sessions use stay unloaded while a client lists
// the tools and calls one (startup time and resident memory: bench/run.ts's breakdown).
// The server runs as a client starts it, over the SDK client's own stdio transport, on a sandbox
// reached over real HTTP.

import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { packagesOf, recordModules } from '../helpers/loaded-modules.js';
import { ROOT } from '../helpers/spawn.js';
import { type ServerHome, serverHome } from '../helpers/stdio-server.js';

let sandbox: SandboxHandle;
let home: ServerHome;
let packages: Set<string>;
let loaded: string[];

beforeAll(async () => {
  sandbox = await startSandbox({ logger: () => {} });
  home = await serverHome(sandbox, { WORKSPACE_TOOLSETS: 'all' });
  const recording = recordModules(home.home);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', ...recording.nodeArgs, join(ROOT, 'src/cli.ts'), 'serve'],
    cwd: ROOT,
    env: { ...home.env, ...recording.env },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'serve-start-test', version: '1' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toContain('list_findings');
  const engagement = await firstEngagement();
  const result = await client.callTool({ name: 'list_findings', arguments: { engagement, limit: 2 } });
  expect(result.isError).toBeFalsy();
  await client.close();
  loaded = await recording.loaded();
  packages = packagesOf(loaded);
}, 120_000);

afterAll(async () => {
  await home?.cleanup();
  await sandbox?.close();
});

async function firstEngagement(): Promise<string> {
  const res = await fetch(`${sandbox.url}/api/v1/engagements?limit=1`, { headers: { authorization: `Bearer ${sandbox.tokens.read}` } });
  const body = (await res.json()) as { data: Array<{ id: string }> };
  const id = body.data[0]?.id;
  if (!id) throw new Error('the sandbox lists no engagement');
  return id;
}

describe('a stdio session that lists the tools and calls one', () => {
  it('loaded the SDK it serves with (the recording sees the packages)', () => {
    expect(packages.has('@modelcontextprotocol/server')).toBe(true);
  });

  it('never loads undici: the API client speaks node:http', () => {
    expect(packages.has('undici')).toBe(false);
  });

  it('never loads node:https or TLS when the workspace is plain http on loopback (the sandbox)', () => {
    expect(loaded.filter((u) => u === 'node:https' || u === 'node:tls')).toEqual([]);
    expect(loaded).toContain('node:http');
  });

  it('never loads QuickJS: code mode loads it when a script runs', () => {
    expect([...packages].filter((p) => p.includes('quickjs'))).toEqual([]);
  });

  it('never loads the MCP Apps package: a view loads it when read', () => {
    expect(packages.has('@modelcontextprotocol/ext-apps')).toBe(false);
  });

  it('never loads prom-client, the Redis client or oauth4webapi: metrics, REDIS_URL and sign-in load them', () => {
    expect([...packages].filter((p) => p === 'prom-client' || p === 'redis' || p.startsWith('@redis/') || p === 'oauth4webapi')).toEqual([]);
  });
});
