// The stdio transport's half of graceful shutdown: a signal, or the end of stdin, lets the calls in
// flight finish and be answered on stdout before the process exits 0.
import { once } from 'node:events';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { logged } from '../../helpers/logged.js';
import { gate } from '../../helpers/reached.js';
import { ROOT, spawnServer } from '../../helpers/spawn.js';

let sandbox: SandboxHandle;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false, adminToken: 'admin-stdio-shutdown' });
});

afterAll(async () => {
  await sandbox?.close();
});

describe('serve over stdio, on SIGTERM', () => {
  it('answers the call in flight, then exits 0', async () => {
    const child = spawnServer({ WORKSPACE_URL: sandbox.url, WORKSPACE_TOKEN: sandbox.tokens.read, LOG_LEVEL: 'info' });
    let err = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => (err += d));
    type Answer = { id?: number; result?: { isError?: boolean; content: { text: string }[] } };
    const answers = new Map<number, Answer>();
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      out += d;
      for (let nl = out.indexOf('\n'); nl >= 0; nl = out.indexOf('\n')) {
        const line = out.slice(0, nl);
        out = out.slice(nl + 1);
        const msg = JSON.parse(line) as Answer;
        if (typeof msg.id === 'number') {
          answers.set(msg.id, msg);
          waiting.get(msg.id)?.(msg);
        }
      }
    });
    const waiting = new Map<number, (a: Answer) => void>();
    const answered = (id: number) => answers.get(id) ?? new Promise<Answer>((r) => waiting.set(id, r));
    const send = (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`);

    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    await answered(1);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    await answered(2);

    // The call is held at the workspace until the server has begun to shut down.
    const underWay = gate();
    sandbox.admin.fault({ count: 1, before: underWay.before, match: { method: 'GET', path: '/engagements' } });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_engagements', arguments: {} } });
    await underWay.held(1);
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await logged(child, () => err, /shutting down/, 'shutdown begun');
    underWay.open();
    const [code] = (await exited) as [number | null];

    expect(code, err).toBe(0);
    const call = answers.get(3);
    expect(call?.result?.isError).toBeFalsy();
    expect(call?.result?.content[0]?.text).toMatch(/[0-9A-HJKMNP-TV-Z]{26}/);
  });
});

describe('serve over stdio, at the end of its input', () => {
  it('answers every call sent before it, the last line even without its newline, then exits 0', async () => {
    // The built server, as a one-shot pipe runs it (`printf '...' | node dist/src/cli.js`): every
    // message written at once, then stdin closed while the call is still at the workspace.
    const child = spawnServer({ WORKSPACE_URL: sandbox.url, WORKSPACE_TOKEN: sandbox.tokens.read, LOG_LEVEL: 'debug' }, [], join(ROOT, 'dist/src/cli.js'));
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => (err += d));
    // The call is held at the workspace until the server has read the end of its input.
    const atWorkspace = gate();
    sandbox.admin.fault({ count: 1, before: atWorkspace.before, match: { method: 'GET', path: '/engagements' } });
    const exited = once(child, 'exit');
    const lines = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_engagements', arguments: {} } },
      { jsonrpc: '2.0', id: 3, method: 'tools/list' },
    ].map((m) => JSON.stringify(m));
    child.stdin.end(lines.join('\n'));
    await atWorkspace.held(1);
    await logged(child, () => err, /stdin ended/, 'end of the input read');
    atWorkspace.open();
    const [code] = (await exited) as [number | null];

    expect(code, err).toBe(0);
    const answers = new Map(
      out
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as { id?: number; result?: { isError?: boolean; content?: { text: string }[]; tools?: unknown[] } })
        .map((m) => [m.id, m]),
    );
    expect([...answers.keys()].sort()).toEqual([1, 2, 3]);
    // The call was held at the workspace past the end of the input: answered all the same.
    expect(answers.get(2)?.result?.isError).toBeFalsy();
    expect(answers.get(2)?.result?.content?.[0]?.text).toMatch(/[0-9A-HJKMNP-TV-Z]{26}/);
    expect(answers.get(3)?.result?.tools?.length).toBeGreaterThan(0);
  });
});
