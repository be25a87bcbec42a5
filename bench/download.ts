// Download benchmark: the 100 MB recording of the buyer's session (SESSION_BUYER) fetched through the
// MCP server, whose resident memory must not grow by more than 50 MB: the file streams to disk, it is
// never held. The sandbox and the server run as separate processes (the sandbox generates the WAV as
// it sends it, so its memory never mixes with the server's); the server's RSS is read from
// /proc/PID/status every 10 ms during the call, and its peak (VmHWM) is reset just before it.
// Run: node bench/download.ts (Linux; Node 22 with tsx available). Prints one JSON line.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { SESSION_BUYER } from '../src/sandbox/data/ids.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'src/cli.ts');
const LIMIT_MB = 50;

async function procKb(pid: number, field: 'VmRSS' | 'VmHWM'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  if (!m) throw new Error(`${field} not in /proc/${pid}/status`);
  return Number(m[1]);
}

async function startSandbox(): Promise<{ url: string; token: string; stop(): void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'sandbox', '--port', '0', '--no-rate-limit'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
  const info = JSON.parse(line) as { url: string; tokens: { read: string } };
  return { url: info.url, token: info.tokens.read, stop: () => child.kill() };
}

async function main(): Promise<void> {
  const sandbox = await startSandbox();
  const downloads = await mkdtemp(join(tmpdir(), 'wcm-bench-dl-'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', CLI],
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? tmpdir(),
      WORKSPACE_URL: sandbox.url,
      WORKSPACE_TOKEN: sandbox.token,
      WORKSPACE_DOWNLOAD_DIR: downloads,
      WORKSPACE_TOOLSETS: 'interviews',
      LOG_LEVEL: 'warn',
    },
    stderr: 'inherit',
  });
  const client = new Client({ name: 'download-bench', version: '1.0.0' });
  try {
    await client.connect(transport);
    const pid = transport.pid;
    if (!pid) throw new Error('no server pid');
    const session = (await client.callTool({ name: 'get_session', arguments: { session: SESSION_BUYER } })) as CallToolResult;
    const recording = (session.structuredContent as { recording_ids: string[] }).recording_ids[0]!;

    // Settle, then take the baseline and reset the peak counter (writing 5 to clear_refs resets VmHWM).
    await new Promise((r) => setTimeout(r, 500));
    const before = await procKb(pid, 'VmRSS');
    let hwmReset = true;
    try {
      await writeFile(`/proc/${pid}/clear_refs`, '5');
    } catch {
      hwmReset = false;
    }
    let sampledPeak = before;
    let progressEvents = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        sampledPeak = Math.max(sampledPeak, await procKb(pid, 'VmRSS').catch(() => 0));
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const started = performance.now();
    const r = (await client.callTool(
      { name: 'get_session_recording', arguments: { session: SESSION_BUYER, recording } },
      {
        onprogress: () => progressEvents++,
        timeout: 300_000,
      },
    )) as CallToolResult;
    const ms = performance.now() - started;
    sampling = false;
    await sampler;
    const hwm = await procKb(pid, 'VmHWM');
    const file = (r.structuredContent as { file: { path: string; size: number } }).file;
    const onDisk = (await stat(file.path)).size;
    const peakKb = hwmReset ? Math.max(hwm, sampledPeak) : sampledPeak;
    const growthMb = (peakKb - before) / 1024;
    const result = {
      bench: 'download',
      file_mb: Math.round((onDisk / 1048576) * 10) / 10,
      size_matches: onDisk === file.size,
      seconds: Math.round(ms) / 1000,
      rss_before_mb: Math.round(before / 102.4) / 10,
      peak_rss_mb: Math.round(peakKb / 102.4) / 10,
      peak_growth_mb: Math.round(growthMb * 10) / 10,
      peak_source: hwmReset ? 'VmHWM reset before the call, and 10 ms samples' : '10 ms samples of VmRSS',
      progress_notifications: progressEvents,
      limit_mb: LIMIT_MB,
      ok: growthMb < LIMIT_MB && onDisk === file.size,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
    if (!result.ok) process.exitCode = 1;
  } finally {
    await client.close().catch(() => {});
    sandbox.stop();
    await rm(downloads, { recursive: true, force: true });
  }
}

await main();
