// REDIS_URL naming Sentinels and the master they watch (docs/deploying.md, "Redis with Sentinel"):
// redis-sentinel://[user:password@]host:port[,host:port...]/name[/db]. WHATWG URLs hold one host only, hence a
// parser of its own; it loads nothing, so the configuration can use it on the start-up path.

interface RedisSentinelAddress {
  name: string;
  sentinels: { host: string; port: number }[];
  username?: string;
  password?: string;
  database?: number;
}

/** Does `raw` name Sentinels rather than one Redis? (Then parseRedisSentinelUrl must accept it.) */
export function isRedisSentinelUrl(raw: string): boolean {
  return /^redis-sentinel:\/\//i.test(raw);
}

/** The address `raw` names, or undefined when it is not a usable redis-sentinel:// URL. */
export function parseRedisSentinelUrl(raw: string): RedisSentinelAddress | undefined {
  const m = /^redis-sentinel:\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^@/?#]+)\/([A-Za-z0-9._-]+)(?:\/(\d{1,5}))?\/?$/i.exec(raw);
  const [, user, pass, hosts = '', name = '', db] = m ?? [];
  const sentinels = hosts.split(',').map((part) => {
    const [, v6, host = v6 ?? '', port] = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(part.trim()) ?? [];
    return { host, port: Number(port) };
  });
  if (!m || !sentinels.every(({ port }) => port >= 1 && port <= 65_535)) return undefined;
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
