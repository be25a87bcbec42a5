// A person who runs the server in a terminal is told what it serves and how to connect a client, on
// stderr; a client piping stdio gets no banner and a clean stdout. Every command the banner suggests
// runs as printed, from the terminal it was printed in: proved by running each one from a clone.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type LaunchFacts, launchCommand } from '../../src/launcher.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { type BannerInfo, renderBanner } from '../../src/serve/banner.js';
import { ROOT } from '../helpers/cli.js';
import { builtClone } from '../helpers/clone.js';
import { lookUpProgram } from '../helpers/programs.js';
import { claudeEnv, claudeMcpList, newcomerPath, runShell } from '../helpers/shell.js';

/** util-linux's `script`, which gives `npm start` a terminal (BSD's takes other options), or undefined. */
const script = (() => {
  const found = lookUpProgram('script');
  return found && spawnSync(found, ['--version']).status === 0 ? found : undefined;
})();
const NO_SCRIPT = "util-linux's script (a terminal for npm start) is not installed here";
/** npm's layouts (an npx cache, a global prefix's bin linked to lib) as these tests build them are POSIX ones. */
const NOT_POSIX = process.platform === 'win32' ? 'npm lays out its bin folders otherwise on Windows' : undefined;

const INFO: BannerInfo = {
  workspace: 'https://acme.workspace-consulting.com',
  embedded: false,
  member: 'Claire Dubois <claire@acme.test> (admin)',
  scope: 'write (granted at OAuth consent)',
  tools: 25,
  transport: 'stdio (JSON-RPC on stdin/stdout)',
  launch: ['node', '/opt/wcm/dist/src/cli.js'],
  env: { WORKSPACE_URL: 'https://acme.workspace-consulting.com', WORKSPACE_TOKEN: '"$WORKSPACE_TOKEN"' },
};

describe('the banner', () => {
  it('gives the client lines for this install, the name before --env, with settings but never a token value', () => {
    const text = renderBanner(INFO);
    expect(text).toContain('  tools      25\n');
    expect(text).toContain(
      '  Claude Code:  claude mcp add --transport stdio --scope user workspace-consulting --env WORKSPACE_URL=https://acme.workspace-consulting.com --env WORKSPACE_TOKEN="$WORKSPACE_TOKEN" -- node /opt/wcm/dist/src/cli.js\n',
    );
    // The Inspector gives a server only the variables passed with -e.
    expect(text).toContain(
      '  Inspector:    npx @modelcontextprotocol/inspector --cli -e WORKSPACE_URL=https://acme.workspace-consulting.com -e WORKSPACE_TOKEN="$WORKSPACE_TOKEN" node /opt/wcm/dist/src/cli.js --method tools/list\n',
    );
    expect(text).toContain('  Try it first: node /opt/wcm/dist/src/cli.js demo\n');
    expect(text).toContain(
      '  Diagnose:     WORKSPACE_URL=https://acme.workspace-consulting.com WORKSPACE_TOKEN="$WORKSPACE_TOKEN" node /opt/wcm/dist/src/cli.js doctor\n',
    );
    expect(text).toContain('take the token from $WORKSPACE_TOKEN in your shell');
  });

  it('on the embedded sandbox, suggests the same commands with no settings and says nothing of a token', () => {
    const text = renderBanner({ ...INFO, embedded: true, env: {}, launch: ['npx', '-y', 'workspace-consulting-mcp'] });
    expect(text).toContain('  Claude Code:  claude mcp add --transport stdio --scope user workspace-consulting -- npx -y workspace-consulting-mcp\n');
    expect(text).toContain('  Try it first: npx -y workspace-consulting-mcp demo\n');
    expect(text).not.toContain('WORKSPACE_TOKEN');
  });

  it('quotes a path a shell would split', () => {
    expect(renderBanner({ ...INFO, launch: ['node', '/Users/Claire Dubois/wcm/dist/src/cli.js'] })).toContain(
      "  Try it first: node '/Users/Claire Dubois/wcm/dist/src/cli.js' demo\n",
    );
  });
});

