// GET /oauth/callback: the workspace sends the member back here. The answer is checked (the sign-in
// it belongs to, the browser that started it, state and iss), the workspace code exchanged, the member
// identified (GET /me), and a grant created; the MCP client then gets a code of ours, never the
// workspace's tokens.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StoredTokens } from '../auth/token-store.js';
import { sendHtml } from '../net/http-io.js';
import type { FlowRecord } from './authorization-endpoint.js';
import { errorPage } from './browser-pages.js';
import { backToClient, type RemoteContext, readBinding } from './context.js';
import { CODE_PREFIX, hashOf, narrower, newSecret } from './issued-tokens.js';
import { UpstreamDenied, UpstreamFailure } from './upstream.js';

/** One of our authorization codes, kept by hash. */
export interface CodeRecord {
  grantId: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  scope: 'read' | 'write';
  expiresAt: number;
}

/** Workspace errors passed on to the client as they are; anything else becomes server_error. */
const PASSED_ON = new Set(['access_denied', 'temporarily_unavailable']);

export async function handleCallback(ctx: RemoteContext, req: IncomingMessage, res: ServerResponse, q: URLSearchParams): Promise<void> {
  const states = q.getAll('state');
  const flow = states.length === 1 && (states[0] as string).length <= 200 ? await ctx.records.take<FlowRecord>('flow', hashOf(states[0] as string)) : undefined;
  if (!flow) return sendHtml(res, 400, errorPage('Sign-in expired', 'This sign-in is unknown, expired or already finished. Start again from your assistant.'));
  const binding = readBinding(req, ctx.ep);
  if (!binding || hashOf(binding) !== flow.browser) {
    return sendHtml(res, 400, errorPage('Sign-in refused', 'This sign-in was started in another browser. Start again from your assistant.'));
  }
  const back = (params: Record<string, string>) => backToClient(res, 302, ctx.ep, flow.redirectUri, params, flow.state);
  const failed = (error: string, description: string) => back({ error, error_description: description });

  let tokens: StoredTokens;
  try {
    tokens = await ctx.upstream.finish({ state: flow.upstreamState, codeVerifier: flow.codeVerifier, clientId: flow.upstreamClientId, scope: flow.scope }, q);
  } catch (e) {
    const outcome = e instanceof UpstreamDenied ? 'denied' : 'failed';
    ctx.events?.emit({ event: 'sign_in', member: null, client: flow.clientId, outcome });
    if (e instanceof UpstreamDenied) {
      ctx.logger.info({ event: 'remote.signin_denied', client_id: flow.clientId, error: e.error }, 'the workspace sign-in ended without access');
      return PASSED_ON.has(e.error) ? failed(e.error, 'The workspace did not grant access.') : failed('server_error', 'The workspace refused the sign-in.');
    }
    const cause = e instanceof Error ? e.message : String(e);
    ctx.logger.warn({ event: 'remote.signin_failed', client_id: flow.clientId, cause }, 'a workspace sign-in could not complete');
    return failed(e instanceof UpstreamFailure ? 'server_error' : 'temporarily_unavailable', 'The workspace sign-in could not be completed. Try again.');
  }
  const member = await ctx.upstream.member(tokens.access_token);
  if (!member?.id) {
    ctx.events?.emit({ event: 'sign_in', member: null, client: flow.clientId, outcome: 'failed' });
    ctx.logger.warn({ event: 'remote.signin_failed', client_id: flow.clientId, cause: 'GET /me failed' }, 'a workspace sign-in could not identify the member');
    if (tokens.refresh_token) await ctx.upstream.revoke(flow.upstreamClientId, tokens.refresh_token).catch(() => false);
    return failed('temporarily_unavailable', 'The workspace did not say who signed in. Try again.');
  }
  const now = ctx.now();
  // The member may have granted less than the client asked: the grant holds what was granted.
  const scope = narrower(flow.scope, tokens.scope);
  // Until the client redeems the code the grant is kept only as long as the code.
  const grantId = await ctx.grants.create(
    {
      memberId: member.id,
      upstreamClientId: flow.upstreamClientId,
      clientId: flow.clientId,
      scope,
      resource: flow.resource,
      workspace: tokens,
      createdAt: now,
    },
    ctx.lifetimes.codeMs + 60_000,
  );
  const code = newSecret(CODE_PREFIX);
  const rec: CodeRecord = {
    grantId,
    clientId: flow.clientId,
    redirectUri: flow.redirectUri,
    codeChallenge: flow.codeChallenge,
    resource: flow.resource,
    scope,
    expiresAt: now + ctx.lifetimes.codeMs,
  };
  await ctx.records.write('code', hashOf(code), rec, ctx.lifetimes.codeMs);
  ctx.logger.info({ event: 'remote.signed_in', member: `member:${member.id}`, client_id: flow.clientId, scope }, 'a member signed in');
  ctx.events?.emit({ event: 'sign_in', member: `member:${member.id}`, client: flow.clientId, outcome: 'ok', scope });
  back({ code });
}
