// Start the server from source (tsx) as a child process, as a desktop client would start it.
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** `entry`: a built entry script (dist/src/cli.js) to run instead of the sources. */
export function spawnServer(env: Record<string, string>, args: string[] = [], entry?: string) {
  return spawn(process.execPath, [...(entry ? [entry] : ['--import', 'tsx', join(ROOT, 'src/cli.ts')]), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}
