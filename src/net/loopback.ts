// Which names mean "this machine", in the two places that must agree on them: the configuration
// (`--host` of `serve --http`, the http-on-loopback rule for URLs) and the HTTP server's Host check
// (src/serve/local-http.ts). A name accepted by one and refused by the other made a server that started and then
// refused every request for its own Host (`--host 127.0.0.2`), so both read the list from here.
// Imports nothing.

/**
 * The names the loopback HTTP endpoint answers to, as a Host header writes them (an IPv6 address
 * in brackets). `--host` accepts exactly these (IPv6 with or without brackets): other loopback
 * addresses such as 127.0.0.2 or acme.localhost would bind, but no client could be let in.
 */
export function loopbackHostNames(): string[] {
  return ['127.0.0.1', 'localhost', '[::1]'];
}

/**
 * The address to listen on for a `--host` value the Host check accepts (case-insensitive; `::1`
 * or `[::1]` gives `::1`, the form `listen` takes), or undefined for any other value.
 */
export function loopbackListenAddress(host: string): string | undefined {
  const h = host.trim().toLowerCase();
  const asHeader = h.includes(':') && !h.startsWith('[') ? `[${h}]` : h;
  if (!loopbackHostNames().includes(asHeader)) return undefined;
  return asHeader.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Loopback hosts, where plain http cannot be read by anyone but this machine: localhost and
 * *.localhost (RFC 6761), 127.0.0.0/8, ::1, and 127.0.0.0/8 mapped into IPv6 (::ffff:127.x.y.z).
 * Wider than loopbackHostNames(): this decides where http may be spoken to (the workspace URL, the
 * public URL, OAuth endpoints), not which Host headers our own endpoint answers. Takes a URL's
 * hostname or a host as typed, read as a URL reads it (case, a trailing dot, IPv6 with or without
 * brackets, 127.1 or 0:0:0:0:0:0:0:1 all read the same).
 */
export function isLoopbackHost(hostname: string): boolean {
  const h = canonicalHost(hostname);
  if (h === undefined) return false;
  if (h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h)) return true;
  // IPv4-mapped, as the URL parser writes it (::ffff:127.0.0.1 is ::ffff:7f00:1).
  return /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(h);
}

/** A host as the URL parser writes it (IPv6 without its brackets, no trailing dot), or undefined when it is no host. */
function canonicalHost(hostname: string): string | undefined {
  const bare = hostname.replace(/^\[(.*)\]$/, '$1');
  try {
    return new URL(`http://${bare.includes(':') ? `[${bare}]` : bare}/`).hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  } catch {
    return undefined;
  }
}

/** Host header values a loopback listener on `port` answers to. */
export function allowedHosts(port: number): string[] {
  const names = loopbackHostNames();
  return port === 80 ? [...names, ...names.map((n) => `${n}:80`)] : names.map((n) => `${n}:${port}`);
}

/** Origin header values accepted (a request without Origin comes from a non-browser client). */
export function allowedOrigins(port: number): string[] {
  return allowedHosts(port).map((h) => `http://${h}`);
}
