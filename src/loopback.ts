// The loopback names a local HTTP endpoint answers to: what `--host` accepts and what the Host and
// Origin checks allow, from one list.
/** Host header values a loopback listener on `port` answers to. */
export function allowedHosts(port: number): string[] {
  const names = ['127.0.0.1', 'localhost', '[::1]'];
  return port === 80 ? [...names, ...names.map((n) => `${n}:80`)] : names.map((n) => `${n}:${port}`);
}

/** Origin header values accepted (a request without Origin comes from a non-browser client). */
export function allowedOrigins(port: number): string[] {
  return allowedHosts(port).map((h) => `http://${h}`);
}
