// Runs a command line as a person types it into a POSIX shell, asynchronously: a sandbox started in
// the test process keeps answering the servers the command starts. Also the Claude Code CLI, installed
// as a dev dependency, on a scratch HOME so nothing of the developer's own set-up is read or changed.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { ROOT } from './spawn.js';

export interface ShellRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * PATH as a newcomer's shell has it: this Node.js first (the README asks for Node.js 22 or later;
 * `node` in a printed command must be that one), and the CLIs a person would have installed (the
 * Claude Code CLI: `claude`, from this checkout's dev dependencies).
 */
export function newcomerPath(): string {
  return [dirname(process.execPath), join(ROOT, 'node_modules', '.bin'), process.env.PATH ?? ''].join(':');
}

/**
 * What a newcomer's npm reads to reach the registry on this network, passed to an npm run with a
 * scratch HOME: its configuration and cache (named by npm itself when it runs the tests, as
 * npm_config_*), its CA and proxies.
 */
export function npmNetworkEnv(): Record<string, string> {
  const keys = [
    'npm_config_userconfig',
    'npm_config_cache',
    'NODE_EXTRA_CA_CERTS',
    'HTTPS_PROXY',
    'HTTP_PROXY',
    'NO_PROXY',
    'https_proxy',
    'http_proxy',
    'no_proxy',
  ];
  return Object.fromEntries(keys.flatMap((k) => (process.env[k] ? [[k, process.env[k] as string]] : [])));
}

/** `line` in `sh -c`; `input`, when given, written to its stdin, which is then closed (else stdin is closed at once). */
export function runShell(line: string, opts: { cwd: string; env: Record<string, string>; timeoutMs?: number; input?: string }): Promise<ShellRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', line], { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.end(opts.input);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${line}\ndid not end within ${opts.timeoutMs ?? 120_000} ms\n${stdout}\n${stderr}`));
    }, opts.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The environment the Claude Code CLI runs in here: a scratch HOME, and no traffic it can do without. */
export function claudeEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: newcomerPath(), HOME: home, LANG: 'C', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1', ...extra };
}

/**
 * `claude mcp list`, which starts every registered server and checks its health: each server's name
 * and the status it ends its line with ("✔ Connected", "✘ Failed to connect", ...).
 */
export async function claudeMcpList(home: string): Promise<{ status: Record<string, string>; output: string }> {
  const r = await runShell('claude mcp list', { cwd: home, env: claudeEnv(home), timeoutMs: 120_000 });
  const output = r.stdout + r.stderr;
  const status: Record<string, string> = {};
  for (const m of output.matchAll(/^([\w.-]+): .* - (\S+ .+)$/gm)) status[m[1] as string] = (m[2] as string).trim();
  return { status, output };
}

/**
 * What a one-shot script pipes into the server over stdio: initialize (id 1), the initialized
 * notification, then `request` (id 2), each on its line; the script then closes its end.
 */
export function pipedSession(request: { method: string; params?: Record<string, unknown> }): string {
  return [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'script', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, ...request },
  ]
    .map((m) => `${JSON.stringify(m)}\n`)
    .join('');
}
