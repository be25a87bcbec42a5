// The SQLite store when another process holds the database's write lock (docs/architecture.md, Rate
// budget): a settle the store could not write meanwhile is written again once it can, and the server
// waiting for the lock keeps answering every other session. Apart from the store contract because the
// waits are real.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RateLimiter } from '../../src/api/limiter.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { spawnHttpServer } from '../helpers/spawn-http.js';
import { ONE_SLOT, twoProcesses } from '../helpers/sqlite-store.js';

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'wcm-locked-'));
});
afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/**
 * Another process holding the write lock of the database at `file` (BEGIN IMMEDIATE) until told to
 * let go; resolves once it holds it.
 */
async function lockHolder(file: string): Promise<{ release(): Promise<void> }> {
  const script = `const db = new (process.getBuiltinModule('node:sqlite').DatabaseSync)(${JSON.stringify(file)});
    db.exec('BEGIN IMMEDIATE'); process.send('locked');
    process.on('message', () => { db.exec('COMMIT'); db.close(); process.exit(0); });`;
  const child = fork('-e', [script], { execArgv: ['--no-warnings'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  await once(child, 'message');
  return {
    async release() {
      const exited = once(child, 'exit');
      child.send('go');
      await exited;
    },
  };
}

it('writes again a settle it could not write while the database was locked: another process then sees the slot answered', async () => {
  const dir = join(tmp, 'settle');
  const { a, b, close } = await twoProcesses(dir);
  let holder: { release(): Promise<void> } | undefined;
  let failed!: () => void;
  const settleFailed = new Promise<void>((resolve) => (failed = resolve));
  try {
    // A window short enough that the answered slot frees within the test, a lease (five minutes) that would not.
    const limiter = new RateLimiter({ limit: 1, windowMs: 50, store: a, key: 'budget:locked', onStoreError: () => failed() });
    // The request goes; while it is out, another process takes the write lock, so its settle cannot be written.
    await limiter.schedule(async () => {
      holder = await lockHolder(join(dir, 'state.db'));
    });
    await settleFailed;
    await holder?.release();
    // Written again once the lock is gone: the slot stops counting a hold after its answer, not at its
    // lease (five minutes); looked at on each turn of the event loop until then.
    const until = Date.now() + 10_000;
    while (!(await b.takeSlot('budget:locked', { ...ONE_SLOT, windowMs: 50, holdMs: 60 })).taken) {
      if (Date.now() > until) throw new Error('the slot still counts: its settle was never written');
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  } finally {
    await holder?.release().catch(() => {});
    await close();
  }
}, 30_000);

let sandbox: SandboxHandle;
afterAll(async () => {
  await sandbox?.close();
});

it('keeps answering other sessions within 100 ms while another process holds the write lock for 3 s', async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false, logger: () => {} });
  const configDir = join(tmp, 'server');
  const server = await spawnHttpServer({ WORKSPACE_URL: sandbox.url, WORKSPACE_TOKEN: sandbox.tokens.read, WORKSPACE_CONFIG_DIR: configDir });
  const connect = async () => {
    const client = new Client({ name: 'locked-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    return client;
  };
  const [caller, other] = [await connect(), await connect()];
  try {
    // The server's store is open and its window written once before the lock.
    expect(((await caller.callTool({ name: 'list_engagements', arguments: {} })) as CallToolResult).isError).toBeFalsy();
    const holder = await lockHolder(join(configDir, 'state', 'state.db'));
    let released = false;
    // This call's slot waits for the lock...
    const call = caller.callTool({ name: 'list_engagements', arguments: {} }).then((r) => ({ result: r as CallToolResult, afterRelease: released }));
    // ... and meanwhile the other session's requests are answered as usual.
    const answers: number[] = [];
    const start = performance.now();
    while (performance.now() - start < 3_000) {
      const sent = performance.now();
      await other.ping();
      answers.push(performance.now() - sent);
    }
    released = true;
    await holder.release();
    const { result, afterRelease } = await call;
    expect(result.isError).toBeFalsy();
    expect(afterRelease).toBe(true);
    expect(answers.length).toBeGreaterThan(10);
    expect(Math.max(...answers)).toBeLessThan(100);
  } finally {
    await caller.close();
    await other.close();
    await server.stop();
  }
}, 60_000);
