// The programs the tests run for real, brought in before `npm test` (its pretest) and by .ci/run: the
// tests fail rather than skip without them, so a fresh machine with Node alone must get them first.
// Each one found on PATH or in the system folders: nothing to do, and nothing is started. Missing
// ones are installed from Debian's packages, with one `apt-get update`, when this run may install
// (as root, or through sudo without a password) and TEST_DEPS_INSTALL is not 0; otherwise it exits 1
// with one line naming the command to run. Plain JavaScript: it runs before anything is built, on
// whichever Node runs npm.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Each program the tests run, the Debian package that installs it, and what needs it. */
export const PROGRAMS = [
  { program: 'redis-server', pkg: 'redis-server', usedBy: 'the state store, shared budget and remote-mode tests (a real Redis)' },
  { program: 'caddy', pkg: 'caddy', usedBy: 'the deployment tests (the shipped deploy/Caddyfile in a real Caddy)' },
  { program: 'chromium', pkg: 'chromium', usedBy: "the MCP Apps tests (the views rendered in Debian's headless Chromium)" },
];

/**
 * Folders searched after PATH, where Debian puts programs that a user's PATH may lack (sbin).
 * WCM_SYSTEM_BIN_DIRS replaces them (a list like PATH), so that a test can run this script on a
 * machine where they are installed as though they were not.
 */
function systemDirs(env) {
  return env.WCM_SYSTEM_BIN_DIRS !== undefined ? env.WCM_SYSTEM_BIN_DIRS.split(delimiter) : ['/usr/bin', '/usr/sbin', '/usr/local/bin'];
}

/** The executable `name` on PATH or in the system folders, or undefined. */
export function findProgram(name, env = process.env) {
  for (const dir of [...(env.PATH ?? '').split(delimiter), ...systemDirs(env)]) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The command a person runs to install `pkgs`. */
export const installCommand = (pkgs) => `sudo apt-get update && sudo apt-get install -y ${pkgs.join(' ')}`;

/** How this run may call apt-get: directly as root, through sudo when it asks no password, or not at all. */
function installer(env) {
  if (/^(0|false|no|never)$/i.test(env.TEST_DEPS_INSTALL ?? '')) return undefined;
  const aptGet = findProgram('apt-get', env);
  if (!aptGet) return undefined;
  if (process.getuid?.() === 0) return ['apt-get'];
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
  const pkgs = missing.map((p) => p.pkg);
  const names = missing.map((p) => p.program).join(', ');
  const apt = installer(env);
  if (!apt) {
    log(`npm test needs ${names}, not installed here: run ${installCommand(pkgs)} (or install them your own way), then npm test again.`);
    return 1;
  }
  log(`npm test needs ${names}: installing ${pkgs.join(' ')} from Debian's packages`);
  for (const p of missing) log(`  ${p.program}: ${p.usedBy}`);
  const installed = run([...apt, 'update', '-qq'], env) && run([...apt, 'install', '-y', '-qq', '--no-install-recommends', ...pkgs], env);
  const still = PROGRAMS.filter((p) => !findProgram(p.program, env)).map((p) => p.program);
  if (!installed || still.length > 0) {
    log(`npm test needs ${still.join(', ') || names}, and installing failed: run ${installCommand(pkgs)}, then npm test again.`);
    return 1;
  }
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exit(ensureTestPrograms());
