// What the rate budget costs a request, on each store: the time from schedule() to the request's
// start (the take; the settle runs on in the background but shares the store), per request, with
// nothing to wait for, beside a bare call with no limiter. One process, sequential requests, then 10 at a time; then three processes on
// one store at once. Run: node --import tsx bench/budget.ts (starts its own redis-server).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RateLimiter } from '../src/api/limiter.js';
import { openStore } from '../src/store/open.js';
import { startRedis } from '../test/helpers/redis.js';

const N = Number(process.env.BENCH_BUDGET_CALLS ?? 2000);
const worker = process.env.BUDGET_WORKER ? (JSON.parse(process.env.BUDGET_WORKER) as { redisUrl?: string; dir?: string; n: number }) : undefined;

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] as number;
}

/** Per-request cost in ms (p50, p99) of `n` requests, `concurrency` at a time. */
async function measure(limiter: RateLimiter | undefined, n: number, concurrency: number): Promise<{ p50: number; p99: number; perSecond: number }> {
  const costs: number[] = [];
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < n) {
        const asked = performance.now();
        const run = async () => void costs.push(performance.now() - asked);
        if (limiter) await limiter.schedule(run);
        else await run();
      }
    }),
  );
  const elapsed = performance.now() - t0;
  costs.sort((a, b) => a - b);
  return { p50: quantile(costs, 0.5), p99: quantile(costs, 0.99), perSecond: (n / elapsed) * 1000 };
}

// Never binding, and a window so short that the store holds a handful of slots, as with the API's
// 120 a minute at a real pace (a window holding thousands would measure JSON, not the budget).
const limits = { limit: 1_000_000, windowMs: 1, safetyMs: 1 };

if (worker) {
  const store = await openStore(worker);
  const r = await measure(new RateLimiter({ ...limits, store, key: 'budget:bench-processes' }), worker.n, 1);
  await store.close();
  process.stdout.write(`${JSON.stringify(r)}\n`);
  process.exit(0);
}

const fmt = (r: { p50: number; p99: number; perSecond: number }) =>
  `p50 ${r.p50.toFixed(3)} ms, p99 ${r.p99.toFixed(3)} ms, ${r.perSecond.toFixed(0)} requests/s`;
const redis = await startRedis();
const dir = await mkdtemp(join(tmpdir(), 'wcm-bench-budget-'));
try {
  const places = { memory: {}, file: { dir: join(dir, 'state') }, redis: { redisUrl: redis.url } };
  process.stdout.write(`budget cost per request, ${N} requests\n`);
  process.stdout.write(`  no limiter (baseline), sequential: ${fmt(await measure(undefined, N, 1))}\n`);
  for (const [name, place] of Object.entries(places)) {
    const store = await openStore(place);
    for (const concurrency of [1, 10]) {
      const limiter = new RateLimiter({ ...limits, store, key: `budget:bench-${concurrency}` });
      await measure(limiter, 100, concurrency); // warm-up
      process.stdout.write(`  ${name}, ${concurrency === 1 ? 'sequential' : `${concurrency} at a time`}: ${fmt(await measure(limiter, N, concurrency))}\n`);
    }
    await store.close();
  }
  for (const [name, place] of Object.entries(places).filter(([n]) => n !== 'memory')) {
    const root = fileURLToPath(new URL('..', import.meta.url));
    const runs = await Promise.all(
      Array.from({ length: 3 }, () => {
        const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'bench/budget.ts')], {
          env: { ...process.env, BUDGET_WORKER: JSON.stringify({ ...place, n: N / 2 }) },
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
        return new Promise<{ p50: number; p99: number; perSecond: number }>((resolve) => child.on('exit', () => resolve(JSON.parse(out))));
      }),
    );
    for (const [i, r] of runs.entries()) process.stdout.write(`  ${name}, process ${i + 1} of 3 at once, sequential: ${fmt(r)}\n`);
  }
} finally {
  await redis.stop();
  await rm(dir, { recursive: true, force: true });
}
