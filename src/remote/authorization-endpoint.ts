// The authorization endpoint MCP clients send the member to. GET checks the request (client,
// redirect, PKCE S256, scope, resource) and shows the approval page; POST takes the member's decision
// and sends the browser on to the workspace's own sign-in and consent, with this server's PKCE and state.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { redirect, sendHtml } from '../net/http-io.js';
import { approvalPage, errorPage } from './browser-pages.js';
import { backToClient, bindingCookie, type RemoteContext, readBinding } from './context.js';
import { readForm } from './io.js';
import { hashOf, parseScope } from './issued-tokens.js';
import { canonicalResource, type RemoteScope } from './metadata.js';
import { redirectMatches } from './redirects.js';

/** An MCP client's authorization request, checked, waiting for the member's approval. */
interface PendingRequest {
  clientId: string;
  clientName: string;
  redirectUri: string;
  state?: string;
  codeChallenge: string;
  /** Asked by the client; the member may grant less at the workspace. */
  scope: RemoteScope;
  resource: string;
  /** Hash of the browser binding cookie. */
  browser: string;
}

/** A sign-in sent to the workspace, keyed by the hash of the state sent there. */
export interface FlowRecord extends PendingRequest {
  upstreamState: string;
  codeVerifier: string;
  upstreamClientId: string;
}

const TXN_SHAPE = /^[A-Za-z0-9_-]{32}$/;

/** GET /oauth/authorize */
export async function showAuthorization(ctx: RemoteContext, req: IncomingMessage, res: ServerResponse, q: URLSearchParams): Promise<void> {
  const one = (name: string) => {
    const all = q.getAll(name);
    return all.length === 1 ? all[0] : all.length === 0 ? undefined : null;
  };
  const clientId = one('client_id');
  const redirectUri = one('redirect_uri');
  // Until client and redirect are known good, errors are shown here: never redirect to an unchecked URI.
  if (clientId === null || redirectUri === null) return sendHtml(res, 400, errorPage('Invalid request', 'client_id and redirect_uri may be sent once only.'));
  const client = await ctx.clients.find(clientId);
  if ('unknown' in client) return sendHtml(res, 400, errorPage('Unknown application', `This application cannot sign in here: ${client.unknown}.`));
  if (!redirectUri || !client.redirect_uris.some((r) => redirectMatches(r, redirectUri))) {
    return sendHtml(res, 400, errorPage('Unknown redirect', 'The redirect_uri is missing or is not one this application registered.'));
  }
  const state = one('state');
  const back = (error: string, description: string) =>
    backToClient(res, 302, ctx.ep, redirectUri, { error, error_description: description }, state ?? undefined);
  if (state === null) return back('invalid_request', 'state was sent more than once.');
  if (one('response_type') !== 'code') return back('unsupported_response_type', 'Only response_type=code is supported.');
  const challenge = one('code_challenge');
  if (!challenge || one('code_challenge_method') !== 'S256' || !/^[A-Za-z0-9_-]{43}$/.test(challenge)) {
    return back('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256.');
  }
  const asked = parseScope(one('scope'));
  if (asked === undefined) return back('invalid_scope', 'The scope may be read, write, or "read write".');
  // No scope asked: offer both, and the member chooses at the workspace (read only is one click).
  const scope: RemoteScope = asked === 'default' ? 'write' : asked;
  const resources = q.getAll('resource');
  if (resources.length > 1) return back('invalid_target', 'Ask for one resource: this server.');
  const resource = resources.length === 1 ? canonicalResource(resources[0] as string) : ctx.ep.resource;
  if (!resource || !ctx.ep.resources.includes(resource)) {
    return back('invalid_target', `This authorization server issues tokens for ${ctx.ep.resource} only.`);
  }

  const binding = readBinding(req, ctx.ep) ?? randomBytes(32).toString('base64url');
  const txn = randomBytes(24).toString('base64url');
  const pending: PendingRequest = {
    clientId: client.client_id,
    clientName: client.client_name,
    redirectUri,
    ...(state !== undefined ? { state } : {}),
    codeChallenge: challenge,
    scope,
    resource,
    browser: hashOf(binding),
  };
  await ctx.records.write('txn', txn, pending, ctx.lifetimes.signInMs);
  sendHtml(
    res,
    200,
    approvalPage({
      txn,
      clientName: client.client_name,
      ...(client.kind === 'document' ? { clientHost: new URL(client.client_id).host } : {}),
      redirectUri,
      scope,
      serverHost: ctx.ep.host,
      workspaceHost: new URL(ctx.upstream.workspaceUrl).host,
    }),
    { 'Set-Cookie': bindingCookie(ctx.ep, binding, Math.ceil((ctx.lifetimes.signInMs * 2) / 1000)) },
  );
}

/** POST /oauth/authorize: the member's decision on the approval page. */
export async function decideAuthorization(ctx: RemoteContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const form = await readForm(req);
  const txn = form.getAll('txn');
  const pending = txn.length === 1 && TXN_SHAPE.test(txn[0] as string) ? await ctx.records.take<PendingRequest>('txn', txn[0] as string) : undefined;
  if (!pending) return sendHtml(res, 400, errorPage('Sign-in expired', 'This sign-in is unknown, expired or already used. Start again from your assistant.'));
  const binding = readBinding(req, ctx.ep);
  if (!binding || hashOf(binding) !== pending.browser) {
    return sendHtml(
      res,
      400,
      errorPage('Sign-in refused', 'This approval was not made in the browser that opened the sign-in. Start again from your assistant.'),
    );
  }
  const back = (error: string, description: string) =>
    backToClient(res, 303, ctx.ep, pending.redirectUri, { error, error_description: description }, pending.state);
  if (form.get('decision') !== 'allow') return back('access_denied', 'The member cancelled.');
  let start: Awaited<ReturnType<typeof ctx.upstream.start>>;
  try {
    start = await ctx.upstream.start(pending.scope);
  } catch (e) {
    ctx.logger.error({ event: 'remote.upstream_unavailable', cause: e instanceof Error ? e.message : String(e) }, 'could not start a sign-in at the workspace');
    return back('temporarily_unavailable', 'The workspace could not be reached to sign in. Try again in a moment.');
  }
  const flow: FlowRecord = { ...pending, upstreamState: start.state, codeVerifier: start.codeVerifier, upstreamClientId: start.clientId };
  await ctx.records.write('flow', hashOf(start.state), flow, ctx.lifetimes.signInMs);
  redirect(res, 303, start.url);
}
