// The README's quick start, from a fresh clone of the committed HEAD: `npm install && npm start`
// serves MCP to a real client over piped stdio (no banner), and the README's test command is the one
// CI runs; one small test file runs from the clone (the whole suite inside a test would be too slow).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

let clone: string;
/** What a newcomer's shell passes to npm to reach the registry on this network: its CA and proxies. */
const network = Object.fromEntries(
  ['NODE_EXTRA_CA_CERTS', 'HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY', 'https_proxy', 'http_proxy', 'no_proxy'].flatMap((k) =>
    process.env[k] ? [[k, process.env[k] as string]] : [],
  ),
);
const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LANG: 'C', npm_config_audit: 'false', npm_config_fund: 'false', ...network };

/** The shell lines of the README's "Quick start" section, in order. */
async function quickStartLines(readme: string): Promise<string[]> {
  const section = readme.split(/^## /m).find((s) => s.startsWith('Quick start')) ?? '';
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => (m[1] as string).trim().split('\n'));
}

beforeAll(async () => {
  clone = await mkdtemp(join(tmpdir(), 'wcm-clone-'));
  execFileSync('git', ['clone', '--quiet', ROOT, clone], { env });
}, 60_000);
afterAll(() => rm(clone, { recursive: true, force: true }));

describe('the README quick start from a fresh clone', () => {
  it('names npm install && npm start and npm test, and npm test is what CI runs', async () => {
    const lines = await quickStartLines(await readFile(join(clone, 'README.md'), 'utf8'));
    expect(lines).toEqual(['npm install && npm start', 'npm test']);
    const ci = (await readFile(join(clone, '.ci/run'), 'utf8')).trim().split('\n');
    expect(ci).toContain('npm test');
  });

  it('installs, starts with a piped stdin and answers initialize and tools/list, then runs a test file', async () => {
    const install = spawnSync('npm', ['install', '--prefer-offline'], { cwd: clone, env, encoding: 'utf8', timeout: 540_000 });
    expect(install.status, install.stderr).toBe(0);

    const transport = new StdioClientTransport({ command: 'npm', args: ['start', '--silent'], cwd: clone, env: { ...env, LOG_LEVEL: 'warn' }, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const client = new Client({ name: 'quickstart', version: '1.0.0' });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()?.name).toBe('workspace-consulting-mcp');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('engagement_overview');
    } finally {
      await client.close();
    }
    // A client pipes stdio: no banner for a person.
    expect(stderr).not.toContain('MCP server ready');

    const test = spawnSync('npx', ['vitest', 'run', 'test/i18n.test.ts'], { cwd: clone, env, encoding: 'utf8', timeout: 120_000 });
    expect(test.status, test.stdout + test.stderr).toBe(0);
  }, 700_000);
});
