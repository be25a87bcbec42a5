// Name resolution and origin rules for workspaces on this machine.
//
// The sandbox serves several workspaces on one port, told apart by host name (acme.localhost:PORT).
// RFC 6761 reserves `localhost` and every `*.localhost` name for loopback, but many system resolvers
// only know the bare `localhost`, so the client answers those names itself and asks DNS for the rest.

import type { LookupAddress, LookupOptions } from 'node:dns';
import dns from 'node:dns';
import { isLoopbackHost } from '../net/loopback.js';
import { InvalidArgumentError } from './errors.js';

export function isLocalhostName(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost');
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `net.connect` lookup: localhost names go to 127.0.0.1, the rest to the system resolver. */
export function loopbackLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  if (!isLocalhostName(hostname)) {
    dns.lookup(hostname, options, callback);
    return;
  }
  // net asks for every address when it races IPv4 and IPv6 (autoSelectFamily), else for one.
  if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
}

/**
 * Parse the API root and refuse plain http off loopback: a bearer token sent in clear text on a
 * network is a token given away.
 */
export function parseApiRoot(baseUrl: string): { origin: string; basePath: string; hostname: string } {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new InvalidArgumentError('baseUrl', `The workspace URL "${baseUrl}" is not a valid URL.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new InvalidArgumentError('baseUrl', `The workspace URL must use https, not ${url.protocol}.`);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new InvalidArgumentError(
      'baseUrl',
      `The workspace URL must use https: ${url.origin} would send the access token unencrypted. ` +
        `Plain http is only allowed for loopback hosts (localhost, *.localhost, 127.0.0.1, [::1]).`,
    );
  }
  if (url.search || url.hash) {
    throw new InvalidArgumentError('baseUrl', 'The workspace URL must not carry a query or a fragment.');
  }
  return { origin: url.origin, basePath: url.pathname.replace(/\/+$/, ''), hostname: url.hostname };
}
