// Installing anywhere, proved: the npm tarball installed into an empty folder and its bin serving
// tools/list over stdio; the .mcpb bundle validated, unpacked and its entry point started the way
// a desktop assistant starts it. Built once, in a copy of the checkout, so the build never rewrites
// the dist/ that other test files run.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shownSchemas } from '../../scripts/build-schemas.js';
import { buildBundle, MCPB_CLI, ROOT } from '../../scripts/bundle.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const npm = (args: string[], cwd: string) =>
  execFileSync(NPM, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], shell: process.platform === 'win32' });

/** What a checkout holds that packing and bundling read. */
const CHECKOUT = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'src',
  'catalog',
  // The server's bundle and the apps' views, and their builds (npm run build writes dist/src and dist/apps).
  'apps',
  'scripts/build-server.ts',
  'scripts/build-apps.ts',
  // The input schemas converted once at build time (npm run build's last step).
  'scripts/build-schemas.ts',
  'README.md',
  'LICENSE',
  'manifest.json',
  'icon.png',
];
const DEV_ONLY = ['typescript', 'vitest', 'tsx', '@anthropic-ai/mcpb', '@modelcontextprotocol/inspector', '@modelcontextprotocol/conformance'];

interface Manifest {
  server: { entry_point: string; mcp_config: { command: string; args: string[]; env: Record<string, string> } };
  tools: { name: string }[];
  user_config: Record<string, { default?: unknown }>;
}

let work: string;
let checkout: string;
let tarball: string;
let sandbox: SandboxHandle;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'wcm-install-'));
  checkout = join(work, 'checkout');
  mkdirSync(checkout);
  for (const path of CHECKOUT) cpSync(join(ROOT, path), join(checkout, path), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(checkout, 'node_modules'), 'junction');
  // `npm pack` runs `prepare` (npm run build), as on a fresh clone.
  const [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', work], checkout)) as { filename: string }[];
  tarball = join(work, (packed as { filename: string }).filename);
  sandbox = await startSandbox({ port: 0, rateLimit: false });
}, 300_000);

