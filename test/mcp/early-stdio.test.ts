// The startup path: initialize and tools/list answered from the build-time cache before the server
// exists, then the real server takes over the same stdio stream. What the client sees must not
// depend on which of the two answered.
import { PassThrough } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { RateLimiter } from '../../src/api/limiter.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { EarlyStdioTransport, type EarlyAnswers, type EarlyStdioOptions } from '../../src/mcp/early-stdio.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { buildToolListCache } from '../../src/mcp/tool-list-build.js';
import { cachedAnswers, initializeResult, type ListPolicy, type ToolListCache } from '../../src/mcp/tool-list-cache.js';
import type { Scope } from '../../src/operation.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { catalog } from '../../tools/index.js';

type Msg = { id?: string | number; result?: Record<string, unknown>; error?: unknown; method?: string };

let cache: ToolListCache;
beforeAll(async () => {
  cache = await buildToolListCache(catalog);
}, 60_000);

function earlyFor(policy: ListPolicy): EarlyAnswers | undefined {
  const answers = cachedAnswers(cache, policy);
  if (!answers) return undefined;
  return { initialize: (p) => initializeResult(cache, answers.initialize, (p as { protocolVersion?: unknown }).protocolVersion), tools: answers.tools };
}

/** Streams around a listening EarlyStdioTransport, each line it writes parsed into `out`. */
function stdioPair(opts: Omit<EarlyStdioOptions, 'stdin' | 'stdout'>) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const out: Msg[] = [];
  let pending = '';
  stdout.setEncoding('utf8');
  stdout.on('data', (chunk: string) => {
    pending += chunk;
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      out.push(JSON.parse(pending.slice(0, nl)) as Msg);
      pending = pending.slice(nl + 1);
    }
  });
  const transport = new EarlyStdioTransport({ ...opts, stdin, stdout });
  transport.listen();
  return { stdin, out, transport };
}

