import { mkdir, mkdtemp, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { Tool } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { catalog } from '../../../catalog/index.js';
import type { ApiClient } from '../../../src/api/client.js';
import { loadConfig } from '../../../src/config.js';
import { createLogger } from '../../../src/log.js';
import { safeFileName, saveFile } from '../../../src/mcp/files/downloads.js';
import { OperationSet } from '../../../src/mcp/operations/operation-set.js';
import { checkUploadPath } from '../../../src/mcp/pipeline/uploads.js';
import { Session } from '../../../src/mcp/server/session.js';

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

describe('upload paths outside the folders', () => {
  it('are refused before the disk is asked: a file that exists and one that does not get the same answer', async () => {
    const root = await mkdtemp(join(tmpdir(), 'wcm-up-'));
    const outside = await mkdtemp(join(tmpdir(), 'wcm-out-'));
    await writeFile(join(outside, 'secret.txt'), 'no');
    const existing = await checkUploadPath(join(outside, 'secret.txt'), [root], 1024).then(
      () => 'accepted',
      (e: Error) => e.message,
    );
    const absent = await checkUploadPath(join(outside, 'absent.txt'), [root], 1024).then(
      () => 'accepted',
      (e: Error) => e.message,
    );
    expect(existing).toMatch(/outside the folders/);
    expect(absent).toBe(existing.replace('secret.txt', 'absent.txt'));
  });
});

describe('upload paths on a shared (remote) server', () => {
  it('with no folder opened, every path is refused without the disk being asked, naming what to send instead', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wcm-remote-'));
    await writeFile(join(dir, 'there.txt'), 'x');
    const refusals = await Promise.all(
      [join(dir, 'there.txt'), join(dir, 'absent.txt'), 'relative.txt'].map((p) =>
        checkUploadPath(p, { dirs: [], remote: true }, 1024).then(
          () => 'accepted',
          (e: Error) => e.message,
        ),
      ),
    );
    // The same answer whether the file exists or not: a member learns nothing of the replica's disk.
    for (const r of refusals) expect(r).toMatch(/reads no files of its own.*file\.base64.*file\.filename and file\.content_type, at most 1 KiB/);
    expect(refusals[0]?.replace(/there/g, 'absent')).toBe(refusals[1]);
  });

  it('with folders opened by the operator, a file inside is read; outside, existing or not, gets the same refusal', async () => {
    const open = await mkdtemp(join(tmpdir(), 'wcm-remote-open-'));
    const elsewhere = await mkdtemp(join(tmpdir(), 'wcm-remote-else-'));
    await writeFile(join(open, 'ok.txt'), 'hello');
    await writeFile(join(elsewhere, 'secret.txt'), 'no');
    const folders = { dirs: [open], remote: true };
    await expect(checkUploadPath(join(open, 'ok.txt'), folders, 1024)).resolves.toMatchObject({ size: 5 });
    const existing = await checkUploadPath(join(elsewhere, 'secret.txt'), folders, 1024).then(
      () => 'accepted',
      (e: Error) => e.message,
    );
    const absent = await checkUploadPath(join(elsewhere, 'absent.txt'), folders, 1024).then(
      () => 'accepted',
      (e: Error) => e.message,
    );
    expect(existing).toMatch(/is outside the folders this server may read.*file\.base64/);
    expect(absent).toBe(existing.replace('secret.txt', 'absent.txt'));
  });
});

describe('upload tools on a shared (remote) server', () => {
  const uploadTool = (env: Record<string, string>) => {
    const { logger } = createLogger('silent');
    const session = new Session({
      config: loadConfig({ WORKSPACE_TOOLSETS: 'all', ...env }, ['--remote']),
      client: {} as ApiClient,
      logger,
      operations: new OperationSet({ catalog, logger, live: false }),
    });
    session.close();
    return session.tools().find((t) => t.name === 'upload_artifact') as Tool;
  };
  const fileOf = (t: Tool) => (t.inputSchema.properties as Record<string, { properties: Record<string, unknown>; description: string }>).file!;

  it('take content only, and say so, when no folder is opened', () => {
    const t = uploadTool({});
    expect(Object.keys(fileOf(t).properties).sort()).toEqual(['base64', 'content_type', 'filename', 'text']);
    expect(fileOf(t).description).toMatch(/base64.*at most 25600 KiB.*path is not accepted/);
    expect(t.description).toMatch(/Send the file's content in the call/);
  });

  it('also take a path when the operator opened folders, naming them', () => {
    const f = fileOf(uploadTool({ WORKSPACE_REMOTE_UPLOAD_DIRS: '/srv/shared' }));
    expect(Object.keys(f.properties)).toContain('path');
    expect(f.description).toMatch(/path, only to a file inside \/srv\/shared on the server/);
  });
});
