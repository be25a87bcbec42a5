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
 * Loopback hosts of a URL, where plain http cannot be read by anyone but this machine: localhost
 * and *.localhost (RFC 6761), 127.0.0.0/8 and ::1. Wider than loopbackHostNames(): this decides
 * where http may be spoken to, not which Host headers our own endpoint answers.
 */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
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
