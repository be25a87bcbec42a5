// What `npm test` needs before its first test (its pretest; .ci/run runs the same), in this order:
// 1. A Node.js at or above the floor (package.json's engines). An older one is refused in one line
//    naming the command that brings a supported one, before anything is looked at or installed: on an
//    older Node the tests would fail by the dozen for reasons that name neither Node nor its version.
// 2. The programs the tests run for real: the tests fail rather than skip without them, so a fresh
//    machine with Node alone must get them first. Each is found by name (its names: Ubuntu calls
//    Chromium chromium-browser) on PATH, then in the folders distributions install to that a user's
//    PATH may lack (sbin, where Debian puts haproxy; /snap/bin). Present: nothing to do, nothing
//    started. Missing ones are installed from the distribution's packages, with one `apt-get update`,
//    when this run may install (as root, or through sudo without a password) and TEST_DEPS_INSTALL
//    is not 0; otherwise it exits 1 with one line naming the command to run.
// `--versions` prints where each program was found and its version (.ci/run's log); `--node` checks
// the Node.js alone (.ci/run, to know whether to bring one).
// Plain JavaScript, with nothing newer than Node 16 needs: it runs before anything is built, on
// whichever Node runs npm, and must reach its refusal on an old one.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The floor as package.json's engines states it (">=22.19.0"), as [major, minor, patch]. */
export function nodeFloor() {
  const range = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines.node;
  const m = /^>=(\d+)\.(\d+)\.(\d+)$/.exec(range);
  if (!m) throw new Error(`package.json's engines.node is ${JSON.stringify(range)}: expected >=MAJOR.MINOR.PATCH`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

/**
 * The shell line that brings a Node.js of `major` from the npm registry (the only network npm needs)
 * and puts it first on this shell's PATH: what the README's quick start and the CLI's own refusal
 * (src/node-floor.ts) give, and what .ci/run does.
 */
export function nodeInstallLine(major) {
  return `npm install --prefix "$HOME/.node${major}" node@${major} && export PATH="$HOME/.node${major}/node_modules/.bin:$PATH"`;
}

/** The one line `npm test` refuses `version` with, or undefined when it is at or above the floor. */
export function nodeRefusal(version = process.versions.node) {
  const floor = nodeFloor();
  const have = version
    .replace(/^v/, '')
    .split(/[.-]/)
    .map((n) => Number.parseInt(n, 10) || 0);
  for (let i = 0; i < 3; i++) {
    if ((have[i] || 0) > floor[i]) return undefined;
    if ((have[i] || 0) < floor[i]) {
      const shown = floor[2] === 0 ? `${floor[0]}.${floor[1]}` : floor.join('.');
      return `npm test needs Node.js ${shown} or later, and this is Node.js v${version.replace(/^v/, '')}: run ${nodeInstallLine(floor[0])}, then npm test again.`;
    }
  }
  return undefined;
}

/** Each program the tests run: its names, the package that installs it (Debian's, and Ubuntu's where it differs), its version flag, and what needs it. */
export const PROGRAMS = [
  {
    program: 'redis-server',
    names: ['redis-server'],
    pkg: { debian: 'redis-server' },
    version: ['--version'],
    usedBy: 'the state store, shared budget and remote-mode tests (a real Redis)',
  },
  {
    program: 'caddy',
    names: ['caddy'],
    pkg: { debian: 'caddy' },
    version: ['version'],
    usedBy: 'the deployment tests (the shipped deploy/Caddyfile in a real Caddy)',
  },
  {
    program: 'haproxy',
    names: ['haproxy'],
    pkg: { debian: 'haproxy' },
    version: ['-v'],
    usedBy: 'the deployment tests (the shipped deploy/haproxy.cfg in a real HAProxy: a replica killed mid-session)',
  },
  {
    program: 'chromium',
    names: ['chromium', 'chromium-browser'],
    pkg: { debian: 'chromium', ubuntu: 'chromium-browser' },
    version: ['--version'],
    usedBy: 'the MCP Apps tests (the views rendered in a real headless Chromium)',
  },
];

/**
 * Folders searched after PATH: where distributions install programs that a user's PATH may lack.
 * WCM_SYSTEM_BIN_DIRS replaces them (a list like PATH), so that a test can run this script on a
 * machine where the programs are installed as though they were not.
 */
function systemDirs(env) {
  return env.WCM_SYSTEM_BIN_DIRS !== undefined
    ? env.WCM_SYSTEM_BIN_DIRS.split(delimiter)
    : ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin', '/snap/bin'];
}

/**
 * The executable for `name` (one of PROGRAMS, by any of its names, or any other program) on PATH or
 * in the system folders, or undefined.
 */
export function findProgram(name, env = process.env) {
  const names = (PROGRAMS.find((p) => p.program === name) || { names: [name] }).names;
  for (const dir of [...(env.PATH || '').split(delimiter), ...systemDirs(env)]) {
    if (!dir) continue;
    for (const n of names) {
      const candidate = join(dir, n);
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

/**
 * The first line `name` prints for its version flag, or undefined when it is not installed. Run with
 * a HOME and XDG folders of its own, removed after: Caddy's libraries make ~/.step when they load, and
 * Chromium its profile folders.
 */
export function programVersion(name, env = process.env) {
  const program = PROGRAMS.find((p) => p.program === name);
  const bin = findProgram(name, env);
  if (!program || !bin) return undefined;
  const home = mkdtempSync(join(tmpdir(), 'wcm-version-'));
  try {
    const xdg = { XDG_CONFIG_HOME: join(home, '.config'), XDG_CACHE_HOME: join(home, '.cache'), XDG_DATA_HOME: join(home, '.local', 'share') };
    const r = spawnSync(bin, program.version, { env: { ...env, HOME: home, ...xdg }, encoding: 'utf8', timeout: 30_000 });
    return `${r.stdout || ''}${r.stderr || ''}`.trim().split('\n')[0];
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** The distribution whose package names apply: ubuntu (and its derivatives), else debian. */
function distribution(env) {
  let text = '';
  try {
    text = readFileSync(env.WCM_OS_RELEASE || '/etc/os-release', 'utf8');
  } catch {
    return 'debian';
  }
  const field = (key) => (new RegExp(`^${key}=["']?([^"'\\n]*)`, 'm').exec(text) || [])[1] || '';
  return /\bubuntu\b/.test(`${field('ID')} ${field('ID_LIKE')}`) ? 'ubuntu' : 'debian';
}

/** The command a person runs to install `pkgs`. */
export const installCommand = (pkgs) => `sudo apt-get update && sudo apt-get install -y ${pkgs.join(' ')}`;

/** How this run may call apt-get: directly as root, through sudo when it asks no password, or not at all. */
function installer(env) {
  if (/^(0|false|no|never)$/i.test(env.TEST_DEPS_INSTALL || '')) return undefined;
  const aptGet = findProgram('apt-get', env);
  if (!aptGet) return undefined;
  if (process.getuid && process.getuid() === 0) return ['apt-get'];
  const sudo = findProgram('sudo', env);
  if (sudo && spawnSync(sudo, ['-n', 'true'], { env, stdio: 'ignore' }).status === 0) return ['sudo', '-n', 'apt-get'];
  return undefined;
}

function run(argv, env) {
  const [command, ...args] = argv;
  return spawnSync(command, args, { env: { ...env, DEBIAN_FRONTEND: 'noninteractive' }, stdio: ['ignore', 'inherit', 'inherit'] }).status === 0;
}

/** Checks, installs what may be installed, and answers the exit code. */
export function ensureTestPrograms(env = process.env, log = (line) => process.stderr.write(`${line}\n`)) {
  const missing = PROGRAMS.filter((p) => !findProgram(p.program, env));
  if (missing.length === 0) return 0;
  const distro = distribution(env);
  const pkgs = missing.map((p) => p.pkg[distro] || p.pkg.debian);
  const names = missing.map((p) => p.program).join(', ');
  const apt = installer(env);
  if (!apt) {
    log(`npm test needs ${names}, not installed here: run ${installCommand(pkgs)} (or install them your own way), then npm test again.`);
    return 1;
  }
  log(`npm test needs ${names}: installing ${pkgs.join(' ')} from the distribution's packages`);
  for (const p of missing) log(`  ${p.program}: ${p.usedBy}`);
  const installed = run([...apt, 'update', '-qq'], env) && run([...apt, 'install', '-y', '-qq', '--no-install-recommends', ...pkgs], env);
  const still = PROGRAMS.filter((p) => !findProgram(p.program, env)).map((p) => p.program);
  if (!installed || still.length > 0) {
    log(`npm test needs ${still.join(', ') || names}, and installing failed: run ${installCommand(pkgs)}, then npm test again.`);
    return 1;
  }
  return 0;
}

/** `--versions`: each program's path and version, one line each; exit 1 when one is missing. */
function printVersions(env = process.env) {
  let code = 0;
  for (const p of PROGRAMS) {
    const bin = findProgram(p.program, env);
    if (!bin) code = 1;
    process.stdout.write(`${p.program}: ${bin ? `${bin}, ${programVersion(p.program, env)}` : 'not installed'}\n`);
  }
  return code;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  // The Node check first, before anything else is looked at, run or installed.
  const refusal = nodeRefusal();
  if (refusal !== undefined) {
    process.stderr.write(`${refusal}\n`);
    process.exit(1);
  }
  const mode = process.argv[2];
  process.exit(mode === '--node' ? 0 : mode === '--versions' ? printVersions() : ensureTestPrograms());
}
