// REDIS_URL for a Redis run with Sentinel: redis-sentinel://[user:password@]host:port[,host:port...]/name[/db].
// The hosts are Sentinels (any of them will do; listing three survives one down), `name` the master
// they watch (`sentinel monitor <name> ...`), `db` the database number. The credentials are those of
// the master and its replicas; the Sentinels are asked without any. WHATWG URLs hold one host only,
// hence a parser of its own; it loads nothing, so the configuration can use it on the start-up path.

interface RedisSentinelAddress {
  name: string;
  sentinels: { host: string; port: number }[];
  username?: string;
  password?: string;
  database?: number;
}

const SCHEME = 'redis-sentinel://';

/** Does `raw` name Sentinels rather than one Redis? (Then parseRedisSentinelUrl must accept it.) */
export function isRedisSentinelUrl(raw: string): boolean {
  return raw.slice(0, SCHEME.length).toLowerCase() === SCHEME;
}

/** The address `raw` names, or undefined when it is not a usable redis-sentinel:// URL. */
export function parseRedisSentinelUrl(raw: string): RedisSentinelAddress | undefined {
  if (!isRedisSentinelUrl(raw)) return undefined;
  const m = /^(?:([^:@/]*)(?::([^@/]*))?@)?([^@/?#]+)\/([A-Za-z0-9._-]+)(?:\/(\d{1,5}))?\/?$/.exec(raw.slice(SCHEME.length));
  if (!m) return undefined;
  const [, user, pass, hosts = '', name = '', db] = m;
  const sentinels: RedisSentinelAddress['sentinels'] = [];
  for (const part of hosts.split(',')) {
    const hp = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(part.trim());
    const port = Number(hp?.[3]);
    if (!hp || port < 1 || port > 65_535) return undefined;
    sentinels.push({ host: (hp[1] ?? hp[2]) as string, port });
  }
  try {
    return {
      name,
      sentinels,
      ...(user ? { username: decodeURIComponent(user) } : {}),
      ...(pass ? { password: decodeURIComponent(pass) } : {}),
      ...(db !== undefined ? { database: Number(db) } : {}),
    };
  } catch {
    return undefined; // a malformed %-escape in the credentials
  }
}
