// The README's client set-up snippets, parsed from the README and run: each names a command and its
// environment; the test puts a built clone where the snippet says /path/to/workspace-consulting-mcp and
// the sandbox where it names the example workspace, starts the command as the client would, and lists
// the tools; and what it says of a client whose `node` is older, run with Node 22.12 first on its PATH.
// The Claude Code lines are run by the real CLI (claude-code.test.ts).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { NODE_INSTALL_LINE } from '../../src/node-floor.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { builtClone, CLONE_PLACEHOLDER } from '../helpers/clone.js';
import { OLD_NODE_VERSION, oldNode } from '../helpers/old-node.js';
import { ROOT } from '../helpers/spawn.js';
import { spawnHttpServer } from '../helpers/spawn-http.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const setup = readme.slice(readme.indexOf('## Client set-up\n'), readme.indexOf('\n## ', readme.indexOf('## Client set-up\n') + 1));

/** The fenced blocks of one `### ` subsection of Client set-up. */
function blocks(heading: string): { lang: string; body: string }[] {
  const start = setup.indexOf(`### ${heading}\n`);
  expect(start, `README has "### ${heading}"`).toBeGreaterThanOrEqual(0);
  const end = setup.indexOf('\n### ', start + 1);
  const section = setup.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1] as string, body: m[2] as string }));
}

interface ServerEntry {
  type?: string;
  command: string;
  args: string[];
  env: Record<string, string>;
}

const PACKAGE = 'workspace-consulting-mcp';
const ENTRY = `${CLONE_PLACEHOLDER}/dist/src/cli.js`;

let sandbox: SandboxHandle;
let work: string;
let clone: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'wcm-readme-'));
  clone = await builtClone(work);
  sandbox = await startSandbox({ port: 0, rateLimit: false });
}, 120_000);

afterAll(async () => {
  await sandbox?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The example values, valid for the server's configuration (the token stands in for a real one). */
function checkExampleEnv(env: Record<string, string>) {
  expect(env.WORKSPACE_URL).toBe('https://acme.workspace-consulting.com');
  const { WORKSPACE_TOKEN: _token, ...rest } = env;
  expect(() => loadConfig(rest)).not.toThrow();
}

/** Run `node /path/to/workspace-consulting-mcp/dist/src/cli.js ARGS` with the built clone there, on the sandbox, and list tools. */
async function runLocally(command: string, args: string[], env: Record<string, string>): Promise<string[]> {
  expect(command).toBe('node');
  expect(args[0]).toBe(ENTRY);
  const sandboxEnv = { ...env, WORKSPACE_URL: sandbox.url, WORKSPACE_TOKEN: sandbox.tokens.read };
  const client = new Client({ name: 'readme-test', version: '1' });
  const transport = new StdioClientTransport({
    // `node` as the client finds it on PATH: this Node.js.
    command: process.execPath,
    args: [(args[0] as string).replace(CLONE_PLACEHOLDER, clone), ...args.slice(1)],
    // A client starts the server from a folder of its own, not the clone.
    cwd: work,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...sandboxEnv },
    stderr: 'pipe',
  });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    return tools.map((t) => t.name);
  } finally {
    await client.close();
  }
}

