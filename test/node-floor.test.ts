// The Node.js floor is 22.19 (undici 8 needs zlib.createZstdDecompress): on an older Node every
// command stops before it loads anything that could fail later, with one line that names the floor,
// instead of serving a few answers and dying with "Cannot read properties of undefined (reading 'bind')".
import { describe, expect, it } from 'vitest';
import { meetsNodeFloor, NODE_FLOOR, nodeFloorRefusal } from '../src/node-floor.js';
import { runCli } from './helpers/cli.js';
import { OLD_NODE_VERSION, oldNode } from './helpers/old-node.js';

describe('the Node.js floor', () => {
  it('is 22.19.0, compared part by part', () => {
    expect(NODE_FLOOR).toBe('22.19.0');
    for (const v of ['22.19.0', 'v22.19.0', '22.19.1', '22.23.3', '23.0.0', '24.1.0', '30.0.0']) expect(meetsNodeFloor(v), v).toBe(true);
    for (const v of ['22.18.9', 'v22.12.0', '22.2.0', '21.99.0', '20.19.0', '18.0.0', '8.30.0']) expect(meetsNodeFloor(v), v).toBe(false);
    expect(nodeFloorRefusal(process.versions.node)).toBeUndefined();
  });

  it('refuses in the member language, naming the version found and the floor', () => {
    expect(nodeFloorRefusal('22.12.0', { LANG: 'C' })).toBe(
      'workspace-consulting-mcp needs Node.js 22.19 or later, and this is Node.js v22.12.0: install a newer one (https://nodejs.org, or nvm install 22).',
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
      expect(ran.stderr, label).not.toMatch(/bind|TypeError|at .*\.(js|ts):/);
    }
  });
});
