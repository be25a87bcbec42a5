// What every route of the remote front shares: where things are, the sealed store, the parties
// (MCP clients, the workspace, grants), the clock and the lifetimes.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { EventSink } from '../audit/events.js';
import { cookie, redirect } from '../net/http-io.js';
import type { Clients } from './clients.js';
import type { Grants } from './grants.js';
import type { TokenLifetimes } from './issued-tokens.js';
import type { Endpoints } from './metadata.js';
import type { SealedRecords } from './records.js';
import type { Upstream } from './upstream.js';

export interface RemoteContext {
  ep: Endpoints;
  records: SealedRecords;
  clients: Clients;
  upstream: Upstream;
  grants: Grants;
  logger: Logger;
  now: () => number;
  lifetimes: TokenLifetimes & { codeMs: number; signInMs: number };
  /** The operator's audit trail and metrics, when on. */
  events?: EventSink;
}

/** The authorization response (RFC 6749 4.1.2, RFC 9207): parameters, the client's state, and our issuer. */
export function backToClient(
  res: ServerResponse,
  status: 302 | 303,
  ep: Endpoints,
  redirectUri: string,
  params: Record<string, string>,
  state: string | undefined,
): void {
  const u = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  if (state !== undefined) u.searchParams.set('state', state);
  u.searchParams.set('iss', ep.issuer);
  redirect(res, status, u.href);
}

/**
 * The sign-in's browser binding: a random value in an HttpOnly, SameSite=Lax cookie set with the
 * approval page, whose hash the pending sign-in keeps. The approval (a POST) and the workspace's
 * answer (a top-level GET) must come from the browser that saw the page: another site can neither
 * post the approval for the member nor finish a sign-in it started in the member's browser.
 */
function bindingCookieName(ep: Endpoints): string {
  return ep.issuer.startsWith('https:') ? '__Host-wcm_signin' : 'wcm_signin';
}

export function readBinding(req: IncomingMessage, ep: Endpoints): string | undefined {
  const v = cookie(req, bindingCookieName(ep));
  return v && /^[A-Za-z0-9_-]{43}$/.test(v) ? v : undefined;
}

export function bindingCookie(ep: Endpoints, value: string, maxAgeS: number): string {
  const secure = ep.issuer.startsWith('https:') ? '; Secure' : '';
  return `${bindingCookieName(ep)}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeS}${secure}`;
}
