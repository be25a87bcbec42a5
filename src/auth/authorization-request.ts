// The authorization request: PKCE S256 and a fresh state for every sign-in. oauth4webapi has no URL
// builder, so the query is set on the endpoint here.
import * as oauth from 'oauth4webapi';
import type { AuthorizationServer } from './discovery.js';
import type { GrantedScope } from './token-store.js';

interface AuthorizationRequest {
  url: URL;
  /** Kept in memory only, checked against the redirect. */
  state: string;
  /** Kept in memory only, sent with the code. */
  codeVerifier: string;
  redirectUri: string;
}

export async function authorizationRequest(as: AuthorizationServer, clientId: string, redirectUri: string, scope: GrantedScope): Promise<AuthorizationRequest> {
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint as string);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', clientId);
  url.searchParams.set('redirect_uri', redirectUri);
  url.searchParams.set('scope', scope === 'write' ? 'read write' : 'read');
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(codeVerifier));
  url.searchParams.set('code_challenge_method', 'S256');
  return { url, state, codeVerifier, redirectUri };
}
