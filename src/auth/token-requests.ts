// The token endpoint and revocation: code exchange, refresh (the answer may rotate the refresh
// token), and RFC 7009 revocation. Answers become StoredTokens; errors become messages with the
// server's error code and never the token values.
import * as oauth from 'oauth4webapi';
import type { AuthorizationServer } from './discovery.js';
import { requestOptions } from './secure.js';
import { SignInError } from './sign-in-errors.js';
import type { GrantedScope, StoredTokens } from './token-store.js';

/** The refresh token was refused (invalid_grant): revoked, expired, or rotated by someone else. */
export class RefreshRejectedError extends Error {
  override name = 'RefreshRejectedError';
}

function serverSays(err: unknown): string {
  if (err instanceof oauth.ResponseBodyError) return `${err.error}${err.error_description ? `: ${err.error_description}` : ''}`;
  return err instanceof Error ? err.message : String(err);
}

function grantedScope(scope: string | undefined, asked: GrantedScope): GrantedScope {
  // RFC 6749 5.1: an absent scope means the one asked for.
  if (scope === undefined) return asked;
  return scope.split(/\s+/).includes('write') ? 'write' : 'read';
}

function toStored(res: oauth.TokenEndpointResponse, asked: GrantedScope, previousRefresh?: string): StoredTokens {
  const now = Date.now();
  const expiresIn = typeof res.expires_in === 'number' && res.expires_in > 0 ? res.expires_in : 3600;
  const refresh = res.refresh_token ?? previousRefresh;
  return {
    access_token: res.access_token,
    ...(refresh ? { refresh_token: refresh } : {}),
    scope: grantedScope(res.scope, asked),
    issued_at: now,
    expires_at: now + expiresIn * 1000,
  };
}

const tokenEndpoint = (as: AuthorizationServer) => new URL(as.token_endpoint as string);

/**
 * Check the redirect's parameters (state and iss, RFC 9207) and exchange the code. Every refusal is a
 * SignInError that says which check failed.
 */
export async function exchangeCode(
  as: AuthorizationServer,
  client: oauth.Client,
  callback: URLSearchParams,
  expected: { state: string; codeVerifier: string; redirectUri: string; scope: GrantedScope },
): Promise<StoredTokens> {
  let params: URLSearchParams;
  try {
    params = oauth.validateAuthResponse(as, client, callback, expected.state);
  } catch (err) {
    if (err instanceof oauth.AuthorizationResponseError) {
      throw new SignInError(`The workspace did not grant access: ${err.error}${err.error_description ? ` (${err.error_description})` : ''}.`);
    }
    const msg = err instanceof Error ? err.message : String(err);
    if (/state/.test(msg)) {
      throw new SignInError('Sign-in refused: the answer does not belong to this sign-in (state mismatch). Start the sign-in again.');
    }
    if (/iss/.test(msg)) {
      throw new SignInError(`Sign-in refused: the answer names another issuer than ${as.issuer} (iss mismatch, RFC 9207). Start the sign-in again.`);
    }
    throw new SignInError(`Sign-in refused: ${msg}`);
  }
  try {
    const res = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      params,
      expected.redirectUri,
      expected.codeVerifier,
      requestOptions(tokenEndpoint(as)),
    );
    return toStored(await oauth.processAuthorizationCodeResponse(as, client, res), expected.scope);
  } catch (err) {
    throw new SignInError(`The workspace refused the authorization code: ${serverSays(err)}`);
  }
}

export async function refreshTokens(as: AuthorizationServer, client: oauth.Client, current: StoredTokens, timeoutMs?: number): Promise<StoredTokens> {
  if (!current.refresh_token) throw new RefreshRejectedError('no refresh token was issued');
  try {
    const res = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), current.refresh_token, requestOptions(tokenEndpoint(as), timeoutMs));
    return toStored(await oauth.processRefreshTokenResponse(as, client, res), current.scope, current.refresh_token);
  } catch (err) {
    if (err instanceof oauth.ResponseBodyError && (err.error === 'invalid_grant' || err.error === 'invalid_client')) {
      throw new RefreshRejectedError(serverSays(err));
    }
    throw err;
  }
}

/** Revoke one token; true when the server confirmed. Unsupported or unreachable: false. */
export async function revokeToken(as: AuthorizationServer, client: oauth.Client, token: string, hint: 'access_token' | 'refresh_token'): Promise<boolean> {
  if (!as.revocation_endpoint) return false;
  try {
    const res = await oauth.revocationRequest(as, client, oauth.None(), token, {
      ...requestOptions(new URL(as.revocation_endpoint)),
      additionalParameters: { token_type_hint: hint },
    });
    await oauth.processRevocationResponse(res);
    return true;
  } catch {
    return false;
  }
}