afterAll(async () => {
  await sandbox?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

async function listAndCall(command: string, args: string[], env: Record<string, string>) {
  const client = new Client({ name: 'install-test', version: '1' });
  const transport = new StdioClientTransport({ command, args, env: { PATH: process.env.PATH ?? '', HOME: work, LOG_LEVEL: 'warn', ...env }, stderr: 'pipe' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    const call = (await client.callTool({ name: 'list_engagements', arguments: {} })) as CallToolResult;
    // The installed server finds its built views (dist/apps) wherever it was installed.
    const view = (await client.readResource({ uri: 'ui://workspace-consulting/review-board' })).contents[0] as { mimeType?: string; text?: string };
    return { names: tools.map((t) => t.name), call, view };
  } finally {
    await client.close();
  }
}

const firstText = (r: CallToolResult) => (r.content[0]?.type === 'text' ? r.content[0].text : '');

describe('the npm package', () => {
  it('holds the built server and nothing of the sources or tests', () => {
    const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n').filter(Boolean);
    expect(files).toContain('package/dist/src/cli.js');
    // The server is the bundle (cli.js, the script worker's entry, their chunks), not tsc's separate modules.
    expect(files).toContain('package/dist/src/script-worker.js');
    expect(files.filter((f) => f.startsWith('package/dist/unbundled/') || f.startsWith('package/dist/src/mcp/'))).toEqual([]);
    // The MCP Apps views, built at pack time into one HTML file each.
    for (const view of ['review_board', 'engagement_dashboard', 'document_preview']) expect(files).toContain(`package/dist/apps/${view}.html`);
    // The input schemas the build converted, bundled with the code they were converted from: the
    // literal the listing parses holds every catalog operation's, as the sources convert them now.
    const bundled = readdirSync(join(checkout, 'dist/src'))
      .filter((f) => f.endsWith('.js'))
      .map((f) => readFileSync(join(checkout, 'dist/src', f), 'utf8'))
      .join('\n');
    const literal = /function builtSchemas\(\) \{[^}]*?JSON\.parse\(('(?:[^'\\]|\\.)*')\)/.exec(bundled)?.[1];
    expect(literal, 'the bundled schemas').toBeDefined();
    expect(JSON.parse(new Function(`return ${literal}`)() as string)).toEqual(shownSchemas());
    expect(files).toContain('package/package.json');
    expect(files).toContain('package/LICENSE');
    expect(files.filter((f) => f.endsWith('.ts') || f.startsWith('package/test/') || f.startsWith('package/src/'))).toEqual([]);
  });

  it('installs into an empty folder with production dependencies only, and its bin serves over stdio', async () => {
    const app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), '{"name": "empty", "private": true}\n');
    npm(['install', '--omit=dev', '--no-audit', '--no-fund', tarball], app);
    for (const dev of DEV_ONLY) expect(existsSync(join(app, 'node_modules', dev)), dev).toBe(false);
    const bin = join(app, 'node_modules', '.bin', process.platform === 'win32' ? 'workspace-consulting-mcp.cmd' : 'workspace-consulting-mcp');
    expect(existsSync(bin)).toBe(true);
    const { names, call, view } = await listAndCall(bin, [], { WORKSPACE_URL: sandbox.url, WORKSPACE_TOKEN: sandbox.tokens.read });
    expect(names).toContain('find_operations');
    expect(view.mimeType).toBe('text/html;profile=mcp-app');
    expect(view.text).toMatch(/^<!doctype html>/i);
    expect(call.isError).toBeFalsy();
    expect(firstText(call)).toMatch(/[0-9A-HJKMNP-TV-Z]{26}/);
  });
});

describe('the MCP Bundle', () => {
  it('is built with production dependencies, validates, unpacks, and its entry point serves tools/list', async () => {
    const mcpb = buildBundle({ root: checkout, skipBuild: true, out: join(work, 'server.mcpb') });
    const unpacked = join(work, 'unpacked');
    execFileSync(process.execPath, [MCPB_CLI, 'unpack', mcpb, unpacked], { stdio: 'ignore' });
    const validated = execFileSync(process.execPath, [MCPB_CLI, 'validate', join(unpacked, 'manifest.json')], { encoding: 'utf8' });
    expect(validated).toContain('Manifest schema validation passes');

    const manifest = JSON.parse(readFileSync(join(unpacked, 'manifest.json'), 'utf8')) as Manifest;
    // mcpb validate does not look for the entry point: this does.
    expect(existsSync(join(unpacked, manifest.server.entry_point))).toBe(true);
    expect(existsSync(join(unpacked, 'icon.png'))).toBe(true);
    expect(existsSync(join(unpacked, 'node_modules/@modelcontextprotocol/server/package.json'))).toBe(true);
    for (const dev of DEV_ONLY) expect(existsSync(join(unpacked, 'node_modules', dev)), dev).toBe(false);
    expect(readdirSync(unpacked).sort()).toEqual(['LICENSE', 'README.md', 'dist', 'icon.png', 'manifest.json', 'node_modules', 'package.json']);

    // Start it as the desktop app does: placeholders filled from the user's settings and defaults.
    const settings: Record<string, string> = { workspace_url: sandbox.url, workspace_token: sandbox.tokens.read };
    // A default may hold a placeholder of its own (${DOWNLOADS}): user settings are filled first.
    const fill = (s: string) =>
      s
        .replace(/\$\{user_config\.([a-z_]+)\}/g, (_, key: string) => settings[key] ?? String(manifest.user_config[key]?.default ?? ''))
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the manifest's own placeholder, filled here as the desktop app fills it
        .replaceAll('${__dirname}', unpacked)
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the manifest's own placeholder, filled here as the desktop app fills it
        .replaceAll('${DOWNLOADS}', join(work, 'Downloads'));
    const { command, args, env } = manifest.server.mcp_config;
    const filledEnv = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, fill(v)]));
    expect(filledEnv.WORKSPACE_DOWNLOAD_DIR).toBe(join(work, 'Downloads', 'workspace-consulting'));
    const { names, call, view } = await listAndCall(command === 'node' ? process.execPath : command, args.map(fill), filledEnv);
    expect(view.mimeType).toBe('text/html;profile=mcp-app');
    expect(names).toEqual(manifest.tools.map((t) => t.name));
    expect(call.isError).toBeFalsy();
    expect(firstText(call)).toMatch(/[0-9A-HJKMNP-TV-Z]{26}/);
  }, 180_000);
});
