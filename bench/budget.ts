// What the rate budget costs a request, on each store: the time from schedule() to the request's
// start (the take; the settle runs on in the background but shares the store), per request, with
// nothing to wait for, beside a bare call with no limiter. One process, sequential requests, then 10 at a time; then three processes on
// one store at once. Then the local store (SQLite): the cost of one store round (a take, on a window
// holding 100 slots, as a busy minute of the real budget does), and exactness with 3 and 10
// processes spending one binding budget at once (the busiest window against the limit).
// Run: node --import tsx bench/budget.ts (starts its own redis-server).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RateLimiter } from '../src/api/limiter.js';
import { openStore, type Store } from '../src/store/open.js';
import { startRedis } from '../test/helpers/redis.js';
import { busiestWindow, mostCountable } from '../test/helpers/windows.js';

const N = Number(process.env.BENCH_BUDGET_CALLS ?? 2000);
const worker = process.env.BUDGET_WORKER
  ? (JSON.parse(process.env.BUDGET_WORKER) as {
      redisUrl?: string;
      dir?: string;
      n: number;
      exact?: { limit: number; windowMs: number };
    })
  : undefined;

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

if (worker?.exact) {
  // Every request at once on a binding budget, each answered after up to 20 ms: when each went.
  const store = await openStore(worker);
  const limiter = new RateLimiter({ ...worker.exact, store, key: 'budget:bench-exact' });
  const log = await Promise.all(
    Array.from({ length: worker.n }, () =>
      limiter.schedule(async () => {
        const sent = Date.now();
        await new Promise((r) => setTimeout(r, Math.random() * 20));
        return { sent, answered: Date.now() };
      }),
    ),
  );
  await store.close();
  process.stdout.write(`${JSON.stringify(log)}\n`);
  process.exit(0);
}
if (worker) {
  const store = await openStore(worker);
  const r = await measure(new RateLimiter({ ...limits, store, key: 'budget:bench-processes' }), worker.n, 1);
  await store.close();
  process.stdout.write(`${JSON.stringify(r)}\n`);
  process.exit(0);
}

const root = fileURLToPath(new URL('..', import.meta.url));
function spawnWorker(cfg: NonNullable<typeof worker>): Promise<unknown> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'bench/budget.ts')], {
    env: { ...process.env, BUDGET_WORKER: JSON.stringify(cfg) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  return new Promise((resolve) => child.on('exit', () => resolve(JSON.parse(out))));
}

/** One store round (a take, then its settle as refused, which leaves the window as it was), in ms. */
async function roundCost(store: Store, rounds: number): Promise<{ p50: number; p99: number }> {
  const key = 'budget:bench-round';
  const limits = { limit: 1_000_000, windowMs: 60_000, holdMs: 60_600, leaseMs: 300_000 };
  for (let i = 0; i < 100; i++) await store.takeSlot(key, limits);
  const costs: number[] = [];
  const settles: Array<Promise<unknown>> = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    const t = await store.takeSlot(key, limits);
    costs.push(performance.now() - t0);
    // Not awaited, as the limiter does not await it.
    if (t.taken) settles.push(store.settleSlot(key, t.slot, { refused: true, holdMs: limits.holdMs, leaseMs: limits.leaseMs }));
  }
  await Promise.all(settles);
  costs.sort((a, b) => a - b);
  return { p50: quantile(costs, 0.5), p99: quantile(costs, 0.99) };
}

const fmt = (r: { p50: number; p99: number; perSecond: number }) =>
  `p50 ${r.p50.toFixed(3)} ms, p99 ${r.p99.toFixed(3)} ms, ${r.perSecond.toFixed(0)} requests/s`;
const redis = await startRedis();
const dir = await mkdtemp(join(tmpdir(), 'wcm-bench-budget-'));
try {
  const places = {
    memory: {},
    sqlite: { dir: join(dir, 'sqlite') },
    redis: { redisUrl: redis.url },
  };
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
    const runs = (await Promise.all(Array.from({ length: 3 }, () => spawnWorker({ ...place, n: N / 2 })))) as Array<{
      p50: number;
      p99: number;
      perSecond: number;
    }>;
    for (const [i, r] of runs.entries()) process.stdout.write(`  ${name}, process ${i + 1} of 3 at once, sequential: ${fmt(r)}\n`);
  }
  process.stdout.write('the local store\n');
  {
    const store = await openStore({ dir: join(dir, 'round') });
    const r = await roundCost(store, N);
    await store.close();
    process.stdout.write(`  sqlite, one round (a take on a window of 100 slots): p50 ${(r.p50 * 1000).toFixed(0)} us, p99 ${(r.p99 * 1000).toFixed(0)} us\n`);
  }
  const exact = { limit: 20, windowMs: 500 };
  for (const processes of [3, 10]) {
    {
      const place = { dir: join(dir, `exact-${processes}`) };
      const t0 = Date.now();
      const logs = (await Promise.all(Array.from({ length: processes }, () => spawnWorker({ ...place, n: 40, exact })))) as Array<
        Array<{ sent: number; answered: number }>
      >;
      const all = logs.flat();
      const ideal = (Math.ceil(all.length / exact.limit) - 1) * exact.windowMs;
      process.stdout.write(
        `  sqlite, ${processes} processes x 40 requests at once on ${exact.limit}/${exact.windowMs} ms: busiest window ${busiestWindow(
          all.map((r) => r.sent),
          exact.windowMs,
        )}/${exact.limit}, most countable ${mostCountable(all, exact.windowMs)}/${exact.limit}, all sent in ${Math.max(...all.map((r) => r.sent)) - Math.min(...all.map((r) => r.sent))} ms (at the limit: ${ideal} ms; ${Date.now() - t0} ms with start-up)\n`,
      );
    }
  }
} finally {
  await redis.stop();
  await rm(dir, { recursive: true, force: true });
}
