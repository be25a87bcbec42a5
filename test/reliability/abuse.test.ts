// Protocol abuse against the stdio server as a child process, from source and built (as installed).
// Whatever a broken client writes, the line guard in front of the SDK's transport answers JSON-RPC
// errors where the protocol wants them (or drops what JSON-RPC answers not), the server keeps
// serving, and at EOF it answers what is in flight and exits 0.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { gate, reached } from '../helpers/reached.js';
import { BUILT_CLI, builtServerExists, StdioPeer } from './stdio-peer.js';
import { LogScan } from './token-scan.js';

let sandbox: SandboxHandle;
let env: Record<string, string>;
const scan = new LogScan();
const peers: StdioPeer[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  const dir = await mkdtemp(join(tmpdir(), 'wcm-abuse-'));
  env = {
    WORKSPACE_URL: sandbox.url,
    WORKSPACE_TOKEN: sandbox.tokens.write,
    WORKSPACE_TOOLSETS: 'all',
    WORKSPACE_DOWNLOAD_DIR: join(dir, 'downloads'),
    WORKSPACE_CONFIG_DIR: join(dir, 'config'),
    HOME: dir,
    LOG_LEVEL: 'debug',
  };
});
afterAll(async () => {
  for (const p of peers) if (p.child.exitCode === null) p.child.kill();
  await sandbox?.close();
  expect(scan.leaks(Object.values(sandbox.tokens))).toEqual([]);
});

const INIT = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'abuse', version: '1' } };

function start(mode: 'source' | 'built'): StdioPeer {
  if (mode === 'built' && !builtServerExists()) throw new Error(`${BUILT_CLI} is missing: run npm run build first`);
  const peer = new StdioPeer(mode, env, scan);
  peers.push(peer);
  return peer;
}

/** What every session must end with: no stray stdout, no crash trace, exit 0 on EOF. */
async function endsCleanly(peer: StdioPeer): Promise<void> {
  const { code, signal } = await peer.close();
  expect(signal).toBeNull();
  expect(code, peer.stderr.slice(-2000)).toBe(0);
  expect(peer.strayLines).toEqual([]);
  expect(peer.stderr).not.toMatch(/TypeError|ReferenceError|Unhandled|uncaught|MaxListenersExceeded/i);
}

