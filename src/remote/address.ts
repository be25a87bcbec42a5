// Where a request comes from, for the limits an anonymous caller meets (registrations per address).
// The socket's peer, unless that peer is a proxy the operator trusts: then the address that proxy
// appended to X-Forwarded-For (the right-most one not itself a trusted proxy). A header from anyone
// else is ignored: a caller could write any address there. Without trusted proxies configured, a
// deployment behind a proxy counts every caller under the proxy's address.
import { BlockList, isIP } from 'node:net';

/** The trusted proxies' addresses or networks (`10.0.0.5`, `10.0.0.0/8`, `fd00::/8`) as a BlockList. */
export function trustedProxyList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', bits] = entry.trim().split('/');
    const family = isIP(address);
    if (family === 0) throw new Error(`${entry} is not an IP address or network`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return list;
}

function isTrusted(list: BlockList | undefined, address: string): boolean {
  if (!list) return false;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)?.[1];
  const plain = mapped ?? address;
  const family = isIP(plain);
  return family !== 0 && list.check(plain, family === 4 ? 'ipv4' : 'ipv6');
}

/** The address a request comes from, as described above. */
export function clientAddress(peer: string | undefined, forwardedFor: string | string[] | undefined, trusted: BlockList | undefined): string {
  let address = peer ?? 'unknown';
  if (!isTrusted(trusted, address)) return address;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? ''))
    .split(',')
    .map((h) => h.trim())
    .filter((h) => isIP(h) !== 0);
  // Right to left: each trusted proxy vouches for the hop before it; the first untrusted one is the caller.
  for (let i = hops.length - 1; i >= 0; i--) {
    address = hops[i] as string;
    if (!isTrusted(trusted, address)) return address;
  }
  return address;
}

/**
 * The key an address is counted under: an IPv4 address whole; an IPv6 address by its /64, the
 * network one subscriber is given (counting single IPv6 addresses would let one caller use millions).
 */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)?.[1];
  if (mapped) return mapped;
  if (isIP(address) !== 6) return address;
  const [head = '', tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = address.includes('::') ? (tail ? tail.split(':') : []) : [];
  const groups = address.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
