// The server as a child process over stdio, as a desktop client runs it: stdout carries JSON-RPC and
// nothing else, logs go to stderr without tokens, EOF on stdin ends the process cleanly.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog } from '../../../catalog/index.js';
import { LineGuard } from '../../../src/mcp/transport/stdio.js';
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

describe('stdio transport', () => {
  it('writes nothing but JSON-RPC on stdout, logs without tokens on stderr, exits 0 on EOF', async () => {
    const downloads = await mkdtemp(join(tmpdir(), 'wcm-e2e-'));
    const child = spawnServer({
      WORKSPACE_URL: sandbox.url,
      WORKSPACE_TOKEN: sandbox.tokens.write,
      WORKSPACE_DOWNLOAD_DIR: downloads,
      WORKSPACE_TOOLSETS: 'all',
      LOG_LEVEL: 'trace',
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

    const responses = new Map<number, Record<string, unknown>>();
    const waitFor = (id: number) =>
      new Promise<Record<string, unknown>>((resolve, reject) => {
        const read = () => {
          // Whole lines only: the last one may still be coming.
          for (const line of stdout.slice(0, stdout.lastIndexOf('\n') + 1).split('\n')) {
            if (!line.trim()) continue;
            const msg = JSON.parse(line) as Record<string, unknown>;
            if (msg.id === id) responses.set(id, msg);
          }
          const r = responses.get(id);
          if (!r) return;
          clearTimeout(timer);
          readers.delete(read);
          resolve(r);
        };
        const timer = setTimeout(() => {
          readers.delete(read);
          reject(new Error(`no answer to ${id}; stderr: ${stderr}`));
        }, 20_000);
        readers.add(read);
        read();
      });
    const send = (msg: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`);

    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    const init = await waitFor(1);
    expect((init.result as { serverInfo: { name: string } }).serverInfo.name).toBe('workspace-consulting-mcp');
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'logging/setLevel', params: { level: 'debug' } });
    send({ id: 3, method: 'tools/list' });
    send({ id: 4, method: 'tools/call', params: { name: 'list_findings', arguments: { engagement: ENGAGEMENT_AP, limit: 3 } } });
    send({ id: 5, method: 'tools/call', params: { name: 'get_finding', arguments: { engagement: ENGAGEMENT_AP, finding: '../../workspace' } } });
    send({ id: 6, method: 'tools/call', params: { name: 'get_finding', arguments: { engagement: ENGAGEMENT_AP, finding: '01ZZZZZZZZZZZZZZZZZZZZZZZZ' } } });
    send({ id: 7, method: 'tools/call', params: { name: 'export_usage', arguments: {} } });
    send({ id: 8, method: 'ping' });
    send({ id: 9, method: 'no/such/method' });
    const list = await waitFor(3);
    // Every catalog operation, plus what the live openapi.json adds (marked as generated).
    const names = (list.result as { tools: { name: string }[] }).tools.map((t) => t.name);
    for (const op of catalog) expect(names).toContain(op.name);
    expect(((await waitFor(4)).result as { isError?: boolean }).isError).toBeFalsy();
    expect(((await waitFor(5)).result as { isError?: boolean }).isError).toBe(true);
    expect(((await waitFor(6)).result as { isError?: boolean }).isError).toBe(true);
    expect(((await waitFor(7)).result as { isError?: boolean }).isError).toBeFalsy();
    await waitFor(8);
    expect((await waitFor(9)).error).toMatchObject({ code: -32601 });

    child.stdin.end();
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);

    // Every stdout line is a JSON-RPC 2.0 message.
    const lines = stdout.split('\n').filter((l) => l.length > 0);
    expect(lines.length).toBeGreaterThanOrEqual(9);
    for (const l of lines) expect(JSON.parse(l)).toMatchObject({ jsonrpc: '2.0' });
    // The log notifications the client asked for came as JSON-RPC too.
    expect(lines.some((l) => l.includes('"notifications/message"'))).toBe(true);
    // Logs went to stderr, at trace level, with no token material.
    expect(stderr).toMatch(/serving MCP on stdio/);
    expect(stderr).not.toContain(sandbox.tokens.write);
    expect(stdout).not.toContain(sandbox.tokens.write);
    expect(stderr).not.toMatch(/pat_[0-9a-f]{8}/);
  });

  it('exits 2 with one clear line on stderr for a bad setting', async () => {
    const child = spawnServer({ WORKSPACE_URL: 'http://example.com', WORKSPACE_TOKEN: 'pat_abcdefghij' });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/WORKSPACE_URL.*https/);
  });
});

describe('the line guard in front of the SDK', () => {
  it('passes a CRLF-terminated message on without its \\r, and one split across chunks whole', async () => {
    const { createLogger } = await import('../../../src/log.js');
    const answers: unknown[] = [];
    const guard = new LineGuard((a) => answers.push(a), createLogger('silent').logger);
    const out: string[] = [];
    guard.on('data', (d: Buffer) => out.push(d.toString('utf8')));
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const named = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'é', arguments: {} } });
    guard.write(Buffer.from(`${ping}\r\n${named.slice(0, 40)}`));
    guard.write(Buffer.from(`${named.slice(40)}\r\n`));
    await new Promise((r) => setImmediate(r));
    expect(out.join('')).toBe(`${ping}\n${named}\n`);
    expect(answers).toEqual([]);
  });
});