describe.each(['source', 'built'] as const)('stdio abuse (%s)', (mode) => {
  it('answers garbage, non-messages and batches with JSON-RPC errors before and after initialize, and keeps serving', async () => {
    const peer = start(mode);
    // Before initialize: the guard answers whatever the connection's era.
    peer.raw('this is not json\n');
    peer.raw('null\n42\n"text"\n[]\n[{"jsonrpc":"2.0","id":9,"method":"ping"}]\n{}\n{"jsonrpc":"1.0","id":"v1","method":"ping"}\n');
    peer.raw('{"jsonrpc":"2.0","id":{"nested":1},"method":"ping"}\n{"jsonrpc":"2.0","id":"no-method"}\n');
    peer.send({ id: 1, method: 'initialize', params: INIT });
    const init = await peer.answer(1);
    expect(init.result).toMatchObject({ serverInfo: { name: 'workspace-consulting-mcp' } });
    peer.send({ method: 'notifications/initialized' });
    // After initialize, and on the SDK server once it is attached.
    peer.raw('{"jsonrpc":"2.0","id":2,"method":"tools/list"\n'); // cut short: a parse error
    peer.raw('\n\n   \n'); // blank lines are no messages
    peer.raw('{"jsonrpc":"2.0","id":3,"method":"ping"}\r\n'); // CRLF line ending
    peer.send({ id: 4, method: 'tools/list' });
    await peer.answer(4);
    peer.raw('null\n{"jsonrpc":"2.0","method":7}\n{"jsonrpc":"2.0","id":"p","method":"ping","params":"x"}\n');
    peer.send({ id: 5, method: 'ping' });
    expect((await peer.answer(3)).result).toEqual({});
    expect((await peer.answer(5)).result).toEqual({});
    await peer.answer('p');
    // A round trip after the last line: the errors of the lines before it have come.
    peer.send({ id: 'last', method: 'ping' });
    await peer.answer('last');

    const errors = peer.nullIdErrors().map((e) => e.code);
    // garbage, null, 42, "text", [], [batch], {}, jsonrpc 1.0 (has an id: answered with it), object id, id without method, cut line, null, method 7
    expect(errors.filter((c) => c === -32700)).toHaveLength(2);
    expect(errors.filter((c) => c === -32600).length).toBeGreaterThanOrEqual(9);
    expect((await peer.answer('v1')).error?.code).toBe(-32600);
    expect((await peer.answer('no-method')).error?.code).toBe(-32600);
    expect((await peer.answer('p')).error?.code).toBe(-32600);
    await endsCleanly(peer);
  });

  it('answers a request sent before initialize, and serves the session that follows', async () => {
    const peer = start(mode);
    peer.send({ id: 'early-list', method: 'tools/list' });
    peer.send({ id: 'early-call', method: 'tools/call', params: { name: 'get_workspace', arguments: {} } });
    const list = await peer.answer('early-list');
    expect(list.result ?? list.error).toBeDefined();
    await peer.answer('early-call');
    peer.send({ id: 1, method: 'initialize', params: INIT });
    await peer.answer(1);
    peer.send({ id: 2, method: 'tools/call', params: { name: 'get_workspace', arguments: {} } });
    expect((await peer.answer(2)).result).toMatchObject({ structuredContent: { slug: 'atelier' } });
    await endsCleanly(peer);
  });

  it('answers unknown methods with -32601 and unknown tools as errors, and keeps serving', async () => {
    const peer = start(mode);
    peer.send({ id: 1, method: 'initialize', params: INIT });
    await peer.answer(1);
    peer.send({ method: 'notifications/initialized' });
    peer.send({ id: 2, method: 'no/such/method', params: {} });
    peer.send({ id: 3, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } });
    peer.send({ method: 'notifications/unknown_thing', params: {} }); // a notification gets no answer
    peer.send({ id: 4, method: 'ping' });
    expect((await peer.answer(2)).error?.code).toBe(-32601);
    const unknownTool = await peer.answer(3);
    expect(unknownTool.error?.code ?? (unknownTool.result as { isError?: boolean }).isError).toBeTruthy();
    expect((await peer.answer(4)).result).toEqual({});
    await endsCleanly(peer);
  });

  it('survives 10 MB lines: garbage gets a parse error, an oversized argument a clear refusal with nothing sent', async () => {
    const peer = start(mode);
    peer.send({ id: 1, method: 'initialize', params: INIT });
    await peer.answer(1);
    peer.send({ method: 'notifications/initialized' });
    sandbox.clearRequests();
    peer.raw(`${'x'.repeat(10 * 1024 * 1024)}\n`);
    const statement = 'é'.repeat(10 * 1024 * 1024);
    peer.send({
      id: 2,
      method: 'tools/call',
      params: { name: 'create_finding', arguments: { engagement: '01M1D4MS5080000000GGT70VZH', type: 'risk', statement } },
    });
    peer.send({ id: 3, method: 'ping' });
    const refused = await peer.answer(2, 60_000);
    expect(refused.result).toMatchObject({ isError: true });
    expect(JSON.stringify(refused.result)).toMatch(/statement: at most 1000 characters/);
    expect((await peer.answer(3)).result).toEqual({});
    expect(peer.nullIdErrors().map((e) => e.code)).toEqual([-32700]);
    expect(sandbox.requests().filter((r) => r.method === 'POST')).toHaveLength(0);
    await endsCleanly(peer);
  }, 90_000);

  it('drops a line over the 48 MiB cap (Invalid Request, id null) and serves the next line', async () => {
    const peer = start(mode);
    peer.send({ id: 1, method: 'initialize', params: INIT });
    await peer.answer(1);
    peer.send({ method: 'notifications/initialized' });
    // 60 MiB with no newline, as a client that never ends its line would send it.
    const chunk = 'x'.repeat(4 * 1024 * 1024);
    for (let i = 0; i < 15; i++) peer.raw(chunk);
    peer.raw('\n');
    peer.send({ id: 2, method: 'ping' });
    expect((await peer.answer(2, 60_000)).result).toEqual({});
    expect(peer.nullIdErrors()).toEqual([expect.objectContaining({ code: -32600, message: expect.stringMatching(/over 48 MiB was dropped unread/) })]);
    await endsCleanly(peer);
  }, 90_000);

  it('a client slow to read a burst of large answers gets them all, in full', async () => {
    const peer = start(mode);
    peer.send({ id: 1, method: 'initialize', params: INIT });
    await peer.answer(1);
    peer.send({ method: 'notifications/initialized' });
    // Stop reading: the pipe fills and the server's writes wait for it to drain.
    peer.child.stdout.pause();
    sandbox.clearRequests();
    for (let i = 0; i < 40; i++)
      peer.send({ id: 100 + i, method: 'tools/call', params: { name: 'get_session_transcript', arguments: { session: '01M1D51KA0Z0000000GG4GMSKS' } } });
    // Read again once the sandbox has answered the 40 reads: the server holds 40 answers for a pipe
    // no one reads.
    let answered = 0;
    await sandbox.waitForRequest((r) => r.template === '/sessions/{session}/transcript' && ++answered === 40, 20_000, '40th transcript read');
    peer.child.stdout.resume();
    for (let i = 0; i < 40; i++) expect((await peer.answer(100 + i)).result).toMatchObject({ structuredContent: expect.any(Object) });
    await endsCleanly(peer);
  }, 30_000);

  it('a call cancelled mid-flight gets no answer, its HTTP request is dropped, and the next call is served', async () => {
    const peer = start(mode);
    peer.send({ id: 1, method: 'initialize', params: INIT });
    await peer.answer(1);
    peer.send({ method: 'notifications/initialized' });
    peer.send({ id: 2, method: 'tools/call', params: { name: 'get_workspace', arguments: {} } });
    await peer.answer(2); // the server is attached and warm
    sandbox.clearRequests();
    const inFlight = reached();
    // Its answer is held until the server hangs up: it is logged then, and never if the server does not.
    sandbox.admin.fault({
      count: 1,
      before: ({ hungUp }) => {
        inFlight.tell();
        return hungUp;
      },
      match: { method: 'GET', path: '/me' },
    });
    peer.send({ id: 3, method: 'tools/call', params: { name: 'get_current_member', arguments: {} } });
    await inFlight.reached; // the request is in flight: the sandbox logs it only once it is over
    peer.send({ method: 'notifications/cancelled', params: { requestId: 3, reason: 'the user pressed stop' } });
    peer.send({ id: 4, method: 'tools/call', params: { name: 'get_workspace', arguments: {} } });
    expect((await peer.answer(4)).result).toMatchObject({ structuredContent: { slug: 'atelier' } });
    // Dropped by the server, then answered (to no one) and logged; a round trip after it: an answer
    // to 3 would have come by now.
    const me = await sandbox.waitForRequest((r) => r.template === '/me', 10_000, 'the dropped /me');
    expect(me.client_closed).toBe(true);
    peer.send({ id: 'after', method: 'ping' });
    await peer.answer('after');
    expect(peer.messages.some((m) => m.id === 3)).toBe(false);
    expect(sandbox.requests().filter((r) => r.template === '/me')).toHaveLength(1);
    // A cancellation for an unknown or finished request is ignored.
    peer.send({ method: 'notifications/cancelled', params: { requestId: 999 } });
    peer.send({ method: 'notifications/cancelled', params: { requestId: 4 } });
    peer.send({ id: 5, method: 'ping' });
    expect((await peer.answer(5)).result).toEqual({});
    await endsCleanly(peer);
  }, 30_000);

  it('a client that disappears mid-call (input closed, output no longer read): the call ends, its answer goes nowhere, the process exits 0', async () => {
    const peer = start(mode);
    peer.send({ id: 1, method: 'initialize', params: INIT });
    await peer.answer(1);
    peer.send({ method: 'notifications/initialized' });
    peer.send({ id: 2, method: 'tools/call', params: { name: 'get_workspace', arguments: {} } });
    await peer.answer(2);
    sandbox.clearRequests();
    // The call is held at the workspace until the server has read the end of its input, or hangs up.
    const inCall = gate();
    sandbox.admin.fault({
      count: 1,
      before: ({ hungUp }) => Promise.race([inCall.before(), hungUp]),
      match: { method: 'GET', path: '/me' },
    });
    peer.send({ id: 3, method: 'tools/call', params: { name: 'get_current_member', arguments: {} } });
    // An answer larger than a pipe holds (the whole tool list): writing it must not wait for a reader forever.
    peer.send({ id: 4, method: 'tools/list' });
    await inCall.held(1);
    // Gone: nobody reads the server's stdout any more (its writes fail with EPIPE), and its stdin ends.
    peer.child.stdout.destroy();
    const ended = endsCleanly(peer);
    await peer.logged(/stdin ended/, 'end of the input read');
    inCall.open();
    await ended;
    // The end of the input finished the call rather than dropping it: the workspace answered it, to a
    // server still there to read the answer.
    expect(sandbox.requests().find((r) => r.template === '/me')?.client_closed).toBeFalsy();
    expect(sandbox.requests().some((r) => r.template === '/me')).toBe(true);
  }, 30_000);
});
