// `workspace-consulting-mcp sandbox` as a child process: one JSON line on stdout, then a working API,
// and a clean stop on SIGTERM.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('sandbox command', () => {
  it('prints exactly one JSON line with url, api and tokens, serves them, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'sandbox', '--port', '0', '--no-rate-limit'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const firstLine = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (c: Buffer) => {
        stdout += c.toString();
        const nl = stdout.indexOf('\n');
        if (nl >= 0) resolve(stdout.slice(0, nl));
      });
      child.once('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
    });
    const info = JSON.parse(firstLine) as { url: string; api: string; tokens: { read: string; write: string } };
    expect(Object.keys(info)).toEqual(['url', 'api', 'tokens']);
    expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(info.api).toBe(`${info.url}/api/v1`);
    expect(info.tokens.read).toMatch(/^pat_[0-9a-zA-Z]{40}$/);
    expect(info.tokens.write).toMatch(/^pat_[0-9a-zA-Z]{40}$/);

    const me = await fetch(`${info.api}/me`, { headers: { authorization: `Bearer ${info.tokens.read}` } });
    expect(me.status).toBe(200);

    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout).toBe(`${firstLine}\n`);
    expect(stderr).toMatch(/listening/);
  }, 30_000);
});
