// The stdio transport's half of graceful shutdown: a signal, or the end of stdin, lets the calls in
// flight finish and be answered on stdout before the process exits 0.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { gate } from '../../helpers/reached.js';
import { StdioPeer } from '../../reliability/stdio-peer.js';

let sandbox: SandboxHandle;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false, adminToken: 'admin-stdio-shutdown' });
});

afterAll(async () => {
  await sandbox?.close();
});

type CallResult = { isError?: boolean; content?: { text: string }[]; tools?: unknown[] };

describe('serve over stdio, on SIGTERM', () => {
  it('answers the call in flight, then exits 0', async () => {
    const peer = new StdioPeer('source', { WORKSPACE_URL: sandbox.url, WORKSPACE_TOKEN: sandbox.tokens.read, LOG_LEVEL: 'info' });
    peer.initialize(1);
    await peer.answer(1);
    peer.send({ method: 'notifications/initialized' });
    peer.send({ id: 2, method: 'tools/list' });
    await peer.answer(2);

    // The call is held at the workspace until the server has begun to shut down.
    const underWay = gate();
    sandbox.admin.fault({ count: 1, before: underWay.before, match: { method: 'GET', path: '/engagements' } });
    peer.send({ id: 3, method: 'tools/call', params: { name: 'list_engagements', arguments: {} } });
    await underWay.held(1);
    peer.child.kill('SIGTERM');
    await peer.logged(/shutting down/, 'shutdown begun');
    underWay.open();
    const { code } = await peer.exited;

    expect(code, peer.stderr).toBe(0);
    const call = (await peer.answer(3)).result as CallResult;
    expect(call.isError).toBeFalsy();
    expect(call.content?.[0]?.text).toMatch(/[0-9A-HJKMNP-TV-Z]{26}/);
  });
});

describe('serve over stdio, at the end of its input', () => {
  it('answers every call sent before it, the last line even without its newline, then exits 0', async () => {
    // The built server, as a one-shot pipe runs it (`printf '...' | node dist/src/cli.js`): every
    // message written at once, then stdin closed while the call is still at the workspace.
    const peer = new StdioPeer('built', { WORKSPACE_URL: sandbox.url, WORKSPACE_TOKEN: sandbox.tokens.read, LOG_LEVEL: 'debug' });
    // The call is held at the workspace until the server has read the end of its input.
    const atWorkspace = gate();
    sandbox.admin.fault({ count: 1, before: atWorkspace.before, match: { method: 'GET', path: '/engagements' } });
    const lines = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_engagements', arguments: {} } },
      { jsonrpc: '2.0', id: 3, method: 'tools/list' },
    ].map((m) => JSON.stringify(m));
    peer.child.stdin.end(lines.join('\n'));
    await atWorkspace.held(1);
    await peer.logged(/stdin ended/, 'end of the input read');
    atWorkspace.open();
    const { code } = await peer.exited;

    expect(code, peer.stderr).toBe(0);
    expect(peer.strayLines).toEqual([]);
    expect(peer.messages.map((m) => m.id).sort()).toEqual([1, 2, 3]);
    // The call was held at the workspace past the end of the input: answered all the same.
    const call = (await peer.answer(2)).result as CallResult;
    expect(call.isError).toBeFalsy();
    expect(call.content?.[0]?.text).toMatch(/[0-9A-HJKMNP-TV-Z]{26}/);
    expect(((await peer.answer(3)).result as CallResult).tools?.length).toBeGreaterThan(0);
  });
});
