// Uploads by path in both eras: a file inside a folder configured with WORKSPACE_UPLOAD_DIRS goes
// through for every client; a 2025-11-25 client that offers roots opens its roots too (and a roots
// change is followed); a 2026-07-28 client has no roots to offer (roots are deprecated and there is
// no server-to-client request to ask with), so with no folder configured it is told, with nothing
// sent, to set WORKSPACE_UPLOAD_DIRS or send the content instead. Uploads run the way an assistant
// on the default surface runs them: call_operation with upload_artifact.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Client } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { type ConnectOptions, connectHttp, connectStdio, type Era, type EraClient, type ServerHome, serverHome, startHttpServer, type Wire } from '../helpers/eras.js';
import type { HttpChild } from '../http/spawn-http.js';

type Json = Record<string, any>;
const ARTIFACTS = '/engagements/{engagement}/artifacts';

let sandbox: SandboxHandle;
/** The folder configured with WORKSPACE_UPLOAD_DIRS on the servers that have one. */
let folder: string;
/** Folders a 2025 client offers as roots (never configured on the server). */
let rootA: string;
let rootB: string;
/** Servers with the folder configured, and without any. */
let withFolder: ServerHome;
let without: ServerHome;
let httpWithFolder: HttpChild;
let httpWithout: HttpChild;
const open: EraClient[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  const scratch = (name: string) => mkdtemp(join(tmpdir(), `wcm-upload-${name}-`));
  [folder, rootA, rootB] = await Promise.all([scratch('folder'), scratch('root-a'), scratch('root-b')]);
  withFolder = await serverHome(sandbox, { WORKSPACE_UPLOAD_DIRS: folder });
  without = await serverHome(sandbox);
  [httpWithFolder, httpWithout] = await Promise.all([startHttpServer(withFolder), startHttpServer(without)]);
}, 60_000);
afterAll(async () => {
  for (const c of open) await c.close().catch(() => {});
  await httpWithFolder?.stop();
  await httpWithout?.stop();
  await sandbox?.close();
  await withFolder?.cleanup();
  await without?.cleanup();
});

/** A 2025 client offering `roots` (changeable: `roots.length = 0; roots.push(...)`). */
function offering(roots: string[]): ConnectOptions {
  return {
    options: { capabilities: { roots: { listChanged: true } } },
    setup: (client: Client) => client.setRequestHandler('roots/list', () => ({ roots: roots.map((r) => ({ uri: pathToFileURL(r).href, name: r })) })),
  };
}

async function connect(wire: Wire, era: Era, server: 'with folder' | 'without', opts: ConnectOptions = {}): Promise<EraClient> {
  const home = server === 'with folder' ? withFolder : without;
  const c = wire === 'stdio' ? await connectStdio(era, home, opts) : await connectHttp(era, server === 'with folder' ? httpWithFolder : httpWithout, opts);
  open.push(c);
  return c;
}

let n = 0;
/** A text file in `dir`, with a name no other test uses. */
async function fileIn(dir: string): Promise<{ path: string; name: string }> {
  const name = `notes-${++n}.md`;
  const path = join(dir, name);
  await writeFile(path, `# Notes ${n}\n\nThe clerk types every invoice twice.\n`);
  return { path, name };
}

async function upload(c: EraClient, path: string): Promise<CallToolResult> {
  return (await c.client.callTool({ name: 'call_operation', arguments: { operation: 'upload_artifact', arguments: { engagement: ENGAGEMENT_AP, file: { path } } } })) as CallToolResult;
}

const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
/** The uploads of the file named `name` that reached the workspace. */
const uploadsOf = (name: string) => sandbox.requests().filter((q) => q.method === 'POST' && q.template === ARTIFACTS && (q.body as Json)?.files?.file?.filename === name);

async function expectUploaded(c: EraClient, dir: string): Promise<void> {
  const f = await fileIn(dir);
  const r = await upload(c, f.path);
  expect(r.isError, textOf(r)).toBeFalsy();
  expect(r.structuredContent).toMatchObject({ filename: f.name, status: 'processed' });
  expect(uploadsOf(f.name).map((q) => q.status)).toEqual([201]);
}

async function expectRefused(c: EraClient, dir: string, why: RegExp): Promise<void> {
  const f = await fileIn(dir);
  const r = await upload(c, f.path);
  expect(r.isError).toBe(true);
  expect(textOf(r)).toMatch(/nothing was sent/);
  expect(textOf(r)).toMatch(why);
  expect(uploadsOf(f.name)).toEqual([]);
}

for (const wire of ['stdio', 'http'] as const) {
  describe(`uploads by path over ${wire}`, () => {
    for (const era of ['legacy', 'modern'] as const) {
      it(`a ${era === 'legacy' ? '2025-11-25' : '2026-07-28'} client uploads a file inside the configured folder`, async () => {
        const c = await connect(wire, era, 'with folder');
        await expectUploaded(c, folder);
        await expectRefused(c, rootA, /outside the folders this server may read/);
      });
    }

    it('a 2025-11-25 client that offers roots uploads from them, and from its new roots after a change', async () => {
      const roots = [rootA];
      const c = await connect(wire, 'legacy', 'without', offering(roots));
      await expectUploaded(c, rootA);
      await expectRefused(c, rootB, /outside the folders this server may read/);
      roots.splice(0, roots.length, rootB);
      await c.client.sendRootsListChanged();
      // The server asks for the roots again at its next upload.
      await expectUploaded(c, rootB);
      await expectRefused(c, rootA, /outside the folders this server may read/);
    });

    it('a 2025-11-25 client that offers roots still uploads from the configured folder', async () => {
      const c = await connect(wire, 'legacy', 'with folder', offering([rootA]));
      await expectUploaded(c, folder);
      await expectUploaded(c, rootA);
    });

    it('a 2026-07-28 client, with no folder configured, is told to set WORKSPACE_UPLOAD_DIRS, and nothing is sent', async () => {
      const c = await connect(wire, 'modern', 'without');
      await expectRefused(c, rootA, /no folder is open to uploads[\s\S]*WORKSPACE_UPLOAD_DIRS[\s\S]*text or base64/);
    });

    it('a 2026-07-28 client declaring roots is not asked for them: the same refusal, at once', async () => {
      const c = await connect(wire, 'modern', 'without', offering([rootA]));
      const before = c.stderr().length;
      await expectRefused(c, rootA, /no folder is open to uploads[\s\S]*WORKSPACE_UPLOAD_DIRS/);
      // Nothing was attempted: no roots/list refused by the SDK, logged as a warning at every call.
      expect(c.stderr().slice(before)).not.toMatch(/roots/);
    });
  });
}
