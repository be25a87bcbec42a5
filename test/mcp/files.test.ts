import { mkdir, mkdtemp, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { safeFileName, saveFile } from '../../src/mcp/files.js';
import { checkUploadPath } from '../../src/mcp/uploads.js';

describe('download file names', () => {
  it.each([
    ['../../etc/passwd', 'passwd'],
    ['..\\..\\windows\\system.ini', 'system.ini'],
    ['.bashrc', 'bashrc'],
    ['report\u0000.pdf', 'report_.pdf'],
    ['', 'fallback.bin'],
    ['..', 'fallback.bin'],
    ['a:b*c?.csv', 'a_b_c_.csv'],
  ])('%j is saved as %j', (given, want) => {
    expect(safeFileName(given, 'fallback.bin')).toBe(want);
  });

  it('streams into the folder, owner-only, never overwriting', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wcm-dl-'));
    const one = await saveFile({ contentType: 'text/csv', filename: '../x.csv', body: Readable.from([Buffer.from('a,b\n')]) }, dir, 'f');
    const two = await saveFile({ contentType: 'text/csv', filename: 'x.csv', body: Readable.from([Buffer.from('c,d\n')]) }, dir, 'f');
    expect(one.path).toBe(join(dir, 'x.csv'));
    expect(two.path).toBe(join(dir, 'x (1).csv'));
    expect(await readFile(one.path, 'utf8')).toBe('a,b\n');
    expect((await stat(one.path)).mode & 0o777).toBe(0o600);
    expect(one.head?.toString()).toBe('a,b\n');
  });
});

describe('upload paths', () => {
  it('accepts a file inside an allowed folder and refuses the rest with the reason', async () => {
    const root = await mkdtemp(join(tmpdir(), 'wcm-up-'));
    const outside = await mkdtemp(join(tmpdir(), 'wcm-out-'));
    await mkdir(join(root, 'sub'));
    await writeFile(join(root, 'sub', 'ok.txt'), 'hello');
    await writeFile(join(outside, 'secret.txt'), 'no');
    await symlink(join(outside, 'secret.txt'), join(root, 'link.txt'));
    await expect(checkUploadPath(join(root, 'sub', 'ok.txt'), [root], 1024)).resolves.toMatchObject({ size: 5 });
    await expect(checkUploadPath(join(outside, 'secret.txt'), [root], 1024)).rejects.toThrow(/outside the folders/);
    await expect(checkUploadPath(join(root, 'sub', '..', '..', outside.split('/').pop()!, 'secret.txt'), [root], 1024)).rejects.toThrow(/outside/);
    await expect(checkUploadPath(join(root, 'link.txt'), [root], 1024)).rejects.toThrow(/outside the folders/);
    await expect(checkUploadPath('relative.txt', [root], 1024)).rejects.toThrow(/absolute path/);
    await expect(checkUploadPath(join(root, 'sub', 'ok.txt'), [root], 3)).rejects.toThrow(/over the/);
    await expect(checkUploadPath(join(root, 'sub', 'ok.txt'), [], 1024)).rejects.toThrow(/no folder is open/);
  });
});
