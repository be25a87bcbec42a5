// Throughput of the sandbox pipeline: simple authenticated GETs over keep-alive connections.
// Run with `node bench/sandbox.ts` after `npm run build` (it uses the compiled sandbox in dist/unbundled), or
// with `node --import tsx bench/sandbox.ts` from the sources. Prints requests per second as one JSON
// line; target >= 2,000/s on 2 cores.
import { Agent, request } from 'undici';

type SandboxModule = typeof import('../src/sandbox/index.js');
const { startSandbox } = (await import('../dist/unbundled/src/sandbox/index.js' as string).catch(() => import('../src/sandbox/index.js'))) as SandboxModule;

const DURATION_MS = Number(process.env.BENCH_MS ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const PATHS = ['/me', '/workspace', '/workspace/members?limit=2', '/client-companies'];

const sandbox = await startSandbox({ port: 0, rateLimit: false, logger: (l) => process.stderr.write(`${l}\n`) });
const agent = new Agent({ connections: CONCURRENCY, pipelining: 1, keepAliveTimeout: 10_000 });
const headers = { authorization: `Bearer ${sandbox.tokens.read}` };

let done = 0;
let failed = 0;
const stopAt = performance.now() + DURATION_MS;

async function worker(i: number): Promise<void> {
  let n = i;
  while (performance.now() < stopAt) {
    const path = PATHS[n++ % PATHS.length] as string;
    const res = await request(`${sandbox.api}${path}`, { headers, dispatcher: agent });
    await res.body.text();
    if (res.statusCode === 200) done++;
    else failed++;
  }
}

// Warm-up: JIT and connection set-up are not what is measured.
await Promise.all(
  Array.from({ length: CONCURRENCY }, (_, i) => request(`${sandbox.api}${PATHS[i % PATHS.length]}`, { headers, dispatcher: agent }).then((r) => r.body.text())),
);
sandbox.clearRequests();
const started = performance.now();
await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => worker(i)));
const seconds = (performance.now() - started) / 1000;
const rps = Math.round(done / seconds);
process.stdout.write(
  `${JSON.stringify({ bench: 'sandbox simple GETs', concurrency: CONCURRENCY, seconds: Number(seconds.toFixed(2)), requests: done, failed, requests_per_second: rps })}\n`,
);
await agent.close();
await sandbox.close();
if (failed > 0) process.exitCode = 1;
