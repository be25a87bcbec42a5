// Where everything is, as MCP clients and browsers see it: every link is on the public origin
// (WORKSPACE_PUBLIC_URL), whatever Host the proxy forwards. The protected resource is `<public>/mcp`
// (its RFC 9728 metadata at /.well-known/oauth-protected-resource/mcp) or the origin (the metadata
// without suffix); the authorization server is this server, its issuer the public origin exactly.
import { isLoopbackUrl } from '../auth/secure.js';

const SCOPES = ['read', 'write'] as const;
export type RemoteScope = (typeof SCOPES)[number];

export class RemoteConfigError extends Error {
  override name = 'RemoteConfigError';
}

export interface Endpoints {
  /** The public origin, exactly as the issuer is compared (no trailing slash). */
  issuer: string;
  /** The protected resource: `<issuer>/mcp`. */
  resource: string;
  /** Resource indicators a token may be bound to: the endpoint and the origin (RFC 9728's root metadata). */
  resources: readonly string[];
  resourceMetadataUrl: string;
  authorization: string;
  token: string;
  registration: string;
  revocation: string;
  /** Where the workspace sends the member back. */
  callback: string;
  /** `Host` as browsers and clients send it for the public origin. */
  host: string;
}

/** WORKSPACE_PUBLIC_URL: an origin, https except on loopback; a trailing slash is accepted. */
export function parsePublicUrl(raw: string): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new RemoteConfigError(`WORKSPACE_PUBLIC_URL ${JSON.stringify(raw)} is not an absolute URL (for example https://mcp.example.com).`);
  }
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && isLoopbackUrl(u))) {
    throw new RemoteConfigError(`WORKSPACE_PUBLIC_URL must be https (plain http only on a loopback address): ${u.origin}`);
  }
  if (u.username || u.password) throw new RemoteConfigError('WORKSPACE_PUBLIC_URL must not carry a user name or password.');
  if ((u.pathname !== '/' && u.pathname !== '') || u.search || u.hash) {
    throw new RemoteConfigError(`WORKSPACE_PUBLIC_URL must be an origin without path, query or fragment: use ${u.origin}`);
  }
  return u;
}

export function endpointsFor(publicUrl: string): Endpoints {
  const u = parsePublicUrl(publicUrl);
  const issuer = u.origin;
  return {
    issuer,
    resource: `${issuer}/mcp`,
    resources: [`${issuer}/mcp`, issuer],
    resourceMetadataUrl: `${issuer}/.well-known/oauth-protected-resource/mcp`,
    authorization: `${issuer}/oauth/authorize`,
    token: `${issuer}/oauth/token`,
    registration: `${issuer}/oauth/register`,
    revocation: `${issuer}/oauth/revoke`,
    callback: `${issuer}/oauth/callback`,
    host: u.host,
  };
}

/**
 * A resource indicator (RFC 8707) in the form tokens are bound to: absolute, no fragment or query,
 * scheme and host lower-cased (URL does it), no trailing slash. Undefined when it is not a URI.
 */
export function canonicalResource(raw: string): string | undefined {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return undefined;
  }
  if (u.hash || u.search || raw.includes('#')) return undefined;
  return u.origin + u.pathname.replace(/\/+$/, '');
}

/** RFC 9728 metadata for the endpoint (`/mcp`) or the origin. */
export function protectedResourceMetadata(ep: Endpoints, resource: string): Record<string, unknown> {
  return {
    resource,
    authorization_servers: [ep.issuer],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Workspace Consulting MCP server',
  };
}

/** RFC 8414 metadata of the authorization server MCP clients talk to. */
export function authorizationServerMetadata(ep: Endpoints): Record<string, unknown> {
  return {
    issuer: ep.issuer,
    authorization_endpoint: ep.authorization,
    token_endpoint: ep.token,
    registration_endpoint: ep.registration,
    revocation_endpoint: ep.revocation,
    scopes_supported: [...SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
  };
}

/**
 * The challenge of a 401 (RFC 6750 3, RFC 9728 5.1). No `scope`: clients then ask for every scope in
 * the metadata and the member chooses read only, or read and write, at the workspace.
 */
export function bearerChallenge(ep: Endpoints, error?: { code: 'invalid_token' | 'invalid_request'; description: string }): string {
  const parts = [`resource_metadata="${ep.resourceMetadataUrl}"`];
  if (error) {
    parts.push(`error="${error.code}"`);
    parts.push(`error_description="${error.description.replace(/["\\]/g, "'")}"`);
  }
  return `Bearer ${parts.join(', ')}`;
}
