// A Node.js older than the floor, to run the CLI on as a member with an outdated install would:
// node@22.12.0 from the npm registry, kept in .ci/.node-22.12 (ignored by git) so it is downloaded
// once per checkout. .ci/run installs it before the tests; a test run without it installs it here.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './spawn.js';

export const OLD_NODE_VERSION = '22.12.0';
const PREFIX = join(ROOT, '.ci', '.node-22.12');
const BIN = join(PREFIX, 'node_modules', '.bin', process.platform === 'win32' ? 'node.cmd' : 'node');

function version(bin: string): string | undefined {
  try {
    return execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

/** The path of a node@22.12.0 binary, installing it with npm when this checkout has none yet. */
export function oldNode(): string {
  if (version(BIN) === `v${OLD_NODE_VERSION}`) return BIN;
  execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', PREFIX, `node@${OLD_NODE_VERSION}`], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const got = version(BIN);
  if (got !== `v${OLD_NODE_VERSION}`) throw new Error(`npm installed ${BIN}, which reports ${got ?? 'nothing'}, not v${OLD_NODE_VERSION}`);
  return BIN;
}
