// Dynamic client registration (RFC 7591) as a public client: no secret, a loopback redirect whose
// port the server must ignore (RFC 8252 7.3), so one registration serves every later sign-in.
import * as oauth from 'oauth4webapi';
import { SERVER_NAME, SERVER_VERSION } from '../version.js';
import type { AuthorizationServer } from './discovery.js';
import { requestOptions } from './secure.js';
import { SignInError } from './sign-in-errors.js';

/** `clientName`: what the member sees under Connected apps (default: this program's name and version). */
export async function registerClient(as: AuthorizationServer, redirectUri: string, clientName = `${SERVER_NAME} ${SERVER_VERSION}`): Promise<oauth.Client> {
  if (!as.registration_endpoint) {
    throw new SignInError(`The authorization server ${as.issuer} offers no dynamic client registration.`);
  }
  const endpoint = new URL(as.registration_endpoint);
  try {
    const res = await oauth.dynamicClientRegistrationRequest(
      as,
      {
        client_name: clientName,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        scope: 'read write',
      },
      requestOptions(endpoint),
    );
    const client = await oauth.processDynamicClientRegistrationResponse(res);
    return { client_id: client.client_id, token_endpoint_auth_method: 'none' };
  } catch (err) {
    const why = err instanceof oauth.ResponseBodyError ? `${err.error}: ${err.error_description ?? ''}` : err instanceof Error ? err.message : String(err);
    throw new SignInError(`The workspace refused to register this application: ${why}`);
  }
}
