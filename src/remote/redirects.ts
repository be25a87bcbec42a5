// Redirect URIs of MCP clients: which ones a client may register, and whether the one an
// authorization request names is one of them. Exact string match (OAuth 2.1 4.1.1), except that a
// loopback redirect matches on any port (RFC 8252 7.3): native clients listen where they can.
import { isLoopbackUrl } from '../auth/secure.js';

/** Schemes that would run code, read files or leave the member somewhere no application listens. */
const REFUSED_SCHEMES = new Set([
  'javascript:',
  'data:',
  'file:',
  'vbscript:',
  'about:',
  'blob:',
  'ftp:',
  'ws:',
  'wss:',
  'mailto:',
  'tel:',
  'sms:',
  'view-source:',
]);
const MAX_LENGTH = 2000;

function isLoopbackRedirect(u: URL): boolean {
  return u.protocol === 'http:' && isLoopbackUrl(u);
}

/** Why `value` cannot be a redirect URI, or undefined when it can. */
export function refuseRedirect(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'each redirect URI must be a string';
  if (value.length > MAX_LENGTH) return `a redirect URI is longer than ${MAX_LENGTH} characters`;
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return `${value} is not an absolute URI`;
  }
  if (u.hash || value.includes('#')) return `${value} must not carry a fragment`;
  if (u.username || u.password) return `${value} must not carry credentials`;
  if (u.protocol === 'https:' || isLoopbackRedirect(u)) return undefined;
  if (u.protocol === 'http:') return `${value} is refused: plain http only on a loopback address (127.0.0.1, [::1], localhost)`;
  // Desktop applications listen on a scheme of their own (cursor://, vscode://, com.example.app:/).
  if (REFUSED_SCHEMES.has(u.protocol)) return `${value} is refused: the ${u.protocol} scheme cannot be a redirect`;
  return undefined;
}

/** Does the authorization request's `asked` redirect match the `registered` one? */
export function redirectMatches(registered: string, asked: string): boolean {
  if (registered === asked) return true;
  let r: URL;
  let a: URL;
  try {
    r = new URL(registered);
    a = new URL(asked);
  } catch {
    return false;
  }
  // User-info is refused at registration; an asked redirect carrying some (http://x@127.0.0.1:P/cb)
  // is another URI, whatever its host and path.
  if (!isLoopbackRedirect(r) || !isLoopbackRedirect(a) || asked.includes('#') || a.username || a.password) return false;
  return r.hostname === a.hostname && r.pathname === a.pathname && r.search === a.search;
}
