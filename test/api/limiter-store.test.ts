// The limiter on a shared store that fails: requests go on, counted by this process alone, and the
// failure is said once (the store is tried again every few seconds); or, where replicas share the
// budget, they are refused as briefly unavailable, nothing sent.
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { BRIEFLY_UNAVAILABLE, WorkspaceApiError } from '../../src/api/errors.js';
import { RateLimiter } from '../../src/api/limiter.js';
import { MemoryStore } from '../../src/store/memory.js';
import { RedisStore } from '../../src/store/redis.js';
import { type RedisHandle, startRedis } from '../helpers/redis.js';
import { fakeWorkspace, sendJson } from './fake-workspace.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

describe('RateLimiter on a shared store', () => {
  it('keeps admitting requests when Redis goes away, counting alone from its own sends still counting, and says so once', async () => {
    const redis: RedisHandle = await startRedis();
    cleanups.push(() => redis.stop());
    const store = await RedisStore.connect(redis.url, { prefix: 'gone:' });
    cleanups.push(() => store.close());
    const errors: unknown[] = [];
    const limiter = new RateLimiter({ limit: 3, windowMs: 60_000, store, key: 'budget:gone', onStoreError: (e) => errors.push(e) });
    await limiter.schedule(async () => undefined);
    expect(await store.takeSlot('budget:gone', { limit: 10, windowMs: 60_000, holdMs: 60_000, leaseMs: 60_000 })).toMatchObject({ taken: true, count: 2 });

    await redis.stop();
    const sent: number[] = [];
    const controller = new AbortController();
    const calls = [0, 1, 2].map((i) => limiter.schedule(async () => void sent.push(i), { signal: controller.signal }));
    await Promise.all(calls.slice(0, 2));
    expect(errors).toHaveLength(1);
    // The request sent before the store went still counts: with it, the limit of three is reached,
    // and the third call waits for the window, however long the store stays away.
    controller.abort(new Error('stop waiting'));
    expect(((await calls[2]!.catch((e: unknown) => e)) as Error).message).toBe('stop waiting');
    expect(sent).toEqual([0, 1]);
  });

  it('waits for a store still opening, and counts alone (saying so) when it fails to open', async () => {
    const redis: RedisHandle = await startRedis();
    cleanups.push(() => redis.stop());
    const opening = RedisStore.connect(redis.url, { prefix: 'opening:' });
    const limiter = new RateLimiter({ limit: 2, windowMs: 60_000, store: opening, key: 'budget:opening' });
    await limiter.schedule(async () => undefined);
    const store = await opening;
    cleanups.push(() => store.close());
    // The request was counted in the shared window, once it was open.
    expect(await store.takeSlot('budget:opening', { limit: 10, windowMs: 60_000, holdMs: 60_000, leaseMs: 60_000 })).toMatchObject({ taken: true, count: 2 });

    const errors: unknown[] = [];
    const failed = new RateLimiter({ limit: 2, windowMs: 60_000, store: RedisStore.connect('redis://127.0.0.1:1/0'), onStoreError: (e) => errors.push(e) });
    const sent: number[] = [];
    await Promise.all([1, 2].map((i) => failed.schedule(async () => void sent.push(i))));
    expect(sent).toEqual([1, 2]);
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toMatch(/Could not connect to Redis at REDIS_URL/);
  });

  it('refuses calls, sending nothing, while Redis is away when it may not count alone (replicas): briefly unavailable, not outcome unknown', async () => {
    const redis: RedisHandle = await startRedis();
    cleanups.push(() => redis.stop());
    const store = await RedisStore.connect(redis.url, { prefix: 'refuse:' });
    cleanups.push(() => store.close());
    const errors: unknown[] = [];
    const limiter = new RateLimiter({ limit: 3, windowMs: 60_000, store, key: 'budget:refuse', refuseWithoutStore: true, onStoreError: (e) => errors.push(e) });
    const sent: number[] = [];
    await limiter.schedule(async () => void sent.push(0));

    await redis.kill();
    for (const i of [1, 2]) {
      const refused = await limiter.schedule(async () => void sent.push(i)).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(WorkspaceApiError);
      expect(refused).toMatchObject({ status: 503, code: BRIEFLY_UNAVAILABLE, retryAfterSeconds: expect.any(Number) });
      expect((refused as Error).message).toMatch(/Nothing was sent/);
    }
    expect(sent).toEqual([0]);
    expect(errors).toHaveLength(1);
    // Through the API client, a write refused so is "briefly unavailable, retry", not "outcome unknown": it never left.
    const ws = await fakeWorkspace((_, res) => sendJson(res, 201, { data: { id: 'x' } }));
    cleanups.push(() => ws.close());
    const client = new ApiClient({ baseUrl: ws.api, token: () => 'pat_test', limiter });
    const write = await client.request({ method: 'POST', path: '/me', json: { name: 'x' } }).catch((e: unknown) => e);
    expect(write).toMatchObject({ status: 503, code: BRIEFLY_UNAVAILABLE });
    expect(ws.hits).toEqual([]);
  });

  it('says nothing of a store closed while a call is out (the process is shutting down), and lets a late call go', async () => {
    const store = new MemoryStore();
    const errors: unknown[] = [];
    const limiter = new RateLimiter({ limit: 10, windowMs: 60_000, store, key: 'budget:closing', onStoreError: (e) => errors.push(e) });
    // Answered once the store is closed, with headers showing two requests of others: the settle, and
    // the window's seq it reads, meet a closed store.
    await limiter.schedule(() => store.close(), { observation: () => ({ limit: 10, remaining: 7 }) });
    const sent: number[] = [];
    await limiter.schedule(async () => void sent.push(1));
    expect(sent).toEqual([1]);
    expect(errors).toEqual([]);
  });
});
