// node:sqlite prints an ExperimentalWarning on its first use. The local store silences that one
// warning and nothing else: a stdio server's stderr (what a desktop client shows the member as the
// server's log) carries no ExperimentalWarning from the store, stdout only the protocol, and any other
// warning of the process still shows.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { ROOT } from '../helpers/spawn.js';
import { StdioPeer } from '../reliability/stdio-peer.js';

let tmp: string;
let sandbox: SandboxHandle;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'wcm-sqlite-warning-'));
  sandbox = await startSandbox({ port: 0 });
});
afterAll(async () => {
  await sandbox?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('the SQLite store and Node warnings', () => {
  it('a stdio server on the local store answers a call with no ExperimentalWarning on stderr and nothing but protocol on stdout', async () => {
    const configDir = join(tmp, 'config');
    const peer = new StdioPeer('source', { WORKSPACE_URL: sandbox.url, WORKSPACE_TOKEN: sandbox.tokens.read, WORKSPACE_CONFIG_DIR: configDir, HOME: tmp });
    try {
      await peer.open('legacy');
      peer.send({ id: 1, method: 'tools/call', params: { name: 'get_workspace', arguments: {} } });
      const answer = await peer.answer(1, 30_000);
      expect(answer.error).toBeUndefined();
      // The call's slot was taken in the local store's database.
      expect(existsSync(join(configDir, 'state', 'state.db'))).toBe(true);
    } finally {
      await peer.close();
    }
    expect(peer.stderr).not.toMatch(/ExperimentalWarning|SQLite is an experimental/);
    expect(peer.strayLines).toEqual([]);
  }, 60_000);

  it('silences only the SQLite warning: other warnings of the process, experimental or not, still show', () => {
    const dir = join(tmp, 'others');
    const script = `
      const { SqliteStore } = await import(${JSON.stringify(join(ROOT, 'src/store/sqlite.ts'))});
      const s = await SqliteStore.open(${JSON.stringify(dir)});
      await s.set('k', 'v');
      process.emitWarning('another feature is experimental', 'ExperimentalWarning');
      process.emitWarning('a plain warning');
      await s.close();`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('ExperimentalWarning: another feature is experimental');
    expect(r.stderr).toContain('Warning: a plain warning');
    expect(r.stderr).not.toContain('SQLite');
  });
});