describe('README client set-up', () => {
  it('says how the snippets read once the package is published, and that form names this package and its bin', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; bin: Record<string, string> };
    expect(setup).toContain(`Once the package is published on npm (it is not yet, so npx cannot find it), \`npx -y ${PACKAGE}\``);
    expect(setup).toContain(`\`"command": "npx", "args": ["-y", "${PACKAGE}"]\``);
    // `npx -y NAME` runs the bin named NAME of the package NAME.
    expect(pkg.name).toBe(PACKAGE);
    expect(pkg.bin[PACKAGE]).toBe('dist/src/cli.js');
  });

  for (const [heading, key] of [
    ['Claude Desktop', 'mcpServers'],
    ['Cursor', 'mcpServers'],
  ] as const) {
    it(`${heading}: the JSON config starts a server that lists its tools`, async () => {
      const json = blocks(heading).find((b) => b.lang === 'json');
      const config = JSON.parse(json?.body ?? '{}') as Record<string, Record<string, ServerEntry>>;
      const entry = config[key]?.['workspace-consulting'] as ServerEntry;
      checkExampleEnv(entry.env);
      expect(await runLocally(entry.command, entry.args, entry.env)).toContain('find_operations');
    });
  }

  it("says what a client whose node is older shows, and the fix: a newer Node's full path as the command", { timeout: 300_000 }, async () => {
    expect(setup.replace(/\s+/g, ' ')).toContain(
      'when that one is older than 22.19, the server refuses to start and the client shows only "connection closed" (the refusal is in its log). Then write the full path of a newer Node in place of `node`',
    );
    const json = blocks('Claude Desktop').find((b) => b.lang === 'json');
    const entry = (JSON.parse(json?.body ?? '{}') as { mcpServers: Record<string, ServerEntry> }).mcpServers['workspace-consulting'] as ServerEntry;
    const args = entry.args.map((a) => a.replace(CLONE_PLACEHOLDER, clone));
    // A desktop app whose PATH finds a Node older than the floor first.
    const env = {
      PATH: `${dirname(oldNode())}:${process.env.PATH ?? ''}`,
      HOME: process.env.HOME ?? '',
      LOG_LEVEL: 'warn',
      WORKSPACE_URL: sandbox.url,
      WORKSPACE_TOKEN: sandbox.tokens.read,
    };
    const transport = new StdioClientTransport({ command: entry.command, args, cwd: work, env, stderr: 'pipe' });
    let log = '';
    transport.stderr?.on('data', (c: Buffer) => (log += c.toString()));
    await expect(new Client({ name: 'desktop-app', version: '1' }).connect(transport)).rejects.toThrow(/closed/i);
    expect(log).toContain(`this is Node.js v${OLD_NODE_VERSION}: run ${NODE_INSTALL_LINE}`);
    // The same entry with the full path of a supported Node as its command.
    const client = new Client({ name: 'desktop-app', version: '1' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args, cwd: work, env, stderr: 'pipe' }));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('find_operations');
    } finally {
      await client.close();
    }
  });

  it('VS Code: servers with type stdio, the token from a masked input, and the server starts', async () => {
    const json = blocks('VS Code').find((b) => b.lang === 'json');
    const config = JSON.parse(json?.body ?? '{}') as { inputs: { id: string; password?: boolean }[]; servers: Record<string, ServerEntry> };
    const entry = config.servers['workspace-consulting'] as ServerEntry;
    expect(entry.type).toBe('stdio');
    const inputId = /^\$\{input:([\w-]+)\}$/.exec(entry.env.WORKSPACE_TOKEN ?? '')?.[1];
    expect(config.inputs.find((i) => i.id === inputId)?.password).toBe(true);
    checkExampleEnv(entry.env);
    expect(await runLocally(entry.command, entry.args, entry.env)).toContain('find_operations');
  });

  it('custom agents: the serve --http command serves the endpoint the agent snippet connects to', async () => {
    const [sh, ts] = [blocks('Custom agents over HTTP').find((b) => b.lang === 'sh'), blocks('Custom agents over HTTP').find((b) => b.lang === 'ts')];
    const words = (sh?.body ?? '').replace(/\\\n/g, ' ').trim().split(/\s+/);
    const env = Object.fromEntries(words.filter((w) => /^[A-Z_]+=/.test(w)).map((w) => w.split(/=(.*)/s, 2) as [string, string]));
    checkExampleEnv(env);
    const command = words.filter((w) => !/^[A-Z_]+=/.test(w));
    expect(command.slice(0, 2)).toEqual(['node', ENTRY]);
    const args = command.slice(2);
    expect(args.slice(0, 2)).toEqual(['serve', '--http']);
    const port = args[args.indexOf('--port') + 1];
    expect(ts?.body).toContain(`http://127.0.0.1:${port}/mcp`);
    // Port 0 here: the documented port may be taken on this machine.
    const server = await spawnHttpServer(
      { WORKSPACE_URL: sandbox.url, WORKSPACE_TOKEN: sandbox.tokens.read },
      args.slice(2).map((a) => (a === port ? '0' : a)),
      join(clone, 'dist/src/cli.js'),
    );
    try {
      const client = new Client({ name: 'my-agent', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('find_operations');
      await client.close();
    } finally {
      await server.stop();
    }
  });
});
