// One process spending a shared budget, for budget-exact.test.ts: a RateLimiter on the store named
// in WORKER (JSON), running every request at once. The test plays the workspace: each request is
// told on stdout (`sent N`) and answered when the test writes `answer N` on stdin, so round trips
// overlap in an order the sends decide, with no timer. Prints one JSON line at the end: when each
// request was sent and answered (epoch ms).
import { createInterface } from 'node:readline';
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
};
const store = await openStore({ redisUrl: cfg.redisUrl, dir: cfg.dir, ...(cfg.prefix ? { prefix: cfg.prefix } : {}) });
const limiter = new RateLimiter({ limit: cfg.limit, windowMs: cfg.windowMs, store, key: cfg.key });
const answers = new Map<number, () => void>();
let go!: () => void;
const started = new Promise<void>((resolve) => (go = resolve));
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'go') return go();
  const id = Number(/^answer (\d+)$/.exec(line)?.[1]);
  answers.get(id)?.();
  answers.delete(id);
});
// Start together with the other workers: the parent says go once every worker is ready.
process.stdout.write('ready\n');
await started;
let sends = 0;
const log = await Promise.all(
  Array.from({ length: cfg.requests }, () =>
    limiter.schedule(async () => {
      const id = ++sends;
      const sent = Date.now();
      const answered = new Promise<void>((resolve) => answers.set(id, resolve));
      process.stdout.write(`sent ${id}\n`);
      await answered;
      return { sent, answered: Date.now() };
    }),
  ),
);
await store.close();
process.stdout.write(`${JSON.stringify(log)}\n`);
process.exit(0);