/** A stdio pair around an EarlyStdioTransport; `attach` creates and connects the real server. */
function harness(policy: ListPolicy, early: EarlyAnswers | undefined, grantedScope?: Scope, workspace?: { url: string; token: string }) {
  const { stdin, out, transport } = stdioPair({ early });
  const send = (msg: object) => stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`);
  const answer = async (id: number | string): Promise<Msg> => {
    for (let i = 0; i < 400; i++) {
      const m = out.find((o) => o.id === id);
      if (m) return m;
      await new Promise((r) => setTimeout(r, 5));
    }
    throw new Error(`no answer to ${id}; got ${JSON.stringify(out.map((o) => o.id))}`);
  };
  const url = workspace?.url ?? 'http://127.0.0.1:9';
  const token = workspace?.token ?? 'pat_earlystdiotest000000000';
  const config = loadConfig({
    WORKSPACE_URL: url,
    WORKSPACE_TOKEN: token,
    WORKSPACE_TOOLSETS: Array.isArray(policy.toolsets) ? policy.toolsets.join(',') : policy.toolsets,
    WORKSPACE_READ_ONLY: String(policy.readOnly),
    LOG_LEVEL: 'silent',
  });
  const { logger } = createLogger('silent');
  const api = new ApiClient({ baseUrl: `${url}/api/v1`, token: () => token, limiter: new RateLimiter(config.rateLimit), logger });
  // Offline unless a workspace is given: then the server merges its live description. Created at
  // attach, as serve.ts does once the early answers are out.
  const make = () =>
    createMcpServer({
      config,
      client: api,
      logger,
      operations: catalog,
      liveOpenApi: workspace !== undefined,
      listedEarly: transport.listedEarly,
      ...(grantedScope ? { grantedScope } : {}),
    });
  let server: ReturnType<typeof createMcpServer> | undefined;
  return {
    transport,
    out,
    send,
    answer,
    get server() {
      if (!server) throw new Error('not attached');
      return server;
    },
    attach: () => {
      server = make();
      return server.connect(transport);
    },
    async close() {
      await server?.close();
      await api.close();
    },
  };
}

const INIT = { protocolVersion: '2025-11-25', capabilities: { roots: { listChanged: true } }, clientInfo: { name: 'early-test', version: '1' } };

describe('early answers on stdio', () => {
  const policies: ListPolicy[] = [
    { toolsets: 'all', readOnly: false },
    { toolsets: 'all', readOnly: true },
    { toolsets: 'default', readOnly: false },
    { toolsets: ['analysis', 'deliverables'], readOnly: false },
    { toolsets: ['ai', 'workspace'], readOnly: true },
  ];
  for (const policy of policies) {
    it(`gives the server's own initialize and tools/list answers (${JSON.stringify(policy)})`, async () => {
      // What the server answers when it is there from the start.
      const plain = harness(policy, undefined);
      await plain.attach();
      plain.send({ id: 1, method: 'initialize', params: INIT });
      plain.send({ method: 'notifications/initialized' });
      plain.send({ id: 2, method: 'tools/list' });
      const [serverInit, serverList] = [await plain.answer(1), await plain.answer(2)];
      await plain.close();

      // The same requests answered before any server exists.
      const early = harness(policy, earlyFor(policy));
      early.send({ id: 1, method: 'initialize', params: INIT });
      early.send({ method: 'notifications/initialized' });
      early.send({ id: 2, method: 'tools/list' });
      expect(await early.answer(1)).toEqual(serverInit);
      expect(await early.answer(2)).toEqual(serverList);
      expect((serverList.result?.tools as unknown[]).length).toBeGreaterThan(0);
      await early.close();
    });
  }

  it('answers a read consent like read-only mode', async () => {
    const consent = harness({ toolsets: 'all', readOnly: false }, undefined, 'read');
    await consent.attach();
    consent.send({ id: 1, method: 'initialize', params: INIT });
    consent.send({ id: 2, method: 'tools/list' });
    const listed = await consent.answer(2);
    await consent.close();
    expect(listed.result?.tools).toEqual(earlyFor({ toolsets: 'all', readOnly: true })?.tools);
  });

  it('negotiates the protocol version as the SDK does', () => {
    const answers = cachedAnswers(cache, { toolsets: 'all', readOnly: false });
    if (!answers) throw new Error('no answers for all');
    expect(initializeResult(cache, answers.initialize, '2025-06-18').protocolVersion).toBe('2025-06-18');
    expect(initializeResult(cache, answers.initialize, '1999-01-01').protocolVersion).toBe(cache.latestProtocolVersion);
  });

  it('wants the server only once the first tools/list is out, then hands over with the client capabilities', async () => {
    const h = harness({ toolsets: 'all', readOnly: false }, earlyFor({ toolsets: 'all', readOnly: false }));
    let wanted = false;
    void h.transport.serverWanted.then(() => (wanted = true));
    h.send({ id: 1, method: 'initialize', params: INIT });
    h.send({ method: 'notifications/initialized' });
    await h.answer(1);
    await new Promise((r) => setTimeout(r, 20));
    expect(wanted).toBe(false);

    h.send({ id: 2, method: 'tools/list' });
    await h.answer(2);
    await h.transport.serverWanted;
    await h.attach();
    // The replayed initialize reached the server, and its second answer never reached the client.
    expect(h.server.getClientCapabilities()).toEqual(INIT.capabilities);
    expect(h.server.getClientVersion()).toEqual(INIT.clientInfo);
    h.send({ id: 3, method: 'tools/call', params: { name: 'get_finding', arguments: { engagement: '../../workspace', finding: 'x' } } });
    const refused = await h.answer(3);
    expect(refused.result?.isError).toBe(true);
    expect(h.out.map((m) => m.id)).toEqual([1, 2, 3]);
    await h.close();
  });

  it('holds everything behind a request it cannot answer, and replays it in order', async () => {
    const h = harness({ toolsets: 'all', readOnly: false }, earlyFor({ toolsets: 'all', readOnly: false }));
    h.send({ id: 1, method: 'initialize', params: INIT });
    h.send({ method: 'notifications/initialized' });
    h.send({ id: 2, method: 'logging/setLevel', params: { level: 'debug' } });
    h.send({ id: 3, method: 'tools/list' });
    h.send({ id: 4, method: 'no/such/method' });
    await h.answer(1);
    await h.transport.serverWanted;
    await new Promise((r) => setTimeout(r, 20));
    // Nothing behind the held setLevel was answered early, tools/list included.
    expect(h.out.map((m) => m.id)).toEqual([1]);

    await h.attach();
    const [level, list, unknown] = [await h.answer(2), await h.answer(3), await h.answer(4)];
    expect(level.result).toEqual({});
    expect((list.result?.tools as unknown[]).length).toBe(141);
    expect(unknown.error).toMatchObject({ code: -32601 });
    // Replayed in the order received (the SDK answers an unknown method at once, so 4 may pass).
    const ids = h.out.map((m) => m.id);
    expect(ids.indexOf(2)).toBeLessThan(ids.indexOf(3));
    expect(ids.filter((id) => id === 1)).toHaveLength(1);
    await h.close();
  });

  it('says list_changed once the live description adds tools to a list answered early', async () => {
    const sandbox = await startSandbox({ port: 0, rateLimit: false });
    try {
      const policy: ListPolicy = { toolsets: 'all', readOnly: false };
      const h = harness(policy, earlyFor(policy), undefined, { url: sandbox.url, token: sandbox.tokens.write });
      h.send({ id: 1, method: 'initialize', params: INIT });
      h.send({ method: 'notifications/initialized' });
      h.send({ id: 2, method: 'tools/list' });
      const early = await h.answer(2);
      await h.transport.serverWanted;
      await h.attach();
      for (let i = 0; i < 400 && !h.out.some((m) => m.method === 'notifications/tools/list_changed'); i++) await new Promise((r) => setTimeout(r, 5));
      expect(h.out.some((m) => m.method === 'notifications/tools/list_changed')).toBe(true);
      h.send({ id: 3, method: 'tools/list' });
      const merged = (await h.answer(3)).result?.tools as Array<{ name: string }>;
      const earlyNames = (early.result?.tools as Array<{ name: string }>).map((t) => t.name);
      expect(merged.length).toBeGreaterThan(earlyNames.length);
      expect(merged.map((t) => t.name).slice(0, earlyNames.length)).toEqual(earlyNames);
      await h.close();
    } finally {
      await sandbox.close();
    }
  });

  it('without early answers, holds initialize for the server and wants it at once', async () => {
    const h = harness({ toolsets: 'all', readOnly: false }, undefined);
    await h.transport.serverWanted;
    h.send({ id: 'a', method: 'initialize', params: INIT });
    await new Promise((r) => setTimeout(r, 20));
    expect(h.out).toEqual([]);
    await h.attach();
    expect((await h.answer('a')).result?.serverInfo).toMatchObject({ name: 'workspace-consulting-mcp' });
    await h.close();
  });
});

