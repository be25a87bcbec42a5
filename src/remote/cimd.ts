// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, preferred by MCP
// 2026-07-28): an MCP client names itself by an https URL and this server fetches the document there.
// Fetching a URL an anonymous caller chose is a server-side request forgery risk, so: https only, a
// path, no credentials; every address the name resolves to must be public (checked when the socket
// connects, so a DNS answer cannot change between check and use); no redirects; 5 s; 64 KiB.
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Agent, type Dispatcher, request } from 'undici';
import { isLoopbackUrl } from '../auth/secure.js';
import { BodyTooLarge, readBody } from '../net/http-io.js';
import { refuseRedirect } from './redirects.js';

const MAX_BYTES = 64 * 1024;
const TIMEOUT_MS = 5_000;
/** A document that could not be had is not fetched again for this long: every request naming it is refused from memory. */
const FAILURE_TTL_MS = 60_000;
/** Documents fetched at once, across every client_id: an anonymous caller cannot make a replica open many. */
export const MAX_CONCURRENT_FETCHES = 8;
/** Documents (good and failed) remembered at once. */
const MAX_REMEMBERED = 1000;

export class ClientMetadataError extends Error {
  override name = 'ClientMetadataError';
}

/** Too many documents are being fetched right now: nothing is known about this one, try again shortly. */
export class ClientMetadataBusyError extends Error {
  override name = 'ClientMetadataBusyError';
}

/** Non-public address ranges: loopback, private, link-local, carrier NAT, multicast, reserved, documentation. */
const NON_PUBLIC = (() => {
  const b = new BlockList();
  for (const [net, bits] of [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.0.2.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ] as const) {
    b.addSubnet(net, bits, 'ipv4');
  }
  for (const [net, bits] of [
    ['::', 128],
    ['::1', 128],
    ['64:ff9b::', 96],
    ['100::', 64],
    ['2001:db8::', 32],
    ['fc00::', 7],
    ['fe80::', 10],
    ['ff00::', 8],
  ] as const) {
    b.addSubnet(net, bits, 'ipv6');
  }
  return b;
})();

/** Is `address` (an IP literal) somewhere a metadata document may not be fetched from? */
export function isNonPublicAddress(address: string): boolean {
  const plain = address.replace(/^\[|\]$/g, '');
  // An IPv4 address written as IPv6 (::ffff:10.0.0.1) is the IPv4 address.
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(plain);
  if (mapped) return NON_PUBLIC.check(mapped[1] as string, 'ipv4');
  const family = isIP(plain);
  if (family === 4) return NON_PUBLIC.check(plain, 'ipv4');
  if (family === 6) return NON_PUBLIC.check(plain, 'ipv6') || /^::ffff:/i.test(plain);
  return true;
}

