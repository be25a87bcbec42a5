// The whole run gets one temporary root of its own, removed when the run ends, so that `npm test`
// leaves nothing behind, in the machine's temp directory or in the user's home, however a test or the
// processes it starts use them (mkdtemp folders, downloads, sign-in stores, tsx's and Node's compile
// caches; Chromium's and dconf's folders, Caddy's ~/.step, vitest's own API token).
//
// The root reaches every process through the environment: TMPDIR (TMP and TEMP on Windows), and HOME
// with the XDG folders pointing at a home inside the root. They are set in vitest's main process when
// it loads its configuration (vitest.config.ts calls prepareRunRoot), before vitest writes anything of
// its own and before any worker is forked, so each worker and each child inherits them; children a
// test starts with an environment of its own get TMPDIR from test/setup/child-env.ts, and HOME from
// the helpers, which pass process.env.HOME on. As vitest's globalSetup, this file removes the root at
// the end of the run.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

/** Prefix of a run's root in the machine's temp directory. */
export const RUN_ROOT_PREFIX = 'wcm-test-run-';
/**
 * The root the process that made it (its pid, a space, the path), for globalSetup to find it: a
 * vitest run started by a test inherits it, and makes a root of its own all the same.
 */
const RUN_ROOT_VAR = 'WCM_TEST_RUN_ROOT';

/** The run's root, made (with its home) and put in this process's environment on the first call. */
export function prepareRunRoot(): string {
  const env = process.env;
  const [pid, made] = (env[RUN_ROOT_VAR] ?? '').split(/ (.*)/s);
  if (pid === String(process.pid) && made && existsSync(made)) return made;
  const root = mkdtempSync(join(tmpdir(), RUN_ROOT_PREFIX));
  const home = join(root, 'home');
  mkdirSync(home);
  // npm keeps reading the person's configuration and cache (its registry, proxy and CA; the packages
  // it already has), named here before HOME moves. npm names both itself when it runs the tests.
  env.npm_config_userconfig ??= join(homedir(), '.npmrc');
  env.npm_config_cache ??= process.platform === 'win32' ? join(env.LOCALAPPDATA ?? homedir(), 'npm-cache') : join(homedir(), '.npm');
  for (const name of ['TMPDIR', 'TMP', 'TEMP']) env[name] = root;
  env.HOME = home;
  if (process.platform === 'win32') env.USERPROFILE = home;
  env.XDG_CONFIG_HOME = join(home, '.config');
  env.XDG_CACHE_HOME = join(home, '.cache');
  env.XDG_DATA_HOME = join(home, '.local', 'share');
  env.XDG_STATE_HOME = join(home, '.local', 'state');
  env[RUN_ROOT_VAR] = `${process.pid} ${root}`;
  return root;
}

export default function setup(): () => void {
  const root = prepareRunRoot();
  return () => {
    // Retries: a child killed at the end of a test may still be closing a file in there (Node writes
    // its compile cache as it exits).
    rmSync(root, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 });
  };
}