describe('the command that starts this program again', () => {
  let dir: string;
  const facts = (over: Partial<LaunchFacts>): LaunchFacts => ({
    invokedAs: undefined,
    execPath: process.execPath,
    path: dirname(process.execPath),
    platform: process.platform,
    ...over,
  });

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wcm-launch-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** An installed package's entry script and a bin link to it, as npm lays them out. */
  function install(prefix: string, binDir: string): { entry: string; bin: string } {
    const entry = join(prefix, 'node_modules/workspace-consulting-mcp/dist/src/cli.js');
    mkdirSync(dirname(entry), { recursive: true });
    writeFileSync(entry, '');
    mkdirSync(binDir, { recursive: true });
    const bin = join(binDir, 'workspace-consulting-mcp');
    symlinkSync(entry, bin);
    return { entry, bin };
  }

  it('is npx for a copy npx runs from its cache', (ctx) => {
    ctx.skip(NOT_POSIX !== undefined, NOT_POSIX);
    const { bin } = install(join(dir, '_npx/4f1c2b'), join(dir, '_npx/4f1c2b/node_modules/.bin'));
    expect(launchCommand(facts({ invokedAs: bin }))).toEqual(['npx', '-y', 'workspace-consulting-mcp']);
  });

  it('is the bare name for an install whose bin is on PATH (global, npm link), else node on its entry', (ctx) => {
    ctx.skip(NOT_POSIX !== undefined, NOT_POSIX);
    const { entry, bin } = install(join(dir, 'global/lib'), join(dir, 'global/bin'));
    expect(launchCommand(facts({ invokedAs: bin, path: [join(dir, 'global/bin'), dirname(process.execPath)].join(':') }))).toEqual([
      'workspace-consulting-mcp',
    ]);
    // A project's node_modules/.bin is not on PATH: its bin name would not be found.
    expect(launchCommand(facts({ invokedAs: bin }))).toEqual(['node', entry]);
  });

  it('is node on the absolute entry for a clone, and names Node.js by its path when `node` on PATH is another one', () => {
    const entry = join(dir, 'clone/dist/src/cli.js');
    mkdirSync(dirname(entry), { recursive: true });
    writeFileSync(entry, '');
    expect(launchCommand(facts({ invokedAs: entry }))).toEqual(['node', entry]);
    expect(launchCommand(facts({ invokedAs: entry, path: dir }))).toEqual([process.execPath, entry]);
  });

  it('loads tsx by its absolute path when run from the sources: `--import tsx` alone resolves from the current folder only', () => {
    const entry = join(ROOT, 'src/cli.ts');
    const tsx = fileURLToPath(import.meta.resolve('tsx'));
    expect(launchCommand(facts({ invokedAs: entry }))).toEqual(['node', '--import', tsx, entry]);
  });
});

/**
 * `npm start` in `cwd` with a pseudo-terminal on stdin (`script`): its stderr once the banner is
 * complete, and what reached the terminal from stdout.
 */
