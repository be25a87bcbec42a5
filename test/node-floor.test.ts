// The Node.js floor is 22.19 (undici 8 needs zlib.createZstdDecompress): on an older Node every
// command stops before it loads anything that could fail later, with one line that names the floor
// and the command that brings a supported Node from npm, instead of serving a few answers and dying
// with "Cannot read properties of undefined (reading 'bind')". `npm test` checks it first too, before
// it installs anything.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeInstallLine } from '../scripts/test-deps.mjs';
import { meetsNodeFloor, NODE_FLOOR, NODE_INSTALL_LINE, nodeFloorRefusal } from '../src/node-floor.js';
import { ROOT, runCli } from './helpers/cli.js';
import { OLD_NODE_VERSION, oldNode } from './helpers/old-node.js';
import { findProgram } from './helpers/programs.js';

describe('the Node.js floor', () => {
  it('is 22.19.0, compared part by part', () => {
    expect(NODE_FLOOR).toBe('22.19.0');
    for (const v of ['22.19.0', 'v22.19.0', '22.19.1', '22.23.3', '23.0.0', '24.1.0', '30.0.0']) expect(meetsNodeFloor(v), v).toBe(true);
    for (const v of ['22.18.9', 'v22.12.0', '22.2.0', '21.99.0', '20.19.0', '18.0.0', '8.30.0']) expect(meetsNodeFloor(v), v).toBe(false);
    expect(nodeFloorRefusal(process.versions.node)).toBeUndefined();
  });

  it('refuses in the member language, naming the version found and the floor', () => {
    expect(nodeFloorRefusal('22.12.0', { LANG: 'C' })).toBe(
      'workspace-consulting-mcp needs Node.js 22.19 or later, and this is Node.js v22.12.0: run npm install --prefix "$HOME/.node22" node@22 && export PATH="$HOME/.node22/node_modules/.bin:$PATH" (a client that starts it takes that node\'s full path as its command).',
    );
    expect(nodeFloorRefusal('20.11.1', { WORKSPACE_LOCALE: 'fr' })).toMatch(
      /^workspace-consulting-mcp demande Node\.js 22\.19 ou plus récent, et celui-ci est Node\.js v20\.11\.1/,
    );
  });

  const commands = [[], ['serve'], ['serve', '--http'], ['sandbox'], ['login'], ['logout'], ['status'], ['demo'], ['doctor'], ['--help'], ['--version']];

  it(`on Node ${OLD_NODE_VERSION}, every command exits 1 with one line on stderr naming 22.19`, { timeout: 300_000 }, async () => {
    const node = oldNode();
    // Settings that would make a command do something real, were it to start: the refusal comes first.
    const env = { WORKSPACE_URL: 'http://127.0.0.1:9', WORKSPACE_TOKEN: 'pat_abcdefghijklmnop' };
    const runs = await Promise.all(commands.map(async (args) => ({ args, ran: await runCli(args, env, 60_000, node) })));
    for (const { args, ran } of runs) {
      const label = `workspace-consulting-mcp ${args.join(' ')}`;
      expect(ran.code, label).toBe(1);
      expect(ran.stdout, label).toBe('');
      const lines = ran.stderr.split('\n').filter((l) => l !== '');
      expect(lines, label).toHaveLength(1);
      expect(lines[0], label).toMatch(/needs Node\.js 22\.19 or later.*v22\.12\.0/);
      expect(lines[0], label).toContain(NODE_INSTALL_LINE);
      expect(ran.stderr, label).not.toMatch(/bind|TypeError|at .*\.(js|ts):/);
    }
  });

  it('gives the same line as npm test (which builds it from package.json) and the README', () => {
    expect(nodeInstallLine(Number(NODE_FLOOR.split('.')[0]))).toBe(NODE_INSTALL_LINE);
    const quickStart =
      readFileSync(join(ROOT, 'README.md'), 'utf8')
        .split(/^## /m)
        .find((s) => s.startsWith('Quick start')) ?? '';
    expect(quickStart).toContain(`\`\`\`sh\n${NODE_INSTALL_LINE}\n\`\`\``);
  });

  it(`npm test on Node ${OLD_NODE_VERSION} refuses in one line, before it looks for or installs anything`, { timeout: 300_000 }, () => {
    const node = oldNode();
    const work = mkdtempSync(join(tmpdir(), 'wcm-old-npm-test-'));
    try {
      // The project's package.json and its pretest script, nothing else: were the check to let this
      // Node through, the test would find no vitest (and no suite could run from here).
      const project = join(work, 'project');
      mkdirSync(join(project, 'scripts'), { recursive: true });
      cpSync(join(ROOT, 'package.json'), join(project, 'package.json'));
      cpSync(join(ROOT, 'scripts/test-deps.mjs'), join(project, 'scripts/test-deps.mjs'));
      // A PATH with that Node, npm, sh, and an apt-get and a sudo that record any call (installing
      // nothing): the programs npm test brings are all missing from it.
      const bin = join(work, 'bin');
      const log = join(work, 'calls.log');
      mkdirSync(bin);
      for (const name of ['npm', 'sh']) symlinkSync(realpathSync(findProgram(name, `${name} is missing`)), join(bin, name));
      for (const name of ['apt-get', 'sudo']) writeFileSync(join(bin, name), `#!/bin/sh\necho "${name} $*" >> "${log}"\n`, { mode: 0o755 });
      const r = spawnSync('npm', ['test'], {
        cwd: project,
        env: { PATH: `${bin}:${dirname(node)}`, HOME: join(work, 'home'), LANG: 'C', WCM_SYSTEM_BIN_DIRS: '', npm_config_update_notifier: 'false' },
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(r.status, r.stdout + r.stderr).not.toBe(0);
      // npm names the script it runs on stdout; the refusal is the one line on stderr.
      expect(r.stderr.split('\n').filter((l) => l !== '')).toEqual([
        `npm test needs Node.js 22.19 or later, and this is Node.js v${OLD_NODE_VERSION}: run ${NODE_INSTALL_LINE}, then npm test again.`,
      ]);
      expect(r.stdout).not.toMatch(/vitest|apt-get/);
      expect(() => readFileSync(log, 'utf8')).toThrow();
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
