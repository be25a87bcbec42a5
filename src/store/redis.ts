// The Redis store (REDIS_URL), shared by processes and replicas. Compare-and-set and the sliding windows (docs/architecture.md,
// "Rate budget") are Lua scripts, which Redis runs whole, one at a time; they read the time from Redis (TIME), so replicas whose
// clocks disagree still agree on every window. Keys are prefixed (`wcm:` by default) so one Redis can serve other things; the
// keys of a window share a hash tag (`{...}`), so a script touches one slot, as Redis Cluster requires. Needs Redis 6.2 or later
// (GETDEL). With Sentinel (docs/deploying.md, "Redis with Sentinel") it follows the master the Sentinels name.
import { createHash } from 'node:crypto';
import { createClient, createSentinel, ErrorReply } from 'redis';
import { parseRedisSentinelUrl } from './redis-sentinel-url.js';
import { type SetOptions, type StateStore, StoreClosedError, StoreUnavailableError } from './state-store.js';
import { type SettleOptions, type SlidingWindowStore, slotNamer, type WindowLimits, type WindowTake } from './windows.js';

export class RedisUnavailableError extends Error {
  override name = 'RedisUnavailableError';
}

/** What the store needs of its client, of one Redis or of the master the Sentinels name. */
interface Client {
  readonly isOpen: boolean;
  connect(): Promise<unknown>;
  close(): Promise<unknown>;
  destroy(): unknown;
  on(event: 'error', listener: (err: unknown) => void): unknown;
}

/** Refusals of a Redis not (yet) the master able to write (a replica, loading, cut off): unavailable, not wrong; nothing was executed. */
const NOT_SERVING = /^(READONLY|LOADING|MASTERDOWN|NOREPLICAS|TRYAGAIN|CLUSTERDOWN)\b/;

const script = (source: string) => ({ source, sha: createHash('sha1').update(source).digest('hex') });

// Redis before 7 replicates a script's effects only when asked: TIME is not deterministic.
const NOW = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
`;

// KEYS: value. ARGV: expected present (1/0), expected, new present (1/0), new value, then PX and its ttl ms if any.
const COMPARE_AND_SET = script(`
if redis.call('GET', KEYS[1]) ~= (ARGV[1] == '1' and ARGV[2]) then return 0 end
if ARGV[3] == '1' then redis.call('SET', KEYS[1], ARGV[4], unpack(ARGV, 5)) end
if ARGV[3] ~= '1' then redis.call('DEL', KEYS[1]) end
return 1
`);

// KEYS: settled slots (score: end), open slots (score: lease end), meta (seq), pause (until).
// ARGV: limit, hold ms, lease ms, slot id, window ms. Returns {1, count, seq} or {0, wait ms, paused 1/0}.
const TAKE = script(`${NOW}
for i = 1, 2 do redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now) end
local pausedUntil = tonumber(redis.call('GET', KEYS[4]) or '0')
if pausedUntil > now then return {0, math.ceil(pausedUntil - now), 1} end
local limit, hold, lease = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local settled = redis.call('ZCARD', KEYS[1])
local n = settled + redis.call('ZCARD', KEYS[2])
if n < limit then
  redis.call('ZADD', KEYS[2], now + lease, ARGV[4])
  local seq = redis.call('HINCRBY', KEYS[3], 'seq', 1)
  for i = 2, 3 do redis.call('PEXPIRE', KEYS[i], math.ceil(lease + hold)) end
  local recent = redis.call('ZCOUNT', KEYS[1], '(' .. string.format('%.3f', now + hold - tonumber(ARGV[5])), '+inf')
  return {1, n + 1 - settled + recent, seq}
end
local need = n - math.max(limit, 0) + 1
if settled >= need then
  local e = redis.call('ZRANGE', KEYS[1], need - 1, need - 1, 'WITHSCORES')
  return {0, math.max(1, math.ceil(tonumber(e[2]) - now)), 0}
end
return {0, math.ceil(hold), 0}
`);

// KEYS: as TAKE. ARGV: slot id, refused (1/0), hold ms, lease ms. Returns seq.
const SETTLE = script(`${NOW}
redis.call('ZREM', KEYS[2], ARGV[1])
if ARGV[2] ~= '1' then
  local hold = tonumber(ARGV[3])
  redis.call('ZADD', KEYS[1], now + hold, ARGV[1])
  for _, k in ipairs({KEYS[1], KEYS[3]}) do redis.call('PEXPIRE', k, math.ceil(tonumber(ARGV[4]) + hold)) end
