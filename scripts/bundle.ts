// `npm run bundle`: the MCP Bundle (.mcpb) for one-click install in desktop assistants. Builds,
// stages what the server needs at run time (the server's esbuild bundle in dist/src, the views in
// dist/apps, a package.json without scripts or dev dependencies, manifest.json, icon.png) in a temp
// folder, installs the production dependencies there from the lockfile's versions (what the bundle
// leaves to node_modules), and packs it with `mcpb pack`. Nothing of the dev toolchain (TypeScript,
// vitest, the mcpb CLI itself) goes into the bundle.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
/** The mcpb CLI from node_modules, run with this node (no npx, no network). */
export const MCPB_CLI = join(ROOT, 'node_modules/@anthropic-ai/mcpb/dist/cli/cli.js');

export interface BundleOptions {
  /** The checkout to bundle. Default: this repository. */
  root?: string;
  /** Where the .mcpb goes. Default: workspace-consulting-mcp-VERSION.mcpb in the repository. */
  out?: string;
  /** Skip `npm run build` (a caller that has just built). */
  skipBuild?: boolean;
}

/** Runtime files, relative to the repository, copied as they are. */
const STAGED = ['dist/src', 'dist/apps', 'manifest.json', 'icon.png', 'README.md', 'LICENSE', 'package-lock.json'];

export function buildBundle(opts: BundleOptions = {}): string {
  const run = (cmd: string, args: string[], cwd: string) =>
    execFileSync(cmd, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'], shell: process.platform === 'win32' });
  const root = opts.root ?? ROOT;
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
  const out = resolve(opts.out ?? join(root, `${String(pkg.name)}-${String(pkg.version)}.mcpb`));
  if (!opts.skipBuild) run(NPM, ['run', 'build'], root);

  const stage = mkdtempSync(join(tmpdir(), 'wcm-bundle-'));
  try {
    for (const path of STAGED) cpSync(join(root, path), join(stage, path), { recursive: true });
    // The bundle runs `node dist/src/cli.js`: no build step, no dev tools, no install scripts.
    const { scripts: _scripts, devDependencies: _dev, ...runtime } = pkg;
    writeFileSync(join(stage, 'package.json'), `${JSON.stringify(runtime, null, 2)}\n`);
    run(NPM, ['install', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--no-package-lock'], stage);
    rmSync(join(stage, 'package-lock.json'));
    execFileSync(process.execPath, [MCPB_CLI, 'pack', stage, out], { stdio: ['ignore', 'ignore', 'inherit'] });
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = buildBundle();
  process.stderr.write(`bundle: ${out}\n`);
}
