// Discovery: the workspace's protected resource metadata (RFC 9728) names its authorization server;
// that server's metadata (RFC 8414) names the endpoints. Every URL met on the way must be https, or
// http on loopback: a workspace cannot send the member's sign-in to a plain-http host.
import * as oauth from 'oauth4webapi';
import { requestOptions, requireSecureUrl } from './secure.js';
import { SignInError } from './sign-in-errors.js';

export type AuthorizationServer = oauth.AuthorizationServer;

const ENDPOINTS = ['authorization_endpoint', 'token_endpoint', 'registration_endpoint', 'revocation_endpoint'] as const;

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The issuer the workspace's API names (RFC 9728), or the workspace origin when it names none. */
async function discoverIssuer(workspaceUrl: string): Promise<URL> {
  const origin = requireSecureUrl(workspaceUrl, 'workspace URL');
  const resource = new URL('/api/v1', origin);
  let res: Response;
  try {
    res = await oauth.resourceDiscoveryRequest(resource, requestOptions(resource));
  } catch (err) {
    throw new SignInError(`Could not reach ${origin.origin} to discover how to sign in: ${describe(err)}`);
  }
  // Metadata is optional for a resource (RFC 9728 3); a workspace is its own authorization server.
  if (res.status === 404) return new URL(origin.origin);
  let meta: oauth.ResourceServer;
  try {
    meta = await oauth.processResourceDiscoveryResponse(resource, res);
  } catch (err) {
    throw new SignInError(`The workspace's protected resource metadata is not usable: ${describe(err)}`);
  }
  const first = meta.authorization_servers?.[0];
  return first ? requireSecureUrl(first, 'authorization server (issuer)') : new URL(origin.origin);
}

/** The authorization server's metadata, checked for what this client needs. */
export async function discover(workspaceUrl: string): Promise<AuthorizationServer> {
  const issuer = await discoverIssuer(workspaceUrl);
  let res: Response;
  try {
    res = await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...requestOptions(issuer) });
  } catch (err) {
    throw new SignInError(`Could not reach the authorization server ${issuer.origin}: ${describe(err)}`);
  }
  let as: AuthorizationServer;
  try {
    as = await oauth.processDiscoveryResponse(issuer, res);
  } catch (err) {
    throw new SignInError(`The authorization server metadata of ${issuer.origin} is not usable: ${describe(err)}`);
  }
  for (const key of ENDPOINTS) {
    const value = as[key];
    if (typeof value === 'string') requireSecureUrl(value, `${key.replace('_', ' ')} in the server metadata`);
  }
  if (!as.authorization_endpoint || !as.token_endpoint) {
    throw new SignInError(`The authorization server ${issuer.origin} announces no authorization or token endpoint.`);
  }
  if (!as.code_challenge_methods_supported?.includes('S256')) {
    throw new SignInError(`The authorization server ${issuer.origin} does not announce PKCE with S256, which this client requires.`);
  }
  return as;
}
