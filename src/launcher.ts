// How this process was started, as a command a person can type again. The CLI's suggestions (the
// banner's client lines, "try the demo", "run doctor") must run as printed from where the person
// is: `workspace-consulting-mcp demo` only works once the package is installed on PATH, and a clone
// runs `node /abs/path/dist/src/cli.js`.
import { existsSync, realpathSync } from 'node:fs';
import { basename, delimiter, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'workspace-consulting-mcp';

/** What decides the command; each defaults to this process's own. */
export interface LaunchFacts {
  /** The script as invoked (process.argv[1]): a bin link keeps its own name here. */
  invokedAs: string | undefined;
  /** The Node.js binary running this process. */
  execPath: string;
  /** PATH of the person's shell (the one this process inherited). */
  path: string | undefined;
  platform: NodeJS.Platform;
}

function currentLaunch(): LaunchFacts {
  return { invokedAs: process.argv[1], execPath: process.execPath, path: process.env.PATH, platform: process.platform };
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** The real path of the first `name` on PATH, if any. */
function onPath(name: string, facts: LaunchFacts): string | undefined {
  const names = facts.platform === 'win32' ? [`${name}.cmd`, `${name}.exe`, name] : [name];
  for (const dir of (facts.path ?? '').split(delimiter).filter(Boolean)) {
    for (const n of names) {
      const candidate = join(dir, n);
      if (existsSync(candidate)) return real(candidate);
    }
  }
  return undefined;
}

/** tsx's loader as an absolute specifier: `--import tsx` alone resolves from the current folder only. */
function tsxLoader(platform: NodeJS.Platform): string {
  const url = import.meta.resolve('tsx');
  return platform === 'win32' ? url : fileURLToPath(url);
}

/**
 * The command, as words, that starts this program again from anywhere:
 * - run by npx from its cache: `npx -y workspace-consulting-mcp`;
 * - run through its bin on PATH (a global install, `npm link`): `workspace-consulting-mcp`;
 * - otherwise Node.js on the entry script's absolute path (`node /abs/dist/src/cli.js`), with tsx's
 *   loader when it runs from the sources, and Node's absolute path when `node` on PATH is another one.
 */
export function launchCommand(facts: LaunchFacts = currentLaunch()): string[] {
  if (!facts.invokedAs) return [PACKAGE_NAME];
  const invoked = resolve(facts.invokedAs);
  const entry = real(invoked);
  if (entry.includes(`${sep}_npx${sep}`)) return ['npx', '-y', PACKAGE_NAME];
  const bin = basename(invoked).replace(/\.(cmd|ps1|exe)$/i, '');
  if (bin === PACKAGE_NAME && onPath(PACKAGE_NAME, facts) === entry) return [PACKAGE_NAME];
  const node = onPath('node', facts) === real(facts.execPath) ? 'node' : facts.execPath;
  // The sources import each other by their .js names: only tsx's loader runs them.
  const loader = /\.[cm]?ts$/.test(entry) ? ['--import', tsxLoader(facts.platform)] : [];
  return [node, ...loader, entry];
}

/** A word as a POSIX shell reads it: bare when safe, single-quoted otherwise. */
export function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The command line for `words` followed by `args`, quoted for a POSIX shell. */
export function commandLine(words: readonly string[], ...args: string[]): string {
  return [...words, ...args].map(shellWord).join(' ');
}
