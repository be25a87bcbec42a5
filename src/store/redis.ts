// The Redis store (REDIS_URL): any number of processes and replicas share it. Values are plain
// strings with Redis's own expiry; what must be atomic across replicas (compare-and-set, the sliding
// windows) runs as Lua scripts, which Redis executes whole, one at a time. The windows read the time
// from Redis (TIME), so replicas whose clocks disagree still agree on every window.
//
// Keys are prefixed (`wcm:` by default) so one Redis can serve other things. The keys of one window
// share a hash tag (`{...}`), so a script touches a single slot and the layout works on Redis Cluster.
// Needs Redis 6.2 or later (GETDEL).
import { createHash } from 'node:crypto';
import { createClient, ErrorReply } from 'redis';
import { type SetOptions, type StateStore, StoreUnavailableError } from './state-store.js';
import { type SettleOptions, type SlidingWindowStore, slotNamer, type WindowLimits, type WindowTake } from './windows.js';

export interface RedisStoreOptions {
  /** Put before every key. Default `wcm:`. */
  prefix?: string;
  /** Connection problems after the first connect (the client reconnects by itself meanwhile). */
  onError?: (err: Error) => void;
  /** Give up on the first connection after this long. Default 5 s. */
  connectTimeoutMs?: number;
}

export class RedisUnavailableError extends Error {
  override name = 'RedisUnavailableError';
}

type Client = ReturnType<typeof createClient>;

interface Script {
  source: string;
  sha: string;
}

