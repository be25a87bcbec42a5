// The README's Claude Code lines, run as written by the real Claude Code CLI (@anthropic-ai/claude-code,
// a dev dependency) on a scratch HOME: `claude mcp add` registers the server, and `claude mcp list`,
// which starts each registered server and checks its health, shows it connected. The only word changed
// is the clone's path placeholder, for a clone built here; the line with the example workspace is also
// run on a sandbox started here, since the example workspace cannot be reached from a test.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { builtClone, CLONE_PLACEHOLDER } from '../helpers/clone.js';
import { claudeEnv, claudeMcpList, runShell } from '../helpers/shell.js';
import { ROOT } from '../helpers/spawn.js';

const NAME = 'workspace-consulting';
const EXAMPLE = { url: 'https://acme.workspace-consulting.com', token: 'pat_...' };

/** The shell blocks of the README's "### Claude Code" section, as written. */
function claudeCodeLines(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('### Claude Code\n');
  expect(start, 'README has "### Claude Code"').toBeGreaterThanOrEqual(0);
  const section = readme.slice(start, readme.indexOf('\n### ', start + 1));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => (m[1] as string).trim());
}

interface Registered {
  type: string;
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** What `claude mcp add --scope user` wrote for the server, read from the scratch HOME. */
function registered(home: string): Registered | undefined {
  return (JSON.parse(readFileSync(join(home, '.claude.json'), 'utf8')) as { mcpServers?: Record<string, Registered> }).mcpServers?.[NAME];
}

let work: string;
let clone: string;
let sb: SandboxHandle;
let homes = 0;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'wcm-claude-'));
  clone = await builtClone(work);
  sb = await startSandbox({ port: 0, logger: () => {} });
}, 120_000);

afterAll(async () => {
  await sb?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** `claude mcp add ...` as a person runs it, in a HOME of its own. */
async function add(line: string): Promise<string> {
  const home = join(work, `home-${++homes}`);
  mkdirSync(home);
  const r = await runShell(line, { cwd: home, env: claudeEnv(home) });
  expect(r.code, `${line}\n${r.stdout}${r.stderr}`).toBe(0);
  return home;
}

const entry = () => join(clone, 'dist/src/cli.js');

describe("the README's Claude Code lines in the real Claude Code CLI", () => {
  it('are three: a workspace from a clone, the sandbox from a clone, and the form for after publishing', () => {
    const lines = claudeCodeLines();
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).toMatch(new RegExp(`^claude mcp add --transport stdio --scope user ${NAME} `));
    expect(lines.filter((l) => l.includes(CLONE_PLACEHOLDER))).toHaveLength(2);
  });

  it('the sandbox line registers the clone, and claude mcp list starts it and shows it connected', async () => {
    const line = claudeCodeLines().find((l) => l.includes(CLONE_PLACEHOLDER) && !l.includes('--env')) as string;
    const home = await add(line.replaceAll(CLONE_PLACEHOLDER, clone));
    expect(registered(home)).toEqual({ type: 'stdio', command: 'node', args: [entry()], env: {} });
    const listed = await claudeMcpList(home);
    expect(listed.status[NAME], listed.output).toMatch(/Connected/);
  }, 180_000);

  it('the workspace line registers the name, the settings and the clone as written, and connects to a workspace', async () => {
    const line = claudeCodeLines().find((l) => l.includes(CLONE_PLACEHOLDER) && l.includes('--env')) as string;
    const home = await add(line.replaceAll(CLONE_PLACEHOLDER, clone));
    expect(registered(home)).toEqual({ type: 'stdio', command: 'node', args: [entry()], env: { WORKSPACE_URL: EXAMPLE.url, WORKSPACE_TOKEN: EXAMPLE.token } });

    const onSandbox = await add(line.replaceAll(CLONE_PLACEHOLDER, clone).replace(EXAMPLE.url, sb.url).replace(EXAMPLE.token, sb.tokens.read));
    expect(registered(onSandbox)?.env).toEqual({ WORKSPACE_URL: sb.url, WORKSPACE_TOKEN: sb.tokens.read });
    const listed = await claudeMcpList(onSandbox);
    expect(listed.status[NAME], listed.output).toMatch(/Connected/);
  }, 180_000);

  it('the line for after publishing registers npx -y workspace-consulting-mcp with the same settings', async () => {
    const line = claudeCodeLines().find((l) => !l.includes(CLONE_PLACEHOLDER)) as string;
    // Not started: the package is not published yet, and a test does not reach the registry.
    const home = await add(line);
    expect(registered(home)).toEqual({
      type: 'stdio',
      command: 'npx',
      args: ['-y', 'workspace-consulting-mcp'],
      env: { WORKSPACE_URL: EXAMPLE.url, WORKSPACE_TOKEN: EXAMPLE.token },
    });
  }, 60_000);
});