end
return tonumber(redis.call('HGET', KEYS[3], 'seq') or '0')
`);

// KEYS: pause. ARGV: for ms.
const PAUSE = script(`${NOW}
local untilMs = now + tonumber(ARGV[1])
if untilMs > tonumber(redis.call('GET', KEYS[1]) or '0') then
  redis.call('SET', KEYS[1], string.format('%.3f', untilMs), 'PX', math.max(1, math.ceil(tonumber(ARGV[1]))))
end
`);

export class RedisStore implements StateStore, SlidingWindowStore {
  readonly #client: Client;
  readonly #sendCommand: (args: string[]) => Promise<unknown>;
  readonly #prefix: string;
  readonly #slotName = slotNamer();
  #closed = false;

  private constructor(client: Client, send: (args: string[]) => Promise<unknown>, prefix: string) {
    this.#client = client;
    this.#sendCommand = send;
    this.#prefix = prefix;
  }

  /**
   * Connect to `url`: redis://, rediss:// or redis-sentinel://, keys put after `prefix`. Rejects with RedisUnavailableError unless
   * the first connection succeeds in time (`connectTimeoutMs` a try, default 5 s); then the client reconnects (or follows a new
   * master) by itself, telling `onError` of the problems, and commands fail at once while it is away.
   */
  static async connect(url: string, opts: { prefix?: string; onError?: (err: Error) => void; connectTimeoutMs?: number } = {}): Promise<RedisStore> {
    const sentinel = parseRedisSentinelUrl(url);
    if (sentinel === undefined && url.toLowerCase().startsWith('redis-sentinel:')) {
      throw new RedisUnavailableError('REDIS_URL is not a usable Sentinel URL (redis-sentinel://[user:password@]host:port[,host:port...]/name[/db]).');
    }
    let connected = false;
    const socket = {
      connectTimeout: opts.connectTimeoutMs ?? 5_000,
      // Before the first connection: a few tries, then the error. After: keep trying, backing off.
      reconnectStrategy: (retries: number, cause: Error) => (connected ? Math.min(2_000, 50 * 2 ** retries) : retries < 3 ? 100 * (retries + 1) : cause),
    };
    let store: RedisStore;
    try {
      if (sentinel) {
        const { name, sentinels, ...auth } = sentinel;
        const group = createSentinel({
          name,
          sentinelRootNodes: sentinels,
          // A command that failed is never sent again: the old master may have applied it (a slot taken, a code consumed). The
          // next one asks the Sentinels, failing at once until they name a master; the first connection gives up at once too.
          maxCommandRediscovers: 0,
          // The switch is heard from the Sentinels' announcements; a look every 10 s as well, for one missed while
          // their connection was down (the old master, back as a replica, would refuse commands READONLY until then).
          scanInterval: 10_000,
          nodeClientOptions: { disableOfflineQueue: true, ...auth, socket },
          // A command made while the master is away asks the Sentinels in turn: none may hold it long.
          sentinelClientOptions: { socket: { connectTimeout: Math.min(socket.connectTimeout, 2_000) } },
        });
        store = new RedisStore(group, (args) => group.sendCommand(false, args), opts.prefix ?? 'wcm:');
      } else {
        const one = createClient({ url, disableOfflineQueue: true, socket });
        store = new RedisStore(one, (args) => one.sendCommand(args), opts.prefix ?? 'wcm:');
      }
    } catch (err) {
      // The URL itself may hold a password: never repeat it.
      throw new RedisUnavailableError(`REDIS_URL is not a usable Redis URL (redis://[user:password@]host:port[/db]): ${errorCode(err)}.`, { cause: err });
    }
    // node-redis reports some of them as bare strings.
    store.#client.on('error', (err: unknown) => {
      if (connected) opts.onError?.(err instanceof Error ? err : new Error(String(err)));
    });
    try {
      await store.#client.connect();
    } catch (err) {
      destroy(store.#client);
      const where = sentinel ? "the master REDIS_URL's Sentinels name" : 'REDIS_URL';
      throw new RedisUnavailableError(`Could not connect to Redis at ${where}: ${errorCode(err)}.`, { cause: err });
    }
    connected = true;
    return store;
  }

  /** Redis's own error replies pass as they are, but NOT_SERVING; any other failure (offline, no master yet) is StoreUnavailableError, or StoreClosedError once closed. */
  async #send(args: string[]): Promise<unknown> {
    try {
      return await this.#sendCommand(args);
    } catch (err) {
      if (this.#closed) throw new StoreClosedError('the Redis store is closed', { cause: err });
      if (err instanceof ErrorReply && !NOT_SERVING.test(err.message)) throw err;
      throw new StoreUnavailableError(`Redis is unreachable (${errorCode(err)}).`, { cause: err });
    }
  }

  async #eval(s: ReturnType<typeof script>, keys: string[], args: Array<string | number>): Promise<unknown> {
    const rest = [String(keys.length), ...keys, ...args.map(String)];
    return this.#send(['EVALSHA', s.sha, ...rest]).catch((err: unknown) => {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return this.#send(['EVAL', s.source, ...rest]);
    });
  }

  #windowKeys(key: string): string[] {
    const tag = `${this.#prefix}win:{${key}}`;
    return [`${tag}:settled`, `${tag}:open`, `${tag}:meta`, `${tag}:pause`];
  }

  async get(key: string): Promise<string | undefined> {
    const v = await this.#send(['GET', this.#prefix + key]);
    return typeof v === 'string' ? v : undefined;
  }

  async set(key: string, value: string, opts?: SetOptions): Promise<void> {
    await this.#send(['SET', this.#prefix + key, value, ...ttlArgs(opts)]);
  }

  async setIfAbsent(key: string, value: string, opts?: SetOptions): Promise<boolean> {
    return String(await this.#send(['SET', this.#prefix + key, value, 'NX', ...ttlArgs(opts)])) === 'OK';
  }

  async take(key: string): Promise<string | undefined> {
    const v = await this.#send(['GETDEL', this.#prefix + key]);
    return typeof v === 'string' ? v : undefined;
  }

  async compareAndSet(key: string, expected: string | undefined, value: string | undefined, opts?: SetOptions): Promise<boolean> {
    const args = [expected === undefined ? 0 : 1, expected ?? '', value === undefined ? 0 : 1, value ?? '', ...ttlArgs(opts)];
    return Number(await this.#eval(COMPARE_AND_SET, [this.#prefix + key], args)) === 1;
  }

  async delete(key: string): Promise<void> {
    await this.#send(['DEL', this.#prefix + key]);
  }

  async takeSlot(key: string, limits: WindowLimits): Promise<WindowTake> {
    const id = this.#slotName();
    const r = await this.#eval(TAKE, this.#windowKeys(key), [limits.limit, limits.holdMs, limits.leaseMs, id, limits.windowMs]);
    const [ok, a, b] = (r as unknown[]).map(Number) as [number, number, number];
    return ok === 1 ? { taken: true, slot: id, count: a, seq: b } : { taken: false, waitMs: a, paused: b === 1 };
  }

  async settleSlot(key: string, slot: string, opts: SettleOptions): Promise<{ seq: number }> {
    return { seq: Number(await this.#eval(SETTLE, this.#windowKeys(key), [slot, opts.refused ? 1 : 0, opts.holdMs, opts.leaseMs])) };
  }

  async pauseWindow(key: string, forMs: number): Promise<void> {
    await this.#eval(PAUSE, this.#windowKeys(key).slice(3), [forMs]);
  }

  /** Append to the stream `key` (the audit trail), kept to about `maxLen` entries (XADD MAXLEN ~: Redis trims whole nodes, cheaply). */
  async appendToStream(key: string, fields: Record<string, string>, maxLen: number): Promise<void> {
    await this.#send(['XADD', this.#prefix + key, 'MAXLEN', '~', String(maxLen), '*', ...Object.entries(fields).flat()]);
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#client.isOpen) await this.#client.close().catch(() => destroy(this.#client));
  }
}

/** Ends `client` whatever its state: a Sentinel client whose first connection failed has destroyed itself (its destroy rejects). */
function destroy(client: Client): void {
  Promise.resolve(client.destroy()).catch(() => {});
}

function ttlArgs(opts?: SetOptions): string[] {
  return opts?.ttlMs !== undefined ? ['PX', String(Math.max(1, Math.ceil(opts.ttlMs)))] : [];
}

const SENTINEL_FAILURES = new Set(['no valid master node', 'None of the sentinels are available', 'Master Node Not Enumerated']);

/** What went wrong, without the message (which may quote the URL and its password). */
function errorCode(err: unknown): string {
  const e = err as { code?: unknown; name?: unknown; errors?: unknown; socketError?: unknown; originalError?: unknown } | undefined;
  // A connection to a name with several addresses fails with an AggregateError of their errors.
  const code = typeof e?.code === 'string' ? e.code : Array.isArray(e?.errors) ? (e.errors[0] as { code?: unknown } | undefined)?.code : undefined;
  if (typeof code === 'string') return code;
  // A refusal's first word is its code (READONLY, LOADING...); the Sentinel client's failures while no
  // master is named or no Sentinel answers have fixed words, which say more than their class.
  if (err instanceof ErrorReply) return err.message.split(' ', 1)[0] as string;
  if (err instanceof Error && SENTINEL_FAILURES.has(err.message)) return err.message;
  // node-redis gives up with a ReconnectStrategyError holding the socket's own error.
  for (const inner of [e?.socketError, e?.originalError]) if (inner && inner !== err) return errorCode(inner);
  return typeof e?.name === 'string' ? e.name : 'unknown error';
}
