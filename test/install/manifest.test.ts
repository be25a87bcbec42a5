// manifest.json stays true to the code: valid for `mcpb validate`, every placeholder defined, every
// variable one the server reads, the tools those the server lists by default, the icon the one the
// script draws.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MCPB_CLI, ROOT } from '../../scripts/bundle.js';
import { drawIcon } from '../../scripts/make-icon.js';
import { defaultManifestTools } from '../../scripts/manifest.js';
import { SETTINGS } from '../../src/config.js';
import { NODE_ENGINES_RANGE } from '../../src/node-floor.js';

interface Manifest {
  manifest_version: string;
  version: string;
  icon: string;
  server: { type: string; entry_point: string; mcp_config: { command: string; args: string[]; env: Record<string, string> } };
  tools: { name: string; description: string }[];
  tools_generated: boolean;
  compatibility: { platforms: string[]; runtimes: { node: string } };
  user_config: Record<string, { type: string; required?: boolean; sensitive?: boolean; default?: unknown }>;
}

const manifest = JSON.parse(readFileSync(join(ROOT, 'manifest.json'), 'utf8')) as Manifest;
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string>; engines: { node: string } };

describe('manifest.json', () => {
  it('passes mcpb validate as manifest version 0.3', () => {
    const out = execFileSync(process.execPath, [MCPB_CLI, 'validate', join(ROOT, 'manifest.json')], { encoding: 'utf8' });
    expect(out).toContain('Manifest schema validation passes');
    expect(manifest.manifest_version).toBe('0.3');
    expect(manifest.version).toBe(pkg.version);
  });

  it('starts the built CLI that the npm bin also names, with Node.js 22.19 or later (the floor the CLI checks) on the three platforms', () => {
    expect(manifest.server.type).toBe('node');
    expect(manifest.server.entry_point).toBe(Object.values(pkg.bin)[0]);
    expect(manifest.server.mcp_config.args).toContain(`\${__dirname}/${manifest.server.entry_point}`);
    expect(pkg.engines.node).toBe(NODE_ENGINES_RANGE);
    expect(NODE_ENGINES_RANGE).toBe('>=22.19.0');
    expect(manifest.compatibility.runtimes.node).toBe(pkg.engines.node);
    expect([...manifest.compatibility.platforms].sort()).toEqual(['darwin', 'linux', 'win32']);
  });

  it('passes only variables the server reads, each from a user setting that exists', () => {
    const known = new Set<string>(SETTINGS.map((s) => s.env));
    for (const [name, value] of Object.entries(manifest.server.mcp_config.env)) {
      expect(known.has(name), name).toBe(true);
      const key = /^\$\{user_config\.([a-z_]+)\}$/.exec(value)?.[1];
      expect(key && manifest.user_config[key], `${name}=${value}`).toBeTruthy();
    }
    const used = Object.values(manifest.server.mcp_config.env).map((v) => v.replace(/^\$\{user_config\.|\}$/g, ''));
    expect(Object.keys(manifest.user_config).sort()).toEqual(used.sort());
  });

  it('asks for the workspace URL, and for a token only optionally and as a secret (OAuth is the other way)', () => {
    expect(manifest.user_config.workspace_url?.required).toBe(true);
    expect(manifest.user_config.workspace_token).toMatchObject({ sensitive: true, required: false });
    expect(manifest.user_config.read_only?.type).toBe('boolean');
    expect(manifest.user_config.download_dir?.type).toBe('directory');
  });

  it('lists the tools the server lists by default (npm run manifest regenerates them)', async () => {
    expect(manifest.tools_generated).toBe(true);
    expect(manifest.tools).toEqual(await defaultManifestTools());
    expect(manifest.tools.map((t) => t.name)).toContain('find_operations');
  });

  it('shows the icon scripts/make-icon.ts draws: a 512x512 PNG', () => {
    const png = readFileSync(join(ROOT, manifest.icon));
    expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([512, 512]);
    expect(png.equals(drawIcon())).toBe(true);
  });
});
