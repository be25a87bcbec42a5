// The README's quick start from a fresh clone of the committed HEAD, followed as a newcomer whose `node`
// is older than the floor (Node 22.12 first on PATH) and whose HOME is empty: its first line brings Node
// 22 from the npm registry, then `npm install && npm start`, as written, installs and serves MCP to the
// messages piped in (every call answered when the input ends), and the client set-up's command prints
// where that Node is. The README's test command is the one CI runs; one small test file runs from the
// clone (the whole suite inside a test would be too slow).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meetsNodeFloor, NODE_INSTALL_BIN, NODE_INSTALL_LINE } from '../../src/node-floor.js';
import { ROOT } from '../helpers/cli.js';
import { OLD_NODE_VERSION, oldNode } from '../helpers/old-node.js';
import { npmNetworkEnv, pipedSession, runShell } from '../helpers/shell.js';

let work: string;
let clone: string;
let home: string;
/** The newcomer's PATH: a Node older than the floor first, then the machine's (npm, git, a shell). */
let olderFirst: string;
const readme = () => readFile(join(clone, 'README.md'), 'utf8');

/** The shell lines of the README's "Quick start" section, in order. */
function quickStartLines(text: string): string[] {
  const section = text.split(/^## /m).find((s) => s.startsWith('Quick start')) ?? '';
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => (m[1] as string).trim().split('\n'));
}

/** The newcomer's environment: their npm's configuration and cache (how it reaches the registry here), offline first. */
const env = () => ({
  PATH: olderFirst,
  HOME: home,
  LANG: 'C',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_prefer_offline: 'true',
  npm_config_update_notifier: 'false',
  ...npmNetworkEnv(),
});

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'wcm-quickstart-'));
  clone = join(work, 'workspace-consulting-mcp');
  home = join(work, 'home');
  await mkdir(home);
  olderFirst = `${dirname(oldNode())}:${process.env.PATH ?? ''}`;
  execFileSync('git', ['clone', '--quiet', ROOT, clone], { env: { PATH: process.env.PATH ?? '', HOME: home } });
}, 300_000);
afterAll(() => rm(work, { recursive: true, force: true }));

describe('the README quick start from a fresh clone, on an older Node', () => {
  it('gives the line that brings Node 22, then npm install && npm start, and npm test, which is what CI runs', async () => {
    expect(quickStartLines(await readme())).toEqual([NODE_INSTALL_LINE, 'npm install && npm start', 'npm test']);
    const ci = (await readFile(join(clone, '.ci/run'), 'utf8')).trim().split('\n');
    expect(ci).toContain('npm test');
  });

  it('brings Node 22, installs, and serves the messages piped into npm start; the client set-up prints where that Node is', async () => {
    const [nodeLine, installAndStart] = quickStartLines(await readme()) as [string, string];
    const before = spawnSync('node', ['--version'], { env: env(), encoding: 'utf8' }).stdout.trim();
    expect(before).toBe(`v${OLD_NODE_VERSION}`);

    // The README's lines as written, in one shell; what a script pipes in: initialize, a call, the end.
    const piped = pipedSession({ method: 'tools/list' });
    const ran = await runShell(`${nodeLine}\n${installAndStart}`, { cwd: clone, env: { ...env(), LOG_LEVEL: 'warn' }, input: piped, timeoutMs: 600_000 });
    expect(ran.code, ran.stderr.slice(-3000)).toBe(0);
    const answers = ran.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { id: number; result?: { serverInfo?: { name: string }; tools?: { name: string }[] } });
    expect(answers.map((a) => a.id)).toEqual([1, 2]);
    expect(answers[0]?.result?.serverInfo?.name).toBe('workspace-consulting-mcp');
    expect(answers[1]?.result?.tools?.map((t) => t.name)).toContain('engagement_overview');

    // The Node it brought, where the client set-up's command prints its path (test/install/readme.test.ts
    // gives a client such a path).
    const echo = /`(echo "\$HOME\/[^`]+")`/.exec((await readme()).replace(/\s+/g, ' '))?.[1];
    expect(echo).toBe(`echo "${NODE_INSTALL_BIN}"`);
    const newer = (await runShell(echo as string, { cwd: home, env: env() })).stdout.trim();
    expect(newer).toBe(join(home, '.node22/node_modules/.bin/node'));
    expect(meetsNodeFloor(spawnSync(newer, ['--version'], { encoding: 'utf8' }).stdout.trim())).toBe(true);
  }, 700_000);

  it('runs a test file from the clone, on the Node the quick start brought', async () => {
    const path = `${join(home, '.node22/node_modules/.bin')}:${olderFirst}`;
    const test = spawnSync('npx', ['vitest', 'run', 'test/i18n.test.ts'], { cwd: clone, env: { ...env(), PATH: path }, encoding: 'utf8', timeout: 120_000 });
    expect(test.status, test.stdout + test.stderr).toBe(0);
  }, 180_000);
});
