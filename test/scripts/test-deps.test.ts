// `npm test` first brings the programs its tests run (scripts/test-deps.mjs, its pretest; .ci/run runs
// the same). Run as a process, as npm runs it, on a PATH of stand-ins: programs that are present, and an
// apt-get (and a sudo) that record their arguments, the apt-get "installing" a package by putting a
// program of its name on PATH. The system folders the script also searches are emptied for the run
// (WCM_SYSTEM_BIN_DIRS), since this machine has the real programs there, or pointed at a folder of
// stand-ins. Its Node check, which comes first, is run on an older Node in test/node-floor.test.ts.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/spawn.js';

const SCRIPT = join(ROOT, 'scripts/test-deps.mjs');
const ALL = ['redis-server', 'caddy', 'haproxy', 'chromium'];

let work: string;
let bin: string;
let log: string;

function executable(path: string, body: string) {
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
}

/** A program that exists and does nothing. */
const present = (name: string) => executable(join(bin, name), 'exit 0');

/**
 * apt-get that records each call, and on `install` puts a program named after each package on PATH
 * (the packages are named after their programs); `fail` makes every call fail and install nothing.
 */
function fakeAptGet(fail = false) {
  // In JavaScript, on this Node: the PATH of the run holds no chmod to make a program executable with.
  const installs = [
    `const { appendFileSync, writeFileSync } = require('node:fs');`,
    `const args = process.argv.slice(2);`,
    `appendFileSync(${JSON.stringify(log)}, 'apt-get ' + args.join(' ') + '\\n');`,
    fail ? 'process.exit(100);' : '',
    `if (args[0] === 'install') for (const a of args.slice(1).filter((a) => !a.startsWith('-')))`,
    `  writeFileSync(${JSON.stringify(bin)} + '/' + a, '#!/bin/sh\\nexit 0\\n', { mode: 0o755 });`,
  ];
  writeFileSync(join(bin, 'apt-get'), `#!${process.execPath}\n${installs.join('\n')}\n`, { mode: 0o755 });
  // A sudo that asks no password: it records, then runs the command as given.
  executable(join(bin, 'sudo'), [`echo "sudo $*" >> "${log}"`, 'if [ "$1" = -n ]; then shift; fi', '"$@"'].join('\n'));
}

function run(env: Record<string, string> = {}, args: string[] = []) {
  const r = spawnSync(process.execPath, [SCRIPT, ...args], {
    env: { PATH: bin, WCM_SYSTEM_BIN_DIRS: '', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  const calls = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : [];
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, calls, aptGet: calls.filter((c) => c.startsWith('apt-get ')) };
}

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'wcm-test-deps-'));
  bin = join(work, 'bin');
  mkdirSync(bin);
  log = join(work, 'calls.log');
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

describe('npm test brings the programs its tests run', () => {
  it('with all of them present it does nothing: no apt-get, no sudo, no output', () => {
    for (const p of ALL) present(p);
    fakeAptGet();
    const r = run();
    expect(r.code).toBe(0);
    expect(r.calls).toEqual([]);
    expect(r.stdout + r.stderr).toBe('');
  });

  it('installs the missing ones from Debian packages named for them, with one apt-get update first', () => {
    fakeAptGet();
    const r = run();
    expect(r.code, r.stderr).toBe(0);
    expect(r.aptGet).toEqual(['apt-get update -qq', 'apt-get install -y -qq --no-install-recommends redis-server caddy haproxy chromium']);
    for (const p of ALL) expect(existsSync(join(bin, p))).toBe(true);
    expect(r.stderr).toContain('installing redis-server caddy haproxy chromium');
  });

  it('installs only what is missing', () => {
    present('caddy');
    fakeAptGet();
    const r = run();
    expect(r.code, r.stderr).toBe(0);
    expect(r.aptGet).toEqual(['apt-get update -qq', 'apt-get install -y -qq --no-install-recommends redis-server haproxy chromium']);
  });

  it('when it may not install, exits 1 with one line naming the command to run, and installs nothing', () => {
    present('redis-server');
    fakeAptGet();
    const r = run({ TEST_DEPS_INSTALL: '0' });
    expect(r.code).toBe(1);
    expect(r.calls).toEqual([]);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('npm test needs caddy, haproxy, chromium');
    expect(lines[0]).toContain('run sudo apt-get update && sudo apt-get install -y caddy haproxy chromium');
  });

  it('without apt-get, exits 1 with the same one line', () => {
    const r = run();
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([
      'npm test needs redis-server, caddy, haproxy, chromium, not installed here: run sudo apt-get update && sudo apt-get install -y redis-server caddy haproxy chromium (or install them your own way), then npm test again.',
    ]);
  });

  it('when installing fails, exits 1 naming the command, after one attempt', () => {
    fakeAptGet(true);
    const r = run();
    expect(r.code).toBe(1);
    expect(r.aptGet).toEqual(['apt-get update -qq']);
    expect(r.stderr.trim().split('\n').at(-1)).toContain(
      'installing failed: run sudo apt-get update && sudo apt-get install -y redis-server caddy haproxy chromium',
    );
  });

  it("finds each program by any of its names, on PATH or in the folders distributions install to: Ubuntu's chromium-browser, Debian's sbin", () => {
    const sbin = join(work, 'sbin');
    mkdirSync(sbin);
    for (const p of ['redis-server', 'caddy']) present(p);
    // Ubuntu's name for Chromium, on PATH; HAProxy where Debian puts it, off a user's PATH.
    present('chromium-browser');
    executable(join(sbin, 'haproxy'), 'exit 0');
    fakeAptGet();
    const r = run({ WCM_SYSTEM_BIN_DIRS: sbin });
    expect(r.code, r.stderr).toBe(0);
    expect(r.calls).toEqual([]);
  });

  it("on Ubuntu, installs Chromium by Ubuntu's package name", () => {
    for (const p of ['redis-server', 'caddy', 'haproxy']) present(p);
    const osRelease = join(work, 'os-release');
    writeFileSync(osRelease, 'NAME="Ubuntu"\nID=ubuntu\nID_LIKE=debian\n');
    fakeAptGet();
    const r = run({ WCM_OS_RELEASE: osRelease });
    expect(r.code, r.stderr).toBe(0);
    expect(r.aptGet).toEqual(['apt-get update -qq', 'apt-get install -y -qq --no-install-recommends chromium-browser']);
  });

  it('--versions names where each program was found and its version, each run with a HOME of its own, removed after', () => {
    for (const p of ALL) executable(join(bin, p), `echo "${p} 1.2.3"; echo "$HOME" >> "${log}"`);
    const r = run({ HOME: join(work, 'home') }, ['--versions']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual(ALL.map((p) => `${p}: ${join(bin, p)}, ${p} 1.2.3`));
    // Each ran in a HOME made for it (Caddy makes ~/.step in its HOME, Chromium its profile), gone now.
    expect(r.calls).toHaveLength(ALL.length);
    for (const home of r.calls) {
      expect(home).not.toBe(join(work, 'home'));
      expect(existsSync(home)).toBe(false);
    }
    expect(existsSync(join(work, 'home'))).toBe(false);
  });

  it('is what npm test runs first, and what .ci/run runs', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.pretest).toBe('node scripts/test-deps.mjs');
    expect(readFileSync(join(ROOT, '.ci/run'), 'utf8').split('\n')).toContain('node scripts/test-deps.mjs');
  });
});