describe('a line over the cap', () => {
  it('is dropped as it streams in, answered Invalid Request, and the lines after it are served', async () => {
    const { stdin, out, transport } = stdioPair({ early: earlyFor({ toolsets: 'all', readOnly: false }), maxLineChars: 1000 });
    const wait = () => new Promise((r) => setImmediate(r));
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT })}\n`);
    // 5,000 characters with no newline, in chunks: the buffer never holds more than the cap and a chunk.
    for (let i = 0; i < 10; i++) {
      stdin.write('x'.repeat(500));
      await wait();
      expect((transport as unknown as { buffer: string }).buffer.length).toBeLessThanOrEqual(1000);
    }
    // Its end, then a ping in the same chunk: the ping is read, the rest of the long line is not.
    stdin.write(`${'y'.repeat(300)}\n${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' })}\n`);
    await wait();
    await wait();
    const errors = out.filter((m) => m.id === null);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.error).toMatchObject({ code: -32600, message: expect.stringMatching(/over 1000 characters was dropped unread\. Send large files by path/) });
    expect(out.find((m) => m.id === 2)?.result).toEqual({});
    await transport.close();
  });

  it('leaves a line just under the cap to be parsed as usual', async () => {
    const { stdin, out, transport } = stdioPair({ early: earlyFor({ toolsets: 'all', readOnly: false }), maxLineChars: 1000 });
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 'p', method: 'ping', params: { _meta: { pad: 'z'.repeat(900) } } });
    expect(ping.length).toBeLessThan(1000);
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT })}\n`);
    stdin.write(ping.slice(0, 500));
    stdin.write(`${ping.slice(500)}\n`);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(out.map((a) => a.id)).toEqual([1, 'p']);
    await transport.close();
  });
});
