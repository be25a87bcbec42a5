// Making a folder and the missing ones above it, one level at a time: Node's recursive mkdir never
// returns for a path under /proc (making a missing parent there answers ENOENT again), which left a
// server whose configuration folder was such a path spinning a CPU, its budget never opened.
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDirectory, makeDirectorySync } from '../../src/fs/directories.js';
import { openLocalStore } from '../../src/store/open.js';

const root = mkdtempSync(join(tmpdir(), 'wcm-directories-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A path whose folders cannot be made for want of a parent: Linux's /proc answers ENOENT. */
const UNMAKEABLE = '/proc/wcm-nope/x/state';
const NO_PROC = existsSync('/proc/self') ? undefined : 'no /proc here: the folder that cannot be made is one of Linux';

describe.each([
  ['makeDirectory', (dir: string, mode?: number) => makeDirectory(dir, mode)],
  ['makeDirectorySync', async (dir: string, mode?: number) => makeDirectorySync(dir, mode)],
])('%s', (name, make) => {
  it('makes every missing folder of the path, each with the mode asked for', async () => {
    const dir = join(root, name, 'a', 'b', 'c');
    await make(dir, 0o700);
    for (const level of [join(root, name), join(root, name, 'a'), join(root, name, 'a', 'b'), dir]) {
      expect(statSync(level).isDirectory(), level).toBe(true);
      if (process.platform !== 'win32') expect(statSync(level).mode & 0o777, level).toBe(0o700);
    }
  });

  it('leaves a folder that exists as it is', async () => {
    const dir = join(root, `${name}-there`);
    await make(dir, 0o700);
    await expect(make(dir, 0o700)).resolves.toBeUndefined();
  });

  it('refuses a path through a file: ENOTDIR, nothing made', async () => {
    const file = join(root, `${name}-file`);
    writeFileSync(file, 'x');
    await expect(make(join(file, 'below'))).rejects.toMatchObject({ code: 'ENOTDIR' });
  });

  it('rejects a folder that cannot be made for want of its parent (ENOENT), at once, where Node loops', async (ctx) => {
    ctx.skip(NO_PROC !== undefined, NO_PROC);
    await expect(make(UNMAKEABLE, 0o700)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe("a local server's rate budget", () => {
  it('in a configuration folder that cannot be made: counted in memory, with a warning naming the folder', async (ctx) => {
    ctx.skip(NO_PROC !== undefined, NO_PROC);
    const warnings: string[] = [];
    const store = await openLocalStore({ configDir: '/proc/wcm-nope/x', warn: (m) => warnings.push(m) });
    expect(warnings).toEqual(['Cannot use /proc/wcm-nope/x/state for the shared rate budget (ENOENT): this process counts its own requests only.']);
    expect(store.constructor.name).toBe('MemoryStore');
    await store.close();
  });
});