/** Does this client_id name a metadata document (rather than a registration of ours)? */
export function isMetadataDocumentId(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

/** Why `clientId` cannot be fetched, or undefined. `allowLoopback`: plain http on loopback (tests, trials). */
export function refuseMetadataUrl(clientId: string, allowLoopback: boolean): string | undefined {
  let u: URL;
  try {
    u = new URL(clientId);
  } catch {
    return 'the client_id is not a URL';
  }
  const loopbackTrial = allowLoopback && isLoopbackUrl(u);
  if (u.protocol !== 'https:' && !(loopbackTrial && u.protocol === 'http:')) return 'a client_id URL must use https';
  if (u.pathname === '/' || u.pathname === '') return 'a client_id URL must have a path';
  if (u.username || u.password || u.hash || clientId.includes('#')) return 'a client_id URL must not carry credentials or a fragment';
  if (!loopbackTrial && (isLoopbackUrl(u) || (isIP(u.hostname.replace(/^\[|\]$/g, '')) && isNonPublicAddress(u.hostname)))) {
    return 'a client_id URL must name a public host';
  }
  return undefined;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** How names are resolved: dns.lookup (a test stands in a name that resolves to a private address). */
type Resolve = (hostname: string, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;
const systemResolve: Resolve = (hostname, callback) => dnsLookup(hostname, { all: true }, callback);

/** dns.lookup that fails when any address is not public: the socket is never opened to it. */
function publicOnlyLookup(allowLoopback: boolean, resolve: Resolve): LookupFunction {
  return ((hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback) => {
    resolve(hostname, (err, addresses) => {
      if (err) return callback(err, []);
      const list = addresses as LookupAddress[];
      const bad = list.find((a) => isNonPublicAddress(a.address) && !(allowLoopback && /^(127\.|::1$)/.test(a.address)));
      if (bad || list.length === 0) {
        const e = Object.assign(new Error(`${hostname} resolves to a non-public address`), { code: 'ENOTPUBLIC' });
        return callback(e, []);
      }
      if ((options as LookupAllOptions).all) return callback(null, list);
      const first = list[0] as LookupAddress;
      return callback(null, first.address, first.family);
    });
  }) as LookupFunction;
}

interface ClientMetadata {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  client_uri?: string;
}

export interface MetadataFetcher {
  fetch(clientId: string): Promise<ClientMetadata>;
  close(): Promise<void>;
}

/**
 * Fetch and check documents; good ones are kept for their Cache-Control max-age (1 to 60 minutes,
 * default 5), failures for FAILURE_TTL_MS. One fetch per URL at a time (concurrent requests share it),
 * at most MAX_CONCURRENT_FETCHES at once.
 */
export function createMetadataFetcher(
  opts: { allowLoopback?: boolean; now?: () => number; resolve?: Resolve; maxConcurrent?: number; failureTtlMs?: number } = {},
): MetadataFetcher {
  const allowLoopback = opts.allowLoopback ?? false;
  const now = opts.now ?? Date.now;
  const agent = new Agent({ connect: { lookup: publicOnlyLookup(allowLoopback, opts.resolve ?? systemResolve), timeout: TIMEOUT_MS } });
  const cache = new Map<string, { doc: ClientMetadata; until: number }>();
  const failures = new Map<string, { error: ClientMetadataError; until: number }>();
  const inFlight = new Map<string, Promise<ClientMetadata>>();
  const maxConcurrent = opts.maxConcurrent ?? MAX_CONCURRENT_FETCHES;
  const failureTtlMs = opts.failureTtlMs ?? FAILURE_TTL_MS;

  async function load(clientId: string): Promise<{ doc: ClientMetadata; maxAgeS: number }> {
    const why = refuseMetadataUrl(clientId, allowLoopback);
    if (why) throw new ClientMetadataError(why);
    let res: Dispatcher.ResponseData;
    try {
      // undici's request never follows a redirect: a 3xx is refused below like any other status.
      res = await request(clientId, { dispatcher: agent, method: 'GET', headers: { accept: 'application/json' }, signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (e) {
      throw new ClientMetadataError(`the client metadata document could not be fetched (${e instanceof Error ? e.message : String(e)})`);
    }
    let bytes: Buffer;
    try {
      if (res.statusCode !== 200) throw new ClientMetadataError(`the client metadata document answered HTTP ${res.statusCode}`);
      bytes = await readBody(res.body as typeof res.body & AsyncIterable<Buffer>, MAX_BYTES);
    } catch (e) {
      if (e instanceof BodyTooLarge) {
        res.body.destroy();
        throw new ClientMetadataError(`the client metadata document is over ${MAX_BYTES} bytes`);
      }
      // The rest of a refused answer is read and dropped, so its connection can serve the next fetch.
      await res.body.dump().catch(() => {});
      throw e;
    }
    let doc: unknown;
    try {
      doc = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw new ClientMetadataError('the client metadata document is not JSON');
    }
    const cacheControl = String(res.headers['cache-control'] ?? '');
    const maxAge = /max-age=(\d+)/.exec(cacheControl);
    const maxAgeS = /no-store|no-cache/.test(cacheControl) ? 0 : maxAge ? Number(maxAge[1]) : 300;
    return { doc: checkDocument(clientId, doc), maxAgeS };
  }

  return {
    async fetch(clientId) {
      const hit = cache.get(clientId);
      if (hit && hit.until > now()) return hit.doc;
      const failed = failures.get(clientId);
      if (failed && failed.until > now()) throw failed.error;
      const pending = inFlight.get(clientId);
      if (pending) return pending;
      if (inFlight.size >= maxConcurrent) {
        throw new ClientMetadataBusyError('Too many client metadata documents are being fetched right now: try again in a few seconds.');
      }
      const p = load(clientId).then(
        ({ doc, maxAgeS }) => {
          if (cache.size >= MAX_REMEMBERED) cache.clear();
          cache.set(clientId, { doc, until: now() + Math.min(3600, Math.max(60, maxAgeS)) * 1000 });
          failures.delete(clientId);
          return doc;
        },
        (e: unknown) => {
          // Remembered: a caller naming a failing document again and again costs one fetch a minute.
          if (e instanceof ClientMetadataError) {
            if (failures.size >= MAX_REMEMBERED) failures.clear();
            failures.set(clientId, { error: e, until: now() + failureTtlMs });
          }
          throw e;
        },
      );
      inFlight.set(clientId, p);
      try {
        return await p;
      } finally {
        inFlight.delete(clientId);
      }
    },
    close: () => agent.close(),
  };
}

/** The document's rules: its client_id is its own URL exactly, a name, redirects we accept, a public client. */
export function checkDocument(clientId: string, doc: unknown): ClientMetadata {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw new ClientMetadataError('the client metadata document is not a JSON object');
  const d = doc as Record<string, unknown>;
  if (d.client_id !== clientId) throw new ClientMetadataError("the document's client_id differs from its URL");
  if (typeof d.client_name !== 'string' || d.client_name.trim() === '') throw new ClientMetadataError('the document has no client_name');
  const uris = d.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > 20) throw new ClientMetadataError('the document must list 1 to 20 redirect_uris');
  for (const u of uris) {
    const why = refuseRedirect(u);
    if (why) throw new ClientMetadataError(why);
  }
  const method = d.token_endpoint_auth_method ?? 'none';
  if (method !== 'none') throw new ClientMetadataError('only public clients (token_endpoint_auth_method "none") are accepted');
  return {
    client_id: clientId,
    client_name: d.client_name.slice(0, 200),
    redirect_uris: uris as string[],
    ...(typeof d.client_uri === 'string' ? { client_uri: d.client_uri } : {}),
  };
}
