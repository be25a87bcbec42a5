// Authentication of /mcp requests: our access token (bound to this resource, its grant still alive),
// or, when the operator allows it, a member's personal token in X-Workspace-Token. Anything else is a
// 401 whose WWW-Authenticate names the protected resource metadata, where a client learns how to sign
// in. A workspace token in the Authorization header is never passed through: it is just unknown here.
import type { IncomingMessage } from 'node:http';
import type { RemoteContext } from './context.js';
import { findAccess } from './issued-tokens.js';
import { bearerChallenge } from './metadata.js';
import { PERSONAL_TOKEN_HEADER, PersonalTokens } from './personal.js';
import type { RemotePrincipal } from './principal.js';

/** A request refused at the door of /mcp: its HTTP status, challenge and OAuth error body (not a tool's refusal, src/mcp/render/refusal.ts). */
interface AuthRefusal {
  status: 400 | 401 | 503;
  headers: Record<string, string>;
  body: { error: string; error_description: string };
}

function refusal(ctx: RemoteContext, status: 400 | 401 | 503, error: string, description: string, extra: Record<string, string> = {}): AuthRefusal {
  const challenge = error === 'invalid_token' || error === 'invalid_request' ? bearerChallenge(ctx.ep, { code: error, description }) : bearerChallenge(ctx.ep);
  return { status, headers: { 'WWW-Authenticate': challenge, ...extra }, body: { error, error_description: description } };
}

export async function authenticate(ctx: RemoteContext, personal: PersonalTokens | undefined, req: IncomingMessage): Promise<RemotePrincipal | AuthRefusal> {
  const authorization = req.headers.authorization;
  const pat = req.headers[PERSONAL_TOKEN_HEADER];
  if (pat !== undefined) {
    if (authorization !== undefined) return refusal(ctx, 400, 'invalid_request', 'Send one credential: an access token or a personal token, not both.');
    if (!personal) {
      return refusal(ctx, 401, 'invalid_request', 'This server does not accept personal tokens (X-Workspace-Token): sign in with OAuth.');
    }
    return personalPrincipal(ctx, personal, Array.isArray(pat) ? '' : pat);
  }
  if (!authorization) return refusal(ctx, 401, 'unauthorized', 'Sign in: this server needs an access token (see WWW-Authenticate).');
  const m = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i.exec(authorization);
  if (!m) return refusal(ctx, 401, 'invalid_request', 'Send the access token as "Authorization: Bearer <token>".');
  const now = ctx.now();
  const access = await findAccess(ctx.records, m[1] as string, ctx.ep.resources, now);
  if (!access) return refusal(ctx, 401, 'invalid_token', 'The access token is unknown, expired, or not for this server.');
  const grant = await ctx.grants.read(access.grantId);
  if (!grant) return refusal(ctx, 401, 'invalid_token', "The member's authorization ended: sign in again.");
  const g = grant.value;
  let last: string | undefined;
  return {
    kind: 'oauth',
    memberKey: `member:${g.memberId}`,
    scope: access.scope,
    clientId: access.clientId,
    budgetKey: `oauth:${g.upstreamClientId}:${g.memberId}`,
    credential: `grant:${access.grantId}`,
    expiresAt: Math.floor(access.expiresAt / 1000),
    resource: access.resource,
    async workspaceToken() {
      last = await ctx.grants.workspaceToken(access.grantId);
      return last;
    },
    onWorkspaceUnauthorized: () => ctx.grants.onWorkspaceUnauthorized(access.grantId, last),
  };
}

async function personalPrincipal(ctx: RemoteContext, personal: PersonalTokens, token: string): Promise<RemotePrincipal | AuthRefusal> {
  const checked = await personal.check(token);
  if (checked === 'malformed') return refusal(ctx, 401, 'invalid_token', 'X-Workspace-Token must hold one personal token (pat_...).');
  if (checked === 'refused') return refusal(ctx, 401, 'invalid_token', 'The workspace refused this personal token (unknown, revoked or expired).');
  if (checked === 'unavailable') {
    return {
      status: 503,
      headers: { 'Retry-After': '5' },
      body: { error: 'temporarily_unavailable', error_description: 'The workspace could not check the personal token. Try again shortly.' },
    };
  }
  return {
    kind: 'personal',
    memberKey: `member:${checked.memberId}`,
    scope: checked.scope,
    clientId: 'personal-token',
    budgetKey: PersonalTokens.budgetName(PersonalTokens.hash(token)),
    credential: `pat:${PersonalTokens.hash(token)}`,
    resource: ctx.ep.resource,
    workspaceToken: async () => token,
    async onWorkspaceUnauthorized() {
      personal.forget(token);
      return 'ended';
    },
  };
}
