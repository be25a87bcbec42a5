// One interactive sign-in, whoever shows the URL (the login command, or the MCP server through
// URL-mode elicitation): discover, register once, listen on loopback, send the member to the
// authorize page, check the answer, exchange the code, store the tokens.
import type { Logger } from 'pino';
import type { RateLimiter } from '../api/limiter.js';
import { authorizationRequest } from './authorization-request.js';
import { discover } from './discovery.js';
import { fetchMember } from './member.js';
import { type Callback, startLoopbackListener } from './redirect-listener.js';
import { registerClient } from './registration.js';
import { SignInError } from './sign-in-errors.js';
import { exchangeCode, revokeToken } from './token-requests.js';
import type { GrantedScope, StoredMember, StoredSignIn, StoredTokens, TokenStore } from './token-store.js';

interface SignInOptions {
  workspaceUrl: string;
  scope: GrantedScope;
  store: TokenStore;
  /** Shows the sign-in URL to the member; rejecting aborts the sign-in. */
  present(url: string): Promise<void>;
  /** How long to wait for the browser's answer. Default 5 minutes. */
  timeoutMs?: number;
  /** The member's rate budget, for the GET /me that says who signed in. */
  limiter: RateLimiter;
  logger?: Logger;
}

interface SignInResult {
  workspace: string;
  scope: GrantedScope;
  member?: StoredMember;
  expiresAt: number;
}

export async function signIn(opts: SignInOptions): Promise<SignInResult> {
  const { workspaceUrl, store, logger } = opts;
  const as = await discover(workspaceUrl);
  const listener = await startLoopbackListener(opts.timeoutMs);
  try {
    const stored = await store.read();
    let clientId = stored?.client?.issuer === as.issuer ? stored.client.client_id : undefined;
    if (!clientId) {
      clientId = (await registerClient(as, listener.redirectUri)).client_id;
      const client = { client_id: clientId, issuer: as.issuer, registered_at: new Date().toISOString() };
      // Kept at once: a sign-in abandoned later still reuses this registration next time.
      await store.update((rec) => ({ ...(rec ?? { version: 1, workspace: workspaceUrl }), issuer: as.issuer, client }));
      logger?.info({ workspace: workspaceUrl, issuer: as.issuer }, 'registered this application with the workspace');
    }
    const client = { client_id: clientId, token_endpoint_auth_method: 'none' as const };
    const request = await authorizationRequest(as, clientId, listener.redirectUri, opts.scope);
    await opts.present(request.url.href);

    let callback: Callback;
    try {
      callback = await listener.callback;
    } catch (err) {
      throw new SignInError(`Sign-in not completed: ${err instanceof Error ? err.message : String(err)}.`);
    }
    let tokens: StoredTokens;
    try {
      tokens = await exchangeCode(as, client, callback.params, { ...request, scope: opts.scope });
    } catch (err) {
      callback.reply(false, `${err instanceof Error ? err.message : String(err)} You can close this tab.`);
      if (err instanceof SignInError && /invalid_client/.test(err.message)) {
        // The workspace forgot this application: register again on the next sign-in.
        await store.update((rec) => (rec ? { ...rec, client: undefined } : rec));
      }
      throw err;
    }
    const member = await fetchMember(workspaceUrl, tokens.access_token, opts.limiter);
    let replaced: string | undefined;
    await store.update((rec): StoredSignIn => {
      replaced = rec?.client?.client_id === clientId ? rec.tokens?.refresh_token : undefined;
      return {
        ...(rec ?? { version: 1, workspace: workspaceUrl }),
        issuer: as.issuer,
        client: rec?.client?.client_id === clientId ? rec.client : { client_id: clientId, issuer: as.issuer, registered_at: new Date().toISOString() },
        tokens,
        ...(member ? { member } : {}),
      };
    });
    // Signing in again replaces an authorization: end the old one at the workspace (best effort).
    // Processes still holding its tokens get a 401 and read the new ones from the store.
    if (replaced) await revokeToken(as, client, replaced, 'refresh_token');
    callback.reply(
      true,
      `Signed in to ${workspaceUrl} with ${tokens.scope === 'write' ? 'read and write' : 'read-only'} access. You can close this tab and return to your assistant.`,
    );
    logger?.info({ workspace: workspaceUrl, scope: tokens.scope, expires_at: new Date(tokens.expires_at).toISOString() }, 'signed in');
    return { workspace: workspaceUrl, scope: tokens.scope, ...(member ? { member } : {}), expiresAt: tokens.expires_at };
  } finally {
    await listener.close();
  }
}
