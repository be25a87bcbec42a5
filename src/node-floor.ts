// The oldest Node.js this program runs on, checked before anything else loads. The floor is set by
// undici 8 (`engines` >= 22.19.0): it calls `zlib.createZstdDecompress`, which older releases lack,
// and on them the server answered its first requests and then died with "Cannot read properties of
// undefined (reading 'bind')". The version number is checked, not the feature, so the floor is one
// fact (here, `engines` in package.json, the bundle manifest, the README and doctor) rather than a
// guess about which call breaks next.
//
// Imports nothing but the message catalog (itself import-free): it must load on any Node that can
// start the entry point at all.
import { detectLocale, t } from './i18n.js';

/** The floor as package.json's `engines` writes it. */
export const NODE_FLOOR = '22.19.0';

/** The engines range both package.json and manifest.json declare. */
export const NODE_ENGINES_RANGE = `>=${NODE_FLOOR}`;

const FLOOR_MAJOR = NODE_FLOOR.split('.')[0] as string;

/**
 * Where NODE_INSTALL_LINE puts the Node.js it brings, written for a shell: a client that starts the
 * server from its own PATH (and finds an older node there) takes this node's full path as its command.
 */
export const NODE_INSTALL_BIN = `$HOME/.node${FLOOR_MAJOR}/node_modules/.bin/node`;

/**
 * The shell line that brings a supported Node.js from the npm registry (all npm needs to reach) and
 * puts it first on this shell's PATH: what the README's quick start gives, and what the refusal below
 * and `npm test`'s (scripts/test-deps.mjs, plain JavaScript that builds the same line from
 * package.json's engines) say to run. .ci/run does the same.
 */
export const NODE_INSTALL_LINE = `npm install --prefix "$HOME/.node${FLOOR_MAJOR}" node@${FLOOR_MAJOR} && export PATH="$HOME/.node${FLOOR_MAJOR}/node_modules/.bin:$PATH"`;

function parts(version: string): [number, number, number] {
  const [major = 0, minor = 0, patch = 0] = version
    .replace(/^v/, '')
    .split(/[.-]/)
    .map((n) => Number.parseInt(n, 10) || 0);
  return [major, minor, patch];
}

/** True when `version` (as in process.versions.node, with or without a leading v) is at or above the floor. */
export function meetsNodeFloor(version: string = process.versions.node): boolean {
  const have = parts(version);
  const need = parts(NODE_FLOOR);
  for (let i = 0; i < 3; i++) {
    if ((have[i] as number) !== (need[i] as number)) return (have[i] as number) > (need[i] as number);
  }
  return true;
}

/**
 * The one line a command prints on stderr before exiting 1 on a Node older than the floor, in the
 * member's language; undefined when this Node is recent enough.
 */
export function nodeFloorRefusal(version: string = process.versions.node, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (meetsNodeFloor(version)) return undefined;
  return t(detectLocale(env), 'node.too_old', { version: `v${version.replace(/^v/, '')}`, floor: NODE_FLOOR.replace(/\.0$/, ''), line: NODE_INSTALL_LINE });
}
