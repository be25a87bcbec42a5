// The Redis store on Sentinel (REDIS_URL=redis-sentinel://...), on real processes: a master, a replica
// and three Sentinels. It opens the master the Sentinels name and follows the new one after a kill,
// failing at once (StoreUnavailableError) while there is none, and a rate limiter on it writes the
// settle of a call answered meanwhile once there is one; a Redis that is not the master, or a master
// short of replicas, refuses as unavailable, not as an error of the request; and a Sentinel URL that
// reaches nothing is refused without repeating its password.
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/api/limiter.js';
import { openStore } from '../../src/store/open.js';
import { RedisStore, RedisUnavailableError } from '../../src/store/redis.js';
import { isStoreUnavailable, StoreUnavailableError } from '../../src/store/state-store.js';
import { masterSwitches, type SentinelGroup, startSentinelGroup } from '../helpers/redis.js';
import { settleHeard } from '../helpers/settle-heard.js';

let group: SentinelGroup;
beforeAll(async () => {
  group = await startSentinelGroup();
}, 60_000);
afterAll(async () => {
  await group?.stop();
});

describe('the Redis store on Sentinel', () => {
  it('refuses writes on a replica as unavailable (READONLY), not as an error of the request', async () => {
    const replica = await RedisStore.connect(group.replica.url, { prefix: 'ro:' });
    try {
      const err = await replica.set('k', 'v').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreUnavailableError);
      expect((err as Error).message).toBe('Redis is unreachable (READONLY).');
      const take = await replica.takeSlot('w', { limit: 3, windowMs: 1_000, holdMs: 1_010, leaseMs: 5_000 }).catch((e: unknown) => e);
      expect(isStoreUnavailable(take)).toBe(true);
    } finally {
      await replica.close();
    }
  });

  it('fails clearly, without repeating the password, when no Sentinel answers', async () => {
    const err = await openStore({ redisUrl: 'redis-sentinel://app:s3cret-pass@127.0.0.1:1,127.0.0.1:2/wcm' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedisUnavailableError);
    expect((err as Error).message).toMatch(/^Could not connect to Redis at the master REDIS_URL's Sentinels name: /);
    expect((err as Error).message).not.toMatch(/s3cret/);
  });

  it("opens the master the Sentinels name, fails at once while there is none, and follows the new one after the master's death, keeping what it held and settling a slot answered meanwhile", async () => {
    const store = await openStore({ redisUrl: group.url, prefix: 'follow:' });
    try {
      const limits = { limit: 5, windowMs: 60_000, holdMs: 60_000, leaseMs: 60_000 };
      await store.takeSlot('budget', limits);
      // A call in flight across the switch, answered while there is no master; its settle, once written, is heard.
      const { windows, written } = settleHeard(store);
      const limiter = new RateLimiter({ limit: 5, windowMs: 60_000, store: windows, key: 'in-flight', onStoreError: () => {} });
      let answer!: () => void;
      let sent!: () => void;
      const going = new Promise<void>((resolve) => (sent = resolve));
      // Refused by the workspace (a 429): its slot goes back at once, so the next take shows whether it went.
      const inFlight = limiter.schedule(
        () => {
          sent();
          return new Promise<void>((resolve) => (answer = resolve));
        },
        { refused: () => true },
      );
      await going;
      await store.set('grant', 'kept');
      // On the replica before the kill (what it has is what survives): it applies writes in order, so
      // once it acknowledges a write of the test's made after (WAIT), it has this one too.
      const master = createClient({ url: group.master.url });
      await master.connect();
      await master.set('after-grant', '1');
      expect(await master.sendCommand(['WAIT', '1', '10000'])).toBe(1);
      await master.close();
      const switches = await masterSwitches(group);
      try {
        await group.master.kill();
        answer();
        await inFlight;
        // No master until the Sentinels name one: the store fails at once, as unavailable.
        const failure = await store.get('grant').catch((e: unknown) => e);
        expect(isStoreUnavailable(failure)).toBe(true);
        // Every Sentinel names the new master: the store, asking one, finds it and answers.
        await switches.all;
      } finally {
        await switches.close();
      }
      expect(await store.get('grant')).toBe('kept');
      // The window came across too: the slot taken before the kill still counts.
      expect(await store.takeSlot('budget', limits)).toMatchObject({ taken: true, count: 2 });
      // The answer of the call in flight was settled on the new master (written again until there was
      // one): its slot does not count as unanswered until its lease ends, minutes on.
      await written;
      expect(await store.takeSlot('in-flight', limits)).toMatchObject({ taken: true, count: 1 });

      // A master told to write only with a replica in reach (min-replicas-to-write), and now without
      // one, refuses as unavailable too.
      const admin = createClient({ url: group.replica.url });
      await admin.connect();
      await admin.sendCommand(['CONFIG', 'SET', 'min-replicas-to-write', '1']);
      await admin.close();
      const refused = await store.set('grant', 'again').catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(StoreUnavailableError);
      expect((refused as Error).message).toBe('Redis is unreachable (NOREPLICAS).');
    } finally {
      await store.close();
    }
  }, 60_000);
});