function script(source: string): Script {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

// Redis before 7 replicates a script's effects only when asked: TIME is not deterministic.
const NOW = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
`;

// KEYS: value. ARGV: expected present (1/0), expected, new present (1/0), new value, ttl ms (0: none).
const COMPARE_AND_SET = script(`
local cur = redis.call('GET', KEYS[1])
if ARGV[1] == '1' then
  if cur ~= ARGV[2] then return 0 end
elseif cur then
  return 0
end
if ARGV[3] == '1' then
  if tonumber(ARGV[5]) > 0 then redis.call('SET', KEYS[1], ARGV[4], 'PX', ARGV[5]) else redis.call('SET', KEYS[1], ARGV[4]) end
else
  redis.call('DEL', KEYS[1])
end
return 1
`);

// KEYS: settled slots (score: end), open slots (score: lease end), meta (seq), pause (until).
// ARGV: limit, hold ms, lease ms, slot id, window ms. Returns {1, count, seq} or {0, wait ms, paused 1/0}.
const TAKE = script(`${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local pausedUntil = tonumber(redis.call('GET', KEYS[4]) or '0')
if pausedUntil > now then return {0, math.ceil(pausedUntil - now), 1} end
local limit = tonumber(ARGV[1])
local hold = tonumber(ARGV[2])
local lease = tonumber(ARGV[3])
local settled = redis.call('ZCARD', KEYS[1])
local n = settled + redis.call('ZCARD', KEYS[2])
if n < limit then
  redis.call('ZADD', KEYS[2], now + lease, ARGV[4])
  local seq = redis.call('HINCRBY', KEYS[3], 'seq', 1)
  local ttl = math.ceil(lease + hold)
  redis.call('PEXPIRE', KEYS[2], ttl)
  redis.call('PEXPIRE', KEYS[3], ttl)
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
local found = redis.call('ZREM', KEYS[2], ARGV[1])
if ARGV[2] ~= '1' then
  local hold = tonumber(ARGV[3])
  redis.call('ZADD', KEYS[1], now + hold, ARGV[1])
  local ttl = math.ceil(tonumber(ARGV[4]) + hold)
  redis.call('PEXPIRE', KEYS[1], ttl)
  redis.call('PEXPIRE', KEYS[3], ttl)
end
return tonumber(redis.call('HGET', KEYS[3], 'seq') or '0')
`);

// KEYS: pause. ARGV: for ms.
const PAUSE = script(`${NOW}
local forMs = tonumber(ARGV[1])
local untilMs = now + forMs
if untilMs > tonumber(redis.call('GET', KEYS[1]) or '0') then
  redis.call('SET', KEYS[1], string.format('%.3f', untilMs), 'PX', math.max(1, math.ceil(forMs)))
end
return 1
`);

export class RedisStore implements StateStore, SlidingWindowStore {
  readonly #client: Client;
  readonly #prefix: string;
  readonly #slotName = slotNamer();

  private constructor(client: Client, prefix: string) {
    this.#client = client;
    this.#prefix = prefix;
  }

  /**
   * Connect to `url` (redis:// or rediss://). Fails with RedisUnavailableError when the first
   * connection does not succeed in time; afterwards the client reconnects by itself, and commands
   * made while it is away fail at once (no offline queue) rather than wait.
   */
  static async connect(url: string, opts: RedisStoreOptions = {}): Promise<RedisStore> {
    let connected = false;
    let client: Client;
    try {
      client = createClient({
        url,
        disableOfflineQueue: true,
        socket: {
          connectTimeout: opts.connectTimeoutMs ?? 5_000,
          // Before the first connection: a few tries, then the error. After: keep trying, backing off.
          reconnectStrategy: (retries, cause) => (connected ? Math.min(2_000, 50 * 2 ** retries) : retries < 3 ? 100 * (retries + 1) : cause),
        },
      });
    } catch (err) {
      // The URL itself may hold a password: never repeat it.
      throw new RedisUnavailableError(`REDIS_URL is not a usable Redis URL (redis://[user:password@]host:port[/db]): ${errorCode(err)}.`, { cause: err });
    }
    client.on('error', (err: Error) => {
      if (connected) opts.onError?.(err);
    });
    try {
      await client.connect();
    } catch (err) {
      client.destroy();
      throw new RedisUnavailableError(`Could not connect to Redis at REDIS_URL: ${errorCode(err)}.`, { cause: err });
    }
    connected = true;
    return new RedisStore(client, opts.prefix ?? 'wcm:');
  }

  /**
   * One command. Redis's own error replies pass as they are; anything else (the client offline,
   * the socket closed mid-command) is the store being unreachable: StoreUnavailableError, at once,
   * since there is no offline queue to wait in.
   */
  async #send(args: string[]): Promise<unknown> {
    try {
      return await this.#client.sendCommand(args);
    } catch (err) {
      if (err instanceof ErrorReply) throw err;
      throw new StoreUnavailableError(`Redis is unreachable (${errorCode(err)}).`, { cause: err });
    }
  }

  async #eval(s: Script, keys: string[], args: Array<string | number>): Promise<unknown> {
    const rest = [String(keys.length), ...keys, ...args.map(String)];
    try {
      return await this.#send(['EVALSHA', s.sha, ...rest]);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return await this.#send(['EVAL', s.source, ...rest]);
    }
  }

  #key(key: string): string {
    return this.#prefix + key;
  }

  #windowKeys(key: string): string[] {
    const tag = `${this.#prefix}win:{${key}}`;
    return [`${tag}:settled`, `${tag}:open`, `${tag}:meta`, `${tag}:pause`];
  }

  async get(key: string): Promise<string | undefined> {
    const v = await this.#send(['GET', this.#key(key)]);
    return typeof v === 'string' ? v : undefined;
  }

  async set(key: string, value: string, opts?: SetOptions): Promise<void> {
    await this.#send(['SET', this.#key(key), value, ...ttlArgs(opts)]);
  }

  async setIfAbsent(key: string, value: string, opts?: SetOptions): Promise<boolean> {
    const r = await this.#send(['SET', this.#key(key), value, 'NX', ...ttlArgs(opts)]);
    return String(r) === 'OK';
  }

  async take(key: string): Promise<string | undefined> {
    const v = await this.#send(['GETDEL', this.#key(key)]);
    return typeof v === 'string' ? v : undefined;
  }

  async compareAndSet(key: string, expected: string | undefined, value: string | undefined, opts?: SetOptions): Promise<boolean> {
    const ttl = opts?.ttlMs !== undefined ? Math.max(1, Math.ceil(opts.ttlMs)) : 0;
    const r = await this.#eval(
      COMPARE_AND_SET,
      [this.#key(key)],
      [expected === undefined ? 0 : 1, expected ?? '', value === undefined ? 0 : 1, value ?? '', ttl],
    );
    return Number(r) === 1;
  }

  async delete(key: string): Promise<void> {
    await this.#send(['DEL', this.#key(key)]);
  }

  async takeSlot(key: string, limits: WindowLimits): Promise<WindowTake> {
    const id = this.#slotName();
    const r = (await this.#eval(TAKE, this.#windowKeys(key), [limits.limit, limits.holdMs, limits.leaseMs, id, limits.windowMs])) as unknown[];
    const [ok, a, b] = r.map(Number) as [number, number, number];
    return ok === 1 ? { taken: true, slot: id, count: a, seq: b } : { taken: false, waitMs: a, paused: b === 1 };
  }

  async settleSlot(key: string, slot: string, opts: SettleOptions): Promise<{ seq: number }> {
    const r = await this.#eval(SETTLE, this.#windowKeys(key), [slot, opts.refused ? 1 : 0, opts.holdMs, opts.leaseMs]);
    return { seq: Number(r) };
  }

  async pauseWindow(key: string, forMs: number): Promise<void> {
    const [, , , pause] = this.#windowKeys(key);
    await this.#eval(PAUSE, [pause as string], [forMs]);
  }

  /**
   * Append one entry to the stream `key`, kept to about `maxLen` entries (XADD MAXLEN ~: Redis trims
   * whole nodes, cheaply): an append-only log other programs read (the audit trail).
   */
  async appendToStream(key: string, fields: Record<string, string>, maxLen: number): Promise<void> {
    await this.#client.sendCommand(['XADD', this.#key(key), 'MAXLEN', '~', String(maxLen), '*', ...Object.entries(fields).flat()]);
  }

  async close(): Promise<void> {
    if (!this.#client.isOpen) return;
    await this.#client.close().catch(() => this.#client.destroy());
  }
}

function ttlArgs(opts?: SetOptions): string[] {
  return opts?.ttlMs !== undefined ? ['PX', String(Math.max(1, Math.ceil(opts.ttlMs)))] : [];
}

/** What went wrong, without the message (which may quote the URL and its password). */
function errorCode(err: unknown): string {
  const e = err as { code?: unknown; name?: unknown; errors?: unknown[]; socketError?: unknown; originalError?: unknown } | undefined;
  if (typeof e?.code === 'string') return e.code;
  // node-redis gives up with a ReconnectStrategyError holding the socket's own error.
  for (const inner of [e?.socketError, e?.originalError]) if (inner && inner !== err) return errorCode(inner);
  // A connection to a name with several addresses fails with an AggregateError of their errors.
  const inner = Array.isArray(e?.errors) ? (e.errors[0] as { code?: unknown } | undefined)?.code : undefined;
  if (typeof inner === 'string') return inner;
  return typeof e?.name === 'string' ? e.name : 'unknown error';
}
