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
  return t(detectLocale(env), 'node.too_old', { version: `v${version.replace(/^v/, '')}`, floor: NODE_FLOOR.replace(/\.0$/, '') });
}
