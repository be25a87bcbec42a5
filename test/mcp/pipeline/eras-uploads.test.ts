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
import { ENGAGEMENT_AP } from '../../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import {
  type ConnectOptions,
  connectHttp,
  connectStdio,
  type Era,
  type EraClient,
  type ServerHome,
  serverHome,
  startHttpServer,
  type Wire,
} from '../../helpers/eras.js';
import type { HttpChild } from '../../helpers/spawn-http.js';

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

/** The roots each wire's roots-changing client offers (changed by its test). */
const changing: Record<Wire, string[]> = { stdio: [], http: [] };

/** The clients of the tests, by wire and name, all connected at the start (stdio servers start at once). */
const CLIENTS = {
  'legacy, folder': { era: 'legacy', server: 'with folder' },
  'modern, folder': { era: 'modern', server: 'with folder' },
  'legacy, roots that change': { era: 'legacy', server: 'without', roots: 'changing' },
  'legacy, roots and folder': { era: 'legacy', server: 'with folder', roots: 'A' },
  'modern, nothing': { era: 'modern', server: 'without' },
  'modern, declaring roots': { era: 'modern', server: 'without', roots: 'A' },
} as const satisfies Record<string, { era: Era; server: 'with folder' | 'without'; roots?: 'A' | 'changing' }>;
type Name = keyof typeof CLIENTS;
const clients = new Map<string, EraClient>();

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  const scratch = (name: string) => mkdtemp(join(tmpdir(), `wcm-upload-${name}-`));
  [folder, rootA, rootB] = await Promise.all([scratch('folder'), scratch('root-a'), scratch('root-b')]);
  changing.stdio.push(rootA);
  changing.http.push(rootA);
  withFolder = await serverHome(sandbox, { WORKSPACE_UPLOAD_DIRS: folder });
  without = await serverHome(sandbox);
  [httpWithFolder, httpWithout] = await Promise.all([startHttpServer(withFolder), startHttpServer(without)]);
  await Promise.all(
    (['stdio', 'http'] as const).flatMap((wire) =>
      Object.entries(CLIENTS).map(async ([name, spec]) => {
        const roots = 'roots' in spec ? (spec.roots === 'A' ? [rootA] : changing[wire]) : undefined;
        const home = spec.server === 'with folder' ? withFolder : without;
        const opts = roots ? offering(roots) : {};
        const c =
          wire === 'stdio'
            ? await connectStdio(spec.era, home, opts)
            : await connectHttp(spec.era, spec.server === 'with folder' ? httpWithFolder : httpWithout, opts);
        clients.set(`${wire}: ${name}`, c);
      }),
    ),
  );
}, 120_000);
afterAll(async () => {
  for (const c of clients.values()) await c.close().catch(() => {});
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

let n = 0;
/** A text file in `dir`, with a name no other test uses. */
async function fileIn(dir: string): Promise<{ path: string; name: string }> {
  const name = `notes-${++n}.md`;
  const path = join(dir, name);
  await writeFile(path, `# Notes ${n}\n\nThe clerk types every invoice twice.\n`);
  return { path, name };
}

async function upload(c: EraClient, path: string): Promise<CallToolResult> {
  return (await c.client.callTool({
    name: 'call_operation',
    arguments: { operation: 'upload_artifact', arguments: { engagement: ENGAGEMENT_AP, file: { path } } },
  })) as CallToolResult;
}

const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
/** The uploads of the file named `name` that reached the workspace. */
const uploadsOf = (name: string) =>
  sandbox.requests().filter((q) => q.method === 'POST' && q.template === ARTIFACTS && (q.body as Json)?.files?.file?.filename === name);

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
    const client = (name: Name) => clients.get(`${wire}: ${name}`) as EraClient;
    for (const era of ['legacy', 'modern'] as const) {
      it(`a ${era === 'legacy' ? '2025-11-25' : '2026-07-28'} client uploads a file inside the configured folder`, async () => {
        const c = client(`${era}, folder`);
        await expectUploaded(c, folder);
        await expectRefused(c, rootA, /outside the folders this server may read/);
      });
    }

    it('a 2025-11-25 client that offers roots uploads from them, and from its new roots after a change', async () => {
      const roots = changing[wire];
      const c = client('legacy, roots that change');
      await expectUploaded(c, rootA);
      await expectRefused(c, rootB, /outside the folders this server may read/);
      roots.splice(0, roots.length, rootB);
      await c.client.sendRootsListChanged();
      // The server asks for the roots again at its next upload.
      await expectUploaded(c, rootB);
      await expectRefused(c, rootA, /outside the folders this server may read/);
    });

    it('a 2025-11-25 client that offers roots still uploads from the configured folder', async () => {
      const c = client('legacy, roots and folder');
      await expectUploaded(c, folder);
      await expectUploaded(c, rootA);
    });

    it('a 2026-07-28 client, with no folder configured, is told to set WORKSPACE_UPLOAD_DIRS, and nothing is sent', async () => {
      const c = client('modern, nothing');
      await expectRefused(c, rootA, /no folder is open to uploads[\s\S]*WORKSPACE_UPLOAD_DIRS[\s\S]*text or base64/);
    });

    it('a 2026-07-28 client declaring roots is not asked for them: the same refusal, at once', async () => {
      const c = client('modern, declaring roots');
      const before = c.stderr().length;
      await expectRefused(c, rootA, /no folder is open to uploads[\s\S]*WORKSPACE_UPLOAD_DIRS/);
      // Nothing was attempted: no roots/list refused by the SDK, logged as a warning at every call.
      expect(c.stderr().slice(before)).not.toMatch(/roots/);
    });
  });
}
