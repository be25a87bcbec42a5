// Exact budgets: however many limiters, in one process or in several, share one store, the requests
// they send never exceed the limit in any rolling window, wherever between send and answer the
// server would stamp each one. Counted from the timestamps the requests recorded. The test plays
// the workspace: it answers each request once two more were sent after it (and every one once all
// were sent), so requests are out together, some of them across a whole wait for the window.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/api/limiter.js';
import { openStore, type Store } from '../../src/store/open.js';
import { type RedisHandle, startRedis } from '../helpers/redis.js';
import { ROOT } from '../helpers/spawn.js';
import { budgetUse, busiestWindow, mostCountable } from '../helpers/windows.js';

let redis: RedisHandle;
let tmp: string;

beforeAll(async () => {
  redis = await startRedis();
  tmp = await mkdtemp(join(tmpdir(), 'wcm-budget-exact-'));
});
afterAll(async () => {
  await redis?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

type Request = { sent: number; answered: number };

/** The workspace's answers: each request is answered once `later` more were sent after it, and all once `total` were sent. */
class Answers {
  #held: Array<() => void> = [];
  #left: number;
  constructor(
    total: number,
    readonly later = 2,
  ) {
    this.#left = total;
  }

  /** A request was sent: `answer` answers it, when its turn comes. */
  sent(answer: () => void): void {
    this.#held.push(answer);
    if (--this.#left === 0) while (this.#held.length > 0) this.#held.shift()?.();
    else while (this.#held.length > this.later) this.#held.shift()?.();
  }
}

let n = 0;
const backends: Array<{ name: string; place: () => { redisUrl?: string; dir?: string; prefix?: string } }> = [
  { name: 'memory', place: () => ({}) },
  { name: 'sqlite', place: () => ({ dir: join(tmp, `sqlite-${++n}`) }) },
  { name: 'redis', place: () => ({ redisUrl: redis.url, prefix: `exact${++n}:` }) },
];

function report(what: string, requests: Request[], limit: number, windowMs: number): void {
  const sends = requests.map((r) => r.sent);
  process.stderr.write(
    `${what}: ${requests.length} requests, busiest window ${busiestWindow(sends, windowMs)}/${limit}, most countable ${mostCountable(requests, windowMs)}/${limit}, budget used ${(budgetUse(sends, limit, windowMs) * 100).toFixed(1)}%\n`,
  );
}

describe.each(backends)('one process on the $name store', ({ name, place }) => {
  it('three limiters with 100 requests each at once never exceed the limit in any rolling window', async () => {
    const limit = 25;
    const windowMs = 300;
    const store: Store = await openStore(place());
    try {
      const limiters = Array.from({ length: 3 }, () => new RateLimiter({ limit, windowMs, store, key: 'budget:one-process' }));
      const answers = new Answers(300);
      const requests = await Promise.all(
        limiters.flatMap((limiter) =>
          Array.from({ length: 100 }, () =>
            limiter.schedule(async (): Promise<Request> => {
              const sent = Date.now();
              await new Promise<void>((answer) => answers.sent(answer));
              return { sent, answered: Date.now() };
            }),
          ),
        ),
      );
      report(`${name}, one process, 3 limiters`, requests, limit, windowMs);
      expect(requests).toHaveLength(300);
      expect(mostCountable(requests, windowMs)).toBeLessThanOrEqual(limit);
      expect(
        busiestWindow(
          requests.map((r) => r.sent),
          windowMs,
        ),
      ).toBeLessThanOrEqual(limit);
    } finally {
      await store.close();
    }
  }, 60_000);
});

/** Start `count` worker processes on one store, let them go at once, answer their requests, and gather what they sent. */
async function runWorkers(count: number, cfg: { requests: number } & Record<string, unknown>): Promise<Request[]> {
  const children = Array.from({ length: count }, () =>
    spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/store/budget-worker.ts')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', WORKER: JSON.stringify(cfg) },
      stdio: ['pipe', 'pipe', 'pipe'],
    }),
  );
  const answers = new Answers(count * cfg.requests);
  const outputs = children.map((child) => {
    let log = '';
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    let readied = () => {};
    const ready = new Promise<void>((resolve, reject) => {
      readied = resolve;
      child.once('exit', (code) => reject(new Error(`worker exited ${code} before it was ready: ${err.slice(-2000)}`)));
    });
    createInterface({ input: child.stdout }).on('line', (line) => {
      const sent = /^sent (\d+)$/.exec(line)?.[1];
      if (sent !== undefined) answers.sent(() => child.stdin.write(`answer ${sent}\n`));
      else if (line === 'ready') readied();
      else log = line;
    });
    // A worker that died is told by its exit: a write to it then fails, and is no news.
    child.stdin.on('error', () => {});
    const done = new Promise<Request[]>((resolve, reject) =>
      child.once('exit', (code) => {
        if (code !== 0) return reject(new Error(`worker exited ${code}: ${err.slice(-2000)}`));
        resolve(JSON.parse(log) as Request[]);
      }),
    );
    return { child, ready, done };
  });
  try {
    await Promise.all(outputs.map((o) => o.ready));
    for (const o of outputs) o.child.stdin.write('go\n');
    return (await Promise.all(outputs.map((o) => o.done))).flat();
  } finally {
    for (const o of outputs) if (o.child.exitCode === null) o.child.kill('SIGKILL');
  }
}

describe.each(backends.filter((b) => b.name !== 'memory'))('several processes on one $name store', ({ name, place }) => {
  it.each([
    { count: 4, each: 60 },
    { count: 10, each: 24 },
  ])(
    '$count processes with $each requests each at once never exceed the limit in any rolling window',
    async ({ count, each }) => {
      const limit = 20;
      const windowMs = 500;
      const requests = await runWorkers(count, { ...place(), key: `budget:processes-${count}`, limit, windowMs, requests: each });
      report(`${name}, ${count} processes`, requests, limit, windowMs);
      expect(requests).toHaveLength(count * each);
      expect(mostCountable(requests, windowMs)).toBeLessThanOrEqual(limit);
      expect(
        busiestWindow(
          requests.map((r) => r.sent),
          windowMs,
        ),
      ).toBeLessThanOrEqual(limit);
    },
    120_000,
  );
});
