// Who an authenticated /mcp request acts for, as the MCP layer sees it. The MCP layer never sees a
// token of ours or a sealed record: it gets the member, the scope the member consented to (the ceiling
// of what the session lists and runs), and a way to get a fresh workspace token.
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { RemoteScope } from './metadata.js';

export interface RemotePrincipal {
  /** 'oauth': signed in through this server; 'personal': a personal token sent by an unattended agent. */
  kind: 'oauth' | 'personal';
  /**
   * Stable for one workspace member across sign-ins, clients and replicas (`member:<id>`): key anything
   * cached from member-visible answers by it, so one member is never served another's data.
   */
  memberKey: string;
  /** What the member consented to at the workspace: list and run nothing beyond it. */
  scope: RemoteScope;
  /** The MCP client (our client_id, or its metadata document URL); 'personal-token' for kind 'personal'. */
  clientId: string;
  /**
   * Key of the workspace's rate budget this principal draws on: the workspace counts per OAuth
   * application and member (every grant of one member through this server shares it), or per
   * personal token. Use it rather than the token value, which changes at every refresh.
   */
  budgetKey: string;
  /**
   * Which of the member's credentials this is: one sign-in (a grant) or one personal token. The MCP
   * layer keeps each credential's API client apart, so a call goes out with the workspace token of the
   * credential that sent it, never another sign-in's of the same member (a sign-in revoked at the
   * workspace must not ride on a live one). In memory only, never logged nor stored.
   */
  credential: string;
  /** Seconds since the epoch when the MCP client's access token expires (undefined for personal tokens). */
  expiresAt?: number;
  /** The resource the client's token is bound to (RFC 8707). */
  resource: string;
  /** A workspace access token valid now (refreshed when about to expire). Rejects with GrantEndedError when the grant is gone. */
  workspaceToken(): Promise<string>;
  /**
   * Call when the workspace answers 401 to the token `workspaceToken()` gave. 'refreshed': a new token
   * is ready (the request was not run: sending it again is safe); 'ended': the member's grant is over,
   * the client's next request is answered 401 and it signs in again.
   */
  onWorkspaceUnauthorized(): Promise<'refreshed' | 'ended'>;
}

/**
 * The SDK's AuthInfo for `createMcpHandler`'s `fetch(request, {authInfo})` (or `req.auth` before
 * `toNodeHandler`): read back as `ctx.http.authInfo` by tools, with the principal under `extra`. Its
 * `token` is not a credential: the MCP layer has no use for the client's token and must not hold one.
 */
export function authInfoFor(principal: RemotePrincipal): AuthInfo {
  return {
    token: `${principal.kind}:${principal.memberKey}`,
    clientId: principal.clientId,
    scopes: principal.scope === 'write' ? ['read', 'write'] : ['read'],
    ...(principal.expiresAt !== undefined ? { expiresAt: principal.expiresAt } : {}),
    resource: new URL(principal.resource),
    extra: { principal },
  };
}

/** The principal `authInfoFor` put in an AuthInfo (ctx.http.authInfo), if any. */
export function principalOf(authInfo: AuthInfo | undefined): RemotePrincipal | undefined {
  const p = authInfo?.extra?.principal;
  return p && typeof p === 'object' && 'memberKey' in p ? (p as RemotePrincipal) : undefined;
}
