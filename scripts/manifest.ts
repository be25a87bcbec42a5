// The generated parts of manifest.json: the `tools`, what the server answers to tools/list by
// default, before a workspace's live description adds its own operations (hence
// `tools_generated: true`), and the Node.js range, package.json's `engines` (the floor of
// src/node-floor.ts). `npm run manifest` rewrites them; test/install/manifest.test.ts fails when
// they drift.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Tool } from '@modelcontextprotocol/server';
import { catalog } from '../catalog/index.js';
import { toolListFor } from '../src/mcp/server/session.js';

export const MANIFEST_FILE = fileURLToPath(new URL('../manifest.json', import.meta.url));
const PACKAGE_FILE = fileURLToPath(new URL('../package.json', import.meta.url));

/** The bundle's Node.js range: the one npm enforces, package.json's `engines.node`. */
export function manifestNodeRange(): string {
  const pkg = JSON.parse(readFileSync(PACKAGE_FILE, 'utf8')) as { engines?: { node?: string } };
  const range = pkg.engines?.node;
  if (!range) throw new Error('package.json has no engines.node');
  return range;
}

export interface ManifestTool {
  name: string;
  description: string;
}

/** A bundle listing shows one line per tool: the first sentence of what the model reads. */
export function manifestTool(tool: Pick<Tool, 'name' | 'description'>): ManifestTool {
  const text = (tool.description ?? '').replace(/\s+/g, ' ').trim();
  const first = /^.*?[.!?](?=\s|$)/.exec(text)?.[0] ?? text;
  return { name: tool.name, description: first };
}

/** The default tools/list of the server, built offline by the code that answers it (no workspace contacted). */
export async function defaultManifestTools(): Promise<ManifestTool[]> {
  return toolListFor({ toolsets: 'default', readOnly: false }, catalog).map(manifestTool);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const manifest = JSON.parse(readFileSync(MANIFEST_FILE, 'utf8')) as Record<string, unknown>;
  manifest.tools = await defaultManifestTools();
  manifest.tools_generated = true;
  const compatibility = (manifest.compatibility ?? {}) as { runtimes?: Record<string, string> };
  compatibility.runtimes = { ...compatibility.runtimes, node: manifestNodeRange() };
  manifest.compatibility = compatibility;
  writeFileSync(MANIFEST_FILE, `${JSON.stringify(manifest, null, 2)}\n`);
  process.stderr.write(`manifest.json: ${(manifest.tools as unknown[]).length} tools\n`);
}
