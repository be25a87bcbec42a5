// The stdio transport's half of graceful shutdown: a signal lets the call in flight finish and be
// answered on stdout before the process exits 0.
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { reached } from '../../helpers/reached.js';
import { spawnServer } from '../../helpers/spawn.js';

let sandbox: SandboxHandle;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false, adminToken: 'admin-stdio-shutdown' });
});

afterAll(async () => {
  await sandbox?.close();
});

describe('serve over stdio, on SIGTERM', () => {
  it('answers the call in flight, then exits 0', async () => {
    const child = spawnServer({ WORKSPACE_URL: sandbox.url, WORKSPACE_TOKEN: sandbox.tokens.read, LOG_LEVEL: 'warn' });
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

    const underWay = reached();
    sandbox.admin.fault({ count: 1, delay_ms: 1500, before: underWay.tell, match: { method: 'GET', path: '/engagements' } });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_engagements', arguments: {} } });
    await underWay.reached;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = (await exited) as [number | null];

    expect(code).toBe(0);
    const call = answers.get(3);
    expect(call?.result?.isError).toBeFalsy();
    expect(call?.result?.content[0]?.text).toMatch(/[0-9A-HJKMNP-TV-Z]{26}/);
  });
});
