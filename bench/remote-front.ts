// What the remote front adds to an MCP request, beside a baseline: the same small MCP server (SDK v2
// createMcpHandler + toNodeHandler) answering tools/list over HTTP, once bare and once behind the
// remote front (Host and Origin checks, the bearer looked up: two sealed reads from an in-memory
// store, AES-256-GCM opens). One SDK client each, sequential calls, p50/p99 latency and calls per
// second; plus a sign-in's wall time and the cost of sealing and opening one grant.
// Run: npx tsx bench/remote-front.ts   (BENCH_CALLS=2000 for more)
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { Sealer } from '../src/remote/sealing.js';
import { startSandbox } from '../src/sandbox/index.js';
import { MemoryStore } from '../src/store/memory.js';
import { browse, captureLogs, STATE_KEY, startReplica, TestOAuthProvider } from '../test/remote/helpers.js';

const CALLS = Math.max(200, Number(process.env.BENCH_CALLS ?? 1000));
const WARMUP = 50;

function factory() {
  return createMcpHandler(() => {
    const s = new McpServer({ name: 'bench', version: '1' });
    s.registerTool('ping', { description: 'answers pong' }, async () => ({ content: [{ type: 'text', text: 'pong' }] }));
    return s;
  });
}

async function measure(client: Client): Promise<{ p50: number; p99: number; perSecond: number }> {
  for (let i = 0; i < WARMUP; i++) await client.listTools();
  const times: number[] = [];
  const start = performance.now();
  for (let i = 0; i < CALLS; i++) {
    const t = performance.now();
    await client.listTools();
    times.push(performance.now() - t);
  }
  const total = performance.now() - start;
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] as number;
  return { p50: at(0.5), p99: at(0.99), perSecond: (CALLS / total) * 1000 };
}

const fmt = (r: { p50: number; p99: number; perSecond: number }) => `p50 ${r.p50.toFixed(3)} ms  p99 ${r.p99.toFixed(3)} ms  ${r.perSecond.toFixed(0)} calls/s`;

async function main(): Promise<void> {
  // Baseline: the bare handler on loopback.
  const bareNode = toNodeHandler(factory());
  const bare = createServer((req, res) => void bareNode(req, res));
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const bareClient = new Client({ name: 'bench', version: '1' });
  await bareClient.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${(bare.address() as AddressInfo).port}/mcp`)));
  const baseline = await measure(bareClient);
  await bareClient.close();
  bare.closeAllConnections();
  bare.close();

  // The same handler behind the remote front, signed in through the sandbox.
  const sandbox = await startSandbox({ port: 0, rateLimit: false, oauth: { autoConsent: 'write' }, logger: () => {} });
  const node = toNodeHandler(factory());
  const replica = await startReplica({
    workspaceUrl: sandbox.url,
    workspaceApi: sandbox.api,
    store: new MemoryStore(),
    stateKey: STATE_KEY,
    logger: captureLogs('info').logger,
    mcp: async (req, res) => node(req, res),
  });
  const provider = new TestOAuthProvider();
  const mcpUrl = new URL('/mcp', replica.url);
  const signInStart = performance.now();
  await new Client({ name: 'bench', version: '1' }).connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider })).catch(() => {});
  const back = await browse((provider.authorizationUrl as URL).href, provider.redirectUrl);
  await new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }).finishAuth(back.searchParams);
  const signInMs = performance.now() - signInStart;
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
  const fronted = await measure(client);
  await client.close();
  await replica.close();
  await sandbox.close();

  const sealer = new Sealer(Buffer.from(STATE_KEY, 'base64'));
  const grant = JSON.stringify({
    memberId: 'm'.repeat(26),
    workspace: { access_token: `wco_at_${'a'.repeat(43)}`, refresh_token: `wco_rt_${'b'.repeat(43)}`, scope: 'write', issued_at: 0, expires_at: 0 },
    replacedRefresh: Array(10).fill('f'.repeat(64)),
  });
  const N = 20_000;
  let t = performance.now();
  let sealed = '';
  for (let i = 0; i < N; i++) sealed = sealer.seal(grant, 'remote:grant:x');
  const sealUs = ((performance.now() - t) / N) * 1000;
  t = performance.now();
  for (let i = 0; i < N; i++) sealer.open(sealed, 'remote:grant:x');
  const openUs = ((performance.now() - t) / N) * 1000;

  console.log(`tools/list, ${CALLS} sequential calls each (loopback, in-memory store)`);
  console.log(`  bare handler:        ${fmt(baseline)}`);
  console.log(`  behind remote front: ${fmt(fronted)}`);
  console.log(`  added per call:      p50 ${(fronted.p50 - baseline.p50).toFixed(3)} ms`);
  console.log(`sign-in (discovery, registration, approval, workspace consent, code exchange): ${signInMs.toFixed(0)} ms`);
  console.log(`seal one grant (${grant.length} bytes): ${sealUs.toFixed(1)} µs; open: ${openUs.toFixed(1)} µs; sealed size ${sealed.length} bytes`);
}

await main();
