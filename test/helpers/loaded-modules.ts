// Which modules a server process loaded: a preload (`--import`) that registers a module hook and, as
// the process exits, writes every URL the hook saw to a file. For tests of what a session never
// loads (docs/architecture.md, Loading only what is used).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

// Plain JavaScript in a data: URL, so the preload needs no transform and no file of its own.
const PRELOAD = `
import module from 'node:module';
import { writeFileSync } from 'node:fs';
const seen = [];
module.registerHooks({ load(url, context, next) { seen.push(url); return next(url, context); } });
process.on('exit', () => writeFileSync(process.env.LOADED_MODULES_FILE, seen.join('\\n')));
`;

export interface ModuleRecording {
  /** Node arguments that record the loads (put before the entry). */
  nodeArgs: string[];
  /** Environment the preload reads: where it writes. */
  env: Record<string, string>;
  /** The URLs loaded, once the process has exited. */
  loaded(): Promise<string[]>;
}

export function recordModules(dir: string): ModuleRecording {
  const file = join(dir, 'loaded-modules.txt');
  return {
    nodeArgs: ['--import', `data:text/javascript,${encodeURIComponent(PRELOAD)}`],
    env: { LOADED_MODULES_FILE: file },
    loaded: async () => (await readFile(file, 'utf8')).split('\n').filter(Boolean),
  };
}

/** The npm packages among loaded URLs (`@scope/name` or `name`), once each. */
export function packagesOf(urls: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const u of urls) {
    const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u);
    if (m?.[1]) out.add(m[1]);
  }
  return out;
}
