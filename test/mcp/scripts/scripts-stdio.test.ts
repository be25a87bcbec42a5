// Code mode over stdio, where stdout carries the protocol only: the server as a desktop client runs it
// (a child process), read byte for byte. The script engine (Emscripten's print, an engine abort at
// the memory limit) writes nothing there, and the server answers after a script it stopped.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGAGEMENT_AP } from '../../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { spawnServer } from '../../helpers/spawn.js';

let sandbox: SandboxHandle;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
});
afterAll(async () => {
  await sandbox.close();
});

type Message = { id?: number; result?: { isError?: boolean; structuredContent?: Record<string, unknown> } };

describe('scripts over stdio', () => {
  it('answer, stop at a limit and answer again, with nothing but JSON-RPC on stdout', async () => {
    const child = spawnServer({
      WORKSPACE_URL: sandbox.url,
      WORKSPACE_TOKEN: sandbox.tokens.write,
      WORKSPACE_DOWNLOAD_DIR: await mkdtemp(join(tmpdir(), 'wcm-scripts-')),
      LOG_LEVEL: 'warn',
    });
    let stdout = '';
    let stderr = '';
    // Who waits for an answer: told each time stdout grows.
    const readers = new Set<() => void>();
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
      for (const read of readers) read();
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const answered = (id: number) =>
      new Promise<Message>((resolve, reject) => {
        const read = () => {
          // Whole lines only; lines that are not JSON are looked at once the process has ended, below.
          const msg = stdout
            .slice(0, stdout.lastIndexOf('\n') + 1)
            .split('\n')
            .filter((l) => l.startsWith('{'))
            .map((l) => JSON.parse(l) as Message)
            .find((m) => m.id === id);
          if (!msg) return;
          clearTimeout(timer);
          readers.delete(read);
          resolve(msg);
        };
        const timer = setTimeout(() => {
          readers.delete(read);
          reject(new Error(`no answer to ${id}; stderr: ${stderr}`));
        }, 30_000);
        readers.add(read);
        read();
      });
    const send = (msg: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`);
    const script = (id: number, name: string, source: string) => send({ id, method: 'tools/call', params: { name, arguments: { script: source } } });

    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    await answered(1);
    send({ method: 'notifications/initialized' });
    script(
      2,
      'run_read_script',
      `console.log('hello'); return (await api.list_findings({ engagement: ${JSON.stringify(ENGAGEMENT_AP)}, limit: 2 })).items.length;`,
    );
    expect((await answered(2)).result?.structuredContent).toMatchObject({ result: 2, logs: ['hello'], api_calls: 1 });
    script(3, 'run_read_script', "const a = []; for (;;) a.push('x'.repeat(1000000) + a.length);");
    const bomb = await answered(3);
    expect(bomb.result?.isError).toBe(true);
    expect(bomb.result?.structuredContent).toMatchObject({ error: { code: 'memory_limit' } });
    script(4, 'run_write_script', 'return "still here";');
    expect((await answered(4)).result?.structuredContent).toMatchObject({ result: 'still here' });

    child.stdin.end();
    expect(await new Promise<number | null>((resolve) => child.on('exit', resolve))).toBe(0);
    // Every stdout line is a JSON-RPC 2.0 message.
    const lines = stdout.split('\n').filter((l) => l.length > 0);
    expect(lines.length).toBeGreaterThanOrEqual(4);
    for (const l of lines) expect(JSON.parse(l)).toMatchObject({ jsonrpc: '2.0' });
  }, 60_000);
});
