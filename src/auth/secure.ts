// Where OAuth may talk plain http: loopback origins only (the sandbox). Everything else is https,
// checked here before any request and again on every endpoint the metadata names.
import { allowInsecureRequests } from 'oauth4webapi';
import { isLoopbackHost } from '../net/loopback.js';
import { SignInError } from './sign-in-errors.js';

export function isLoopbackUrl(u: URL): boolean {
  return isLoopbackHost(u.hostname);
}

/** `raw` as a URL that is https, or http on a loopback host; otherwise a SignInError naming `what`. */
export function requireSecureUrl(raw: string, what: string): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    // Not quoted: a workspace URL comes from the member's settings, where a token may be pasted by mistake.
    throw new SignInError(`The ${what} is not a valid URL: give a full URL such as https://acme.workspace-consulting.com.`);
  }
  if (u.protocol === 'https:') return u;
  if (u.protocol === 'http:' && isLoopbackUrl(u)) return u;
  throw new SignInError(`Refusing the ${what} ${u.origin}: OAuth needs https (plain http is accepted only on loopback addresses such as 127.0.0.1).`);
}

/** Options for oauth4webapi calls to `url`: insecure requests allowed for a loopback origin only. */
export function requestOptions(url: URL, timeoutMs = 15_000): { [allowInsecureRequests]?: boolean; signal: AbortSignal } {
  return {
    ...(url.protocol === 'http:' && isLoopbackUrl(url) ? { [allowInsecureRequests]: true } : {}),
    signal: AbortSignal.timeout(timeoutMs),
  };
}
