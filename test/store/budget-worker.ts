// One process spending a shared budget, for budget-exact.test.ts: a RateLimiter on the store named
// in WORKER (JSON), running every request at once; each "request" takes a random time, like a round
// trip. Prints one JSON line: when each request was sent and answered (epoch ms).
import { RateLimiter } from '../../src/api/limiter.js';
import { openStore } from '../../src/store/open.js';

const cfg = JSON.parse(process.env.WORKER ?? '{}') as {
  redisUrl?: string;
  dir?: string;
  prefix?: string;
  key: string;
  limit: number;
  windowMs: number;
  requests: number;
  maxRttMs: number;
};
const store = await openStore({ redisUrl: cfg.redisUrl, dir: cfg.dir, ...(cfg.prefix ? { prefix: cfg.prefix } : {}) });
const limiter = new RateLimiter({ limit: cfg.limit, windowMs: cfg.windowMs, store, key: cfg.key });
// Start together with the other workers: the parent says go once every worker is ready.
process.stdout.write('ready\n');
await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
const log = await Promise.all(
  Array.from({ length: cfg.requests }, () =>
    limiter.schedule(async () => {
      const sent = Date.now();
      await new Promise((r) => setTimeout(r, Math.random() * cfg.maxRttMs));
      return { sent, answered: Date.now() };
    }),
  ),
);
await store.close();
process.stdout.write(`${JSON.stringify(log)}\n`);
process.exit(0);