async function bannerAtTerminal(cwd: string, env: Record<string, string>): Promise<{ banner: string; terminal: string }> {
  const err = join(cwd, 'banner.err');
  writeFileSync(err, '');
  const child = spawn(script as string, ['-qec', `npm start 2>${err}`, '/dev/null'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let ended = false;
  let terminal = '';
  child.stdout.on('data', (d: Buffer) => (terminal += d.toString()));
  const closed = new Promise<void>((resolve) =>
    child.on('close', () => {
      ended = true;
      resolve();
    }),
  );
  try {
    // The banner's last line says it is complete, read as the file changes; a server that dies first
    // ends the wait too.
    const complete = () => readFileSync(err, 'utf8').includes('Press Ctrl+C to stop.');
    const watcher = watch(err);
    await Promise.race([
      new Promise<void>((resolve) => {
        watcher.on('change', () => complete() && resolve());
        if (complete()) resolve();
      }),
      closed,
    ]).finally(() => watcher.close());
    return { banner: readFileSync(err, 'utf8'), terminal };
  } finally {
    // Closing the terminal hangs up the server.
    if (!ended) {
      child.kill('SIGTERM');
      await closed;
    }
  }
}

describe('the banner of `npm start` in a clone, at a terminal', () => {
  let work: string;
  let clone: string;
  let sb: SandboxHandle;

  beforeEach((ctx) => ctx.skip(script === undefined, NO_SCRIPT));
  beforeAll(async () => {
    if (script === undefined) return; // every test skips, saying why
    work = mkdtempSync(join(tmpdir(), 'wcm-banner-'));
    clone = await builtClone(work);
    sb = await startSandbox({ port: 0, logger: () => {} });
  }, 120_000);
  afterAll(async () => {
    await sb?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('is printed on stderr with the member, and every command it suggests runs as printed from there', async () => {
    const home = join(work, 'home');
    mkdirSync(home);
    // Settings exported in the person's shell for npm start; the suggestions are then run in a shell
    // that has only the token (they say so): each carries the workspace itself.
    const { banner, terminal } = await bannerAtTerminal(clone, {
      PATH: newcomerPath(),
      HOME: home,
      LANG: 'C',
      TERM: 'dumb',
      LOG_LEVEL: 'silent',
      WORKSPACE_URL: sb.url,
      WORKSPACE_TOKEN: sb.tokens.write,
    });
    expect(banner).toContain('workspace-consulting-mcp: MCP server ready.');
    expect(banner).toContain(`  workspace  ${sb.url}\n`);
    expect(banner).toContain('  member     Claire Dubois <claire.dubois@atelier-conseil.fr> (admin)');
    expect(banner).not.toContain(sb.tokens.write);
    // stdout stays the protocol channel: only npm's own lines about the script it runs reach the terminal.
    expect(terminal.split(/\r?\n/).filter((l) => l.trim() && !l.startsWith('> '))).toEqual([]);
    const entry = join(clone, 'dist/src/cli.js');
    const suggested = (label: string) => {
      const line = new RegExp(`^ {2}${label}: +(.+)$`, 'm').exec(banner)?.[1];
      expect(line, `"${label}:" in\n${banner}`).toBeDefined();
      expect(line).toContain(`node ${entry}`);
      return line as string;
    };
    const shellEnv = { ...claudeEnv(home), WORKSPACE_TOKEN: sb.tokens.write, npm_config_offline: 'true' };

    // Claude Code registers it, and `claude mcp list` starts it and finds it connected.
    const add = await runShell(suggested('Claude Code'), { cwd: clone, env: shellEnv });
    expect(add.code, add.stdout + add.stderr).toBe(0);
    const registered = (
      JSON.parse(readFileSync(join(home, '.claude.json'), 'utf8')) as {
        mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }>;
      }
    ).mcpServers['workspace-consulting'];
    expect(registered).toMatchObject({ command: 'node', args: [entry], env: { WORKSPACE_URL: sb.url, WORKSPACE_TOKEN: sb.tokens.write } });
    const listed = await claudeMcpList(home);
    expect(listed.status['workspace-consulting'], listed.output).toMatch(/Connected/);

    // The Inspector lists the tools of the server serving this workspace (its log names it).
    const inspector = await runShell(suggested('Inspector'), { cwd: clone, env: shellEnv });
    expect(inspector.code, inspector.stderr).toBe(0);
    expect((JSON.parse(inspector.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name)).toContain('find_operations');
    expect(inspector.stderr).toContain(`"workspace":"${sb.url}"`);

    const demo = await runShell(suggested('Try it first'), { cwd: clone, env: shellEnv, timeoutMs: 180_000 });
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stdout).toContain('Done: the three jobs walked end to end.');

    const doctor = await runShell(suggested('Diagnose'), { cwd: clone, env: shellEnv });
    expect(doctor.code, doctor.stdout).toBe(0);
    expect(doctor.stdout).toContain(`workspace ${sb.url}`);
  }, 300_000);

  it('with a token the workspace refuses, says the member is unknown and points to the Diagnose line, which finds the token refused', async () => {
    const home = join(work, 'home-refused');
    mkdirSync(home);
    const refused = 'pat_refusedrefusedrefusedrefused';
    const { banner } = await bannerAtTerminal(clone, {
      PATH: newcomerPath(),
      HOME: home,
      LANG: 'C',
      TERM: 'dumb',
      LOG_LEVEL: 'silent',
      WORKSPACE_URL: sb.url,
      WORKSPACE_TOKEN: refused,
    });
    expect(banner).toMatch(/^ {2}member {5}unknown \(GET \/me failed: .+; the Diagnose line below says why\)$/m);
    const diagnose = /^ {2}Diagnose: +(.+)$/m.exec(banner)?.[1];
    expect(diagnose, banner).toBeDefined();
    const doctor = await runShell(diagnose as string, { cwd: clone, env: { ...claudeEnv(home), WORKSPACE_TOKEN: refused } });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/^FAIL {2}Token /m);
  }, 120_000);
});
