// Runs a command of the CLI from source as a child process, as a person at a terminal would, with an
// environment free of the developer's own workspace settings.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { commandLine, launchCommand } from '../../src/launcher.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * How the CLI started from source (`node --import tsx src/cli.ts` in ROOT, with PATH `path`) names
 * itself in the commands it prints: node with tsx's loader and the entry, by absolute paths.
 */
export function sourceLaunch(path = process.env.PATH): string {
  return commandLine(launchCommand({ invokedAs: join(ROOT, 'src/cli.ts'), execPath: process.execPath, path, platform: process.platform }));
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI from source with `args`, stdin closed; `node` is the Node.js binary to run it on (this one by default). */
export function runCli(args: string[], env: Record<string, string>, timeoutMs = 60_000, node = process.execPath): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, ['--import', 'tsx', 'src/cli.ts', ...args], {
      cwd: ROOT,
      // LANG=C: English unless a test asks for another language.
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LANG: 'C', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${args.join(' ')} did not end within ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
