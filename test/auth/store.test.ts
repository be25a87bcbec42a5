// The token store on disk: private file modes, whole-file replacement that survives a writer killed
// mid-write, one lock across processes, abandoned locks taken over, and the config directory.
import { spawn } from 'node:child_process';
import { watch } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configDir, storeFileName } from '../../src/auth/paths.js';
import { type StoredSignIn, TokenStore } from '../../src/auth/token-store.js';
import { withFileLock } from '../../src/fs/file-lock.js';
import { root, tempConfigDir } from './helpers.js';

const tsx = (script: string, args: string[]) =>
  spawn(process.execPath, ['--import', 'tsx', join('test/auth/fixtures', script), ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });

const signIn = (workspace: string): StoredSignIn => ({
  version: 1,
  workspace,
  client: { client_id: 'wcc_test', issuer: workspace, registered_at: '2026-01-01T00:00:00.000Z' },
  tokens: { access_token: 'wco_at_x', refresh_token: 'wco_rt_y', scope: 'read', issued_at: 1, expires_at: 2 },
});

describe('token store', () => {
  it('keeps one file per workspace, mode 0600 in a 0700 directory, and reads back what it wrote', async () => {
    const dir = join(await tempConfigDir(), 'nested');
    const store = new TokenStore('https://acme.workspace-consulting.com', dir);
    await store.write(signIn('https://acme.workspace-consulting.com'));
    expect(store.file).toBe(join(dir, 'acme.workspace-consulting.com.json'));
    expect((await stat(store.file)).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect(await store.read()).toEqual(signIn('https://acme.workspace-consulting.com'));

    const other = new TokenStore('http://127.0.0.1:4100', dir);
    expect(other.file).toBe(join(dir, '127.0.0.1_4100.json'));
    expect(await other.read()).toBeUndefined();
  });

  it('treats a file of another workspace or a damaged file as no sign-in', async () => {
    const dir = await tempConfigDir();
    const store = new TokenStore('http://127.0.0.1:4100', dir);
    await store.write(signIn('http://127.0.0.1:4100'));
    await writeFile(store.file, '{"version":1,"workspace":"http://127.0.0.1:4100","tok');
    expect(await store.read()).toBeUndefined();
    await writeFile(store.file, JSON.stringify(signIn('http://127.0.0.1:9999')));
    expect(await store.read()).toBeUndefined();
  });

  it('is never half-written: a writer killed at any moment leaves the old or the new content', async () => {
    const dir = await tempConfigDir();
    const file = join(dir, 'big.json');
    const size = 4 * 1024 * 1024;
    for (let round = 0; round < 6; round++) {
      const child = tsx('writer.ts', [file, String(size)]);
      await new Promise<void>((resolve, reject) => {
        child.stdout.once('data', () => resolve());
        child.once('exit', (code) => reject(new Error(`writer exited ${code}`)));
      });
      // Killed in a later write, at a different point of it each round: a write is a dozen steps the
      // folder shows (the temporary file created, written in chunks, renamed over the file), and the
      // kill comes after the (1 + 5 * round)-th step seen since its first write.
      const steps = 1 + 5 * round;
      await new Promise<void>((resolve, reject) => {
        let seen = 0;
        const watcher = watch(dir, () => {
          if (++seen < steps) return;
          watcher.close();
          resolve();
        });
        watcher.on('error', reject);
        child.once('exit', (code) => {
          watcher.close();
          reject(new Error(`writer exited ${code}`));
        });
      });
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
      const doc = JSON.parse(await readFile(file, 'utf8')) as { n: number; pad: string };
      expect(doc.pad.length).toBe(size);
      expect(doc.pad).toBe(String(doc.n % 10).repeat(size));
      expect((await stat(file)).mode & 0o777).toBe(0o600);
    }
  }, 60_000);

  it('lets one process at a time hold the lock: two processes lose no increment', async () => {
    const dir = await tempConfigDir();
    const counter = join(dir, 'counter');
    await writeFile(counter, '0');
    const runs = [0, 1].map(() => {
      const child = tsx('locker.ts', [join(dir, 'counter.lock'), counter, '40']);
      return new Promise<number | null>((resolve) => child.once('exit', resolve));
    });
    expect(await Promise.all(runs)).toEqual([0, 0]);
    expect(await readFile(counter, 'utf8')).toBe('80');
  }, 60_000);

  it('takes over a lock whose holder died, and waits for one that is alive', async () => {
    const dir = await tempConfigDir();
    const lock = join(dir, 'x.lock');
    // A pid far above any real one: the holder is gone.
    await writeFile(lock, '2147483646 deadbeef');
    expect(await withFileLock(lock, async () => 'taken', { timeoutMs: 2000 })).toBe('taken');

    await writeFile(lock, `${process.pid} someone-else`);
    await expect(withFileLock(lock, async () => 'never', { timeoutMs: 200 })).rejects.toThrow(/holds/);
    // Left alone: the lock belongs to its holder, not to the one who gave up.
    expect(await readFile(lock, 'utf8')).toBe(`${process.pid} someone-else`);
  });

  it('lives in WORKSPACE_CONFIG_DIR, else the platform config directory', () => {
    expect(configDir({ WORKSPACE_CONFIG_DIR: '/srv/wcm' }, 'linux')).toBe('/srv/wcm');
    expect(configDir({ XDG_CONFIG_HOME: '/x' }, 'linux')).toBe(join('/x', 'workspace-consulting-mcp'));
    expect(configDir({ APPDATA: 'C:\\Users\\a\\AppData\\Roaming' }, 'win32')).toBe(join('C:\\Users\\a\\AppData\\Roaming', 'workspace-consulting-mcp'));
    expect(configDir({}, 'darwin')).toMatch(/Library[/\\]Application Support[/\\]workspace-consulting-mcp$/);
    expect(storeFileName('http://[::1]:8080')).toBe('__1_8080.json');
  });
});
