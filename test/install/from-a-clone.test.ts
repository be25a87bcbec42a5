// The README's ways to run the commands until the package is published, run as written from a clone:
// the quick start's `node dist/src/cli.js demo` and `... doctor` in the clone, what it says of the
// server piped (protocol only, but for npm's own lines; every call answered when the input ends), the
// absolute-path form from anywhere, and the bare name after `npm link` (into a scratch npm prefix,
// offline).
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtClone, CLONE_PLACEHOLDER } from '../helpers/clone.js';
import { newcomerPath, pipedSession, runShell } from '../helpers/shell.js';
import { ROOT } from '../helpers/spawn.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const quickStart = readme.slice(readme.indexOf('## Quick start\n'), readme.indexOf('\n## ', readme.indexOf('## Quick start\n') + 1));
const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** The inline commands (`...`) of the quick start that start with `prefix`. */
const inline = (prefix: string) =>
  [...quickStart.replace(/```[\s\S]*?```/g, '').matchAll(/`([^`]+)`/g)].map((m) => (m[1] as string).replace(/\s+/g, ' ')).filter((c) => c.startsWith(prefix));

let work: string;
let clone: string;
let home: string;
const env = () => ({ PATH: newcomerPath(), HOME: home, LANG: 'C' });

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'wcm-from-clone-'));
  clone = await builtClone(work);
  home = join(work, 'home');
  mkdirSync(home);
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('running from a clone, as the README says', () => {
  it('the quick start names the demo and the doctor as node dist/src/cli.js, and both run in the clone', async () => {
    const [demo, doctor] = [inline('node dist/src/cli.js demo'), inline('node dist/src/cli.js doctor')];
    expect(demo).toEqual(['node dist/src/cli.js demo']);
    expect(doctor).toEqual(['node dist/src/cli.js doctor']);
    const ranDemo = await runShell(demo[0] as string, { cwd: clone, env: env(), timeoutMs: 180_000 });
    expect(ranDemo.code, ranDemo.stderr).toBe(0);
    expect(ranDemo.stdout).toContain('Done: the three jobs walked end to end.');
    // No WORKSPACE_URL: the doctor checks the embedded sandbox, and every check passes.
    const ranDoctor = await runShell(doctor[0] as string, { cwd: clone, env: env() });
    expect(ranDoctor.code, ranDoctor.stdout).toBe(0);
  }, 240_000);

  it("piped, node dist/src/cli.js and npm start --silent write protocol only, npm start npm's two lines first; each answers every call, then exits", async () => {
    expect(quickStart.replace(/\s+/g, ' ')).toContain(
      "Piped, `node dist/src/cli.js` (what clients start) and `npm start --silent` print nothing but protocol on stdout; `npm start` alone prints npm's own two lines naming the script first. When its input ends (a script that pipes in a few messages and closes it), it answers the calls already sent",
    );
    // What a one-shot script pipes in: initialize and a call, its end closed at once after them.
    const piped = pipedSession({ method: 'tools/call', params: { name: 'list_engagements', arguments: {} } });
    const npmLines = [`> workspace-consulting-mcp@${version} start`, '> node dist/src/cli.js'];
    for (const [command, first] of [
      ['node dist/src/cli.js', []],
      ['npm start --silent', []],
      ['npm start', npmLines],
    ] as const) {
      const r = await runShell(command, { cwd: clone, env: { ...env(), LOG_LEVEL: 'warn' }, input: piped, timeoutMs: 120_000 });
      expect(r.code, `${command}: ${r.stderr}`).toBe(0);
      const lines = r.stdout.split('\n').filter((l) => l.trim() !== '');
      expect(lines.slice(0, first.length), command).toEqual(first);
      const answers = lines.slice(first.length).map((l) => JSON.parse(l) as { jsonrpc: string; id: number; result?: { isError?: boolean } });
      expect(
        answers.map((a) => [a.jsonrpc, a.id]),
        command,
      ).toEqual([
        ['2.0', 1],
        ['2.0', 2],
      ]);
      expect(answers[1]?.result?.isError, command).toBeFalsy();
    }
  }, 240_000);

  it("the absolute-path form runs from any folder, with the clone's path in place of the placeholder", async () => {
    const form = inline(`node ${CLONE_PLACEHOLDER}/dist/src/cli.js COMMAND`);
    expect(form).toHaveLength(1);
    const r = await runShell((form[0] as string).replace(CLONE_PLACEHOLDER, clone).replace('COMMAND', '--version'), { cwd: home, env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.trim()).toBe(version);
  });

  it('after npm link in the clone, the bare name runs from any folder', async () => {
    expect(quickStart).toMatch(/after `npm link` in the clone, `workspace-consulting-mcp COMMAND` as written/);
    const prefix = join(work, 'npm-prefix');
    // npm's global folder is a scratch prefix here, and npm stays offline: linking needs nothing new.
    const npmEnv = { ...env(), npm_config_prefix: prefix, npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false' };
    const link = await runShell('npm link', { cwd: clone, env: npmEnv, timeoutMs: 240_000 });
    expect(link.code, link.stderr).toBe(0);
    const r = await runShell('workspace-consulting-mcp --version', { cwd: home, env: { ...env(), PATH: `${join(prefix, 'bin')}:${newcomerPath()}` } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.trim()).toBe(version);
  }, 300_000);
});
