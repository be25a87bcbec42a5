// The server as `npm run build` bundles it (scripts/build-server.ts), built into a folder laid out as an
// install is (package.json, node_modules, dist/src, dist/apps) and run as a client runs the bin, over
// the SDK client's stdio transport, on a sandbox reached over real HTTP: it starts reading a few dozen
// files of its own instead of about 280 modules, and what finds files from its own location (the
// script worker, the apps' views) still does from the bundle's chunks.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPS_OUT, ensureAppsBuilt } from '../../scripts/build-apps.js';
import { buildServer, checkImports, EXTERNAL } from '../../scripts/build-server.js';
import { ENGAGEMENT_AP } from '../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { recordModules } from '../helpers/loaded-modules.js';
import { OLD_NODE_VERSION, oldNode } from '../helpers/old-node.js';
import { ROOT } from '../helpers/spawn.js';
import { type ServerHome, serverHome } from '../helpers/stdio-server.js';

/**
 * Files a start may read before its tools are listed. The same server unbundled (dist/unbundled)
 * loads about 280 modules there, zod alone 97; the bundle about 40 (its entry and the chunks the
 * serve command needs, each command's code its own chunk).
 */
const MOST_FILES_AT_START = 60;

let app: string;
let sandbox: SandboxHandle;
let home: ServerHome;

beforeAll(async () => {
  app = mkdtempSync(join(tmpdir(), 'wcm-bundle-'));
  // As installed: the package's own package.json (ES modules), its dependencies beside it.
  writeFileSync(join(app, 'package.json'), '{"name": "workspace-consulting-mcp", "type": "module"}\n');
  symlinkSync(join(ROOT, 'node_modules'), join(app, 'node_modules'), 'junction');
  await buildServer(join(app, 'dist', 'src'));
  await ensureAppsBuilt();
  cpSync(APPS_OUT, join(app, 'dist', 'apps'), { recursive: true });
  sandbox = await startSandbox({ port: 0, rateLimit: false, logger: () => {} });
  home = await serverHome(sandbox);
}, 120_000);

afterAll(async () => {
  await home?.cleanup();
  await sandbox?.close();
  if (app) rmSync(app, { recursive: true, force: true });
});

/** A session with the built bin, as a client starts it (its shebang's flags aside); `nodeArgs` go before the entry. */
async function session<T>(nodeArgs: string[], env: Record<string, string>, use: (client: Client) => Promise<T>): Promise<T> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...nodeArgs, join(app, 'dist/src/cli.js'), 'serve'],
    cwd: app,
    env: { ...home.env, ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'bundle-test', version: '1' });
  await client.connect(transport);
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

describe('the bundled server', () => {
  it('lists its tools having read only its own bundle: fewer files than the unbundled build, none from node_modules', async () => {
    const recording = recordModules(home.home);
    const tools = await session(recording.nodeArgs, recording.env, async (client) => (await client.listTools()).tools);
    expect(tools.map((t) => t.name)).toContain('list_findings');
    const files = (await recording.loaded()).filter((u) => u.startsWith('file:')).map((u) => fileURLToPath(u));
    expect(files[0]).toBe(join(app, 'dist/src/cli.js'));
    expect(files.filter((f) => !f.startsWith(join(app, 'dist/src/')))).toEqual([]);
    expect(files.length).toBeLessThan(MOST_FILES_AT_START);
  });

  it('runs a script on its worker (dist/src/script-worker.js, QuickJS from node_modules) and reads a view from dist/apps', async () => {
    const { script, view } = await session([], {}, async (client) => ({
      script: (await client.callTool({
        name: 'run_read_script',
        arguments: { script: `return (await api.list_findings({ engagement: ${JSON.stringify(ENGAGEMENT_AP)}, limit: 2 })).items.length;` },
      })) as CallToolResult,
      view: (await client.readResource({ uri: 'ui://workspace-consulting/review-board' })).contents[0] as { text?: string },
    }));
    expect(script.isError, JSON.stringify(script.content)).toBeFalsy();
    expect(script.structuredContent).toMatchObject({ result: 2, api_calls: 1 });
    expect(view.text).toBe(readFileSync(join(app, 'dist/apps/review_board.html'), 'utf8'));
  });

  it(`on Node ${OLD_NODE_VERSION}, refuses in one line naming 22.19: the floor's chunk loads first, before any code newer Node needs`, () => {
    const ran = spawnSync(oldNode(), [join(app, 'dist/src/cli.js'), 'serve'], { env: home.env, encoding: 'utf8', input: '', timeout: 60_000 });
    expect(ran.status).toBe(1);
    expect(ran.stdout).toBe('');
    expect(ran.stderr.split('\n').filter((l) => l !== '')).toEqual([expect.stringMatching(/needs Node\.js 22\.19 or later.*v22\.12\.0/)]);
  });

  it('ships source maps that name the sources, for NODE_OPTIONS=--enable-source-maps', () => {
    const map = JSON.parse(readFileSync(join(app, 'dist/src/cli.js.map'), 'utf8')) as { sources: string[] };
    expect(map.sources.some((s) => s.endsWith('src/cli.ts'))).toBe(true);
    expect(existsSync(join(app, 'dist/src/script-worker.js.map'))).toBe(true);
  });
});

describe('what the bundle leaves to node_modules', () => {
  const metafile = (path: string): Metafile => ({
    inputs: {},
    outputs: { 'dist/src/chunk.js': { bytes: 1, inputs: {}, exports: [], imports: [{ path, kind: 'import-statement', external: true }] } },
  });
  const dependencies = new Set(EXTERNAL);

  it('is a dependency or a builtin, or the build fails naming the import', () => {
    expect(() => checkImports(metafile('node:fs'), dependencies)).not.toThrow();
    expect(() => checkImports(metafile('redis'), dependencies)).not.toThrow();
    expect(() => checkImports(metafile('@modelcontextprotocol/client/stdio'), dependencies)).not.toThrow();
    expect(() => checkImports(metafile('left-pad'), dependencies)).toThrow(/left-pad .*not a dependency/);
  });
});
