// The tokens this server issues to MCP clients: opaque random values, recognisable by their prefix,
// kept in the store only as a SHA-256 hash (a copy of the store yields no usable token). Each is bound
// to one grant, one client and one resource (RFC 8707).
import { createHash, randomBytes } from 'node:crypto';
import type { RemoteScope } from './metadata.js';
import type { SealedRecords } from './records.js';

export const ACCESS_PREFIX = 'wcm_at_';
export const REFRESH_PREFIX = 'wcm_rt_';
export const CODE_PREFIX = 'wcm_ac_';
const TOKEN_SHAPE = /^wcm_(?:at|rt|ac)_[A-Za-z0-9_-]{43}$/;

export const newSecret = (prefix: string) => prefix + randomBytes(32).toString('base64url');
export const hashOf = (secret: string) => createHash('sha256').update(secret).digest('hex');
/** A value that could be one of ours: anything else is refused without a store read. */
export const looksLikeOurs = (value: string, prefix: string) => value.startsWith(prefix) && TOKEN_SHAPE.test(value);

/** What an access or refresh token stands for. */
export interface TokenBinding {
  grantId: string;
  clientId: string;
  scope: RemoteScope;
  /** The resource (RFC 8707) the token is for. */
  resource: string;
}

export interface AccessRecord extends TokenBinding {
  expiresAt: number;
}

export interface RefreshRecord extends TokenBinding {
  expiresAt: number;
  /** Set when the token was exchanged for a new pair: seen again, it was copied (reuse detection). */
  rotatedAt?: number;
}

export interface IssuedTokens {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

export interface TokenLifetimes {
  accessMs: number;
  refreshMs: number;
}

export async function issueTokens(records: SealedRecords, binding: TokenBinding, life: TokenLifetimes, now: number): Promise<IssuedTokens> {
  const access = newSecret(ACCESS_PREFIX);
  const refresh = newSecret(REFRESH_PREFIX);
  const accessRec: AccessRecord = { ...binding, expiresAt: now + life.accessMs };
  const refreshRec: RefreshRecord = { ...binding, expiresAt: now + life.refreshMs };
  await records.write('access', hashOf(access), accessRec, life.accessMs);
  await records.write('refresh', hashOf(refresh), refreshRec, life.refreshMs);
  return {
    access_token: access,
    token_type: 'Bearer',
    expires_in: Math.floor(life.accessMs / 1000),
    refresh_token: refresh,
    scope: binding.scope === 'write' ? 'read write' : 'read',
  };
}

/** The access token's record when it is ours, unexpired and for one of `resources`. */
export async function findAccess(records: SealedRecords, token: string, resources: readonly string[], now: number): Promise<AccessRecord | undefined> {
  if (!looksLikeOurs(token, ACCESS_PREFIX)) return undefined;
  const rec = (await records.read<AccessRecord>('access', hashOf(token)))?.value;
  if (!rec || rec.expiresAt <= now || !resources.includes(rec.resource)) return undefined;
  return rec;
}

/** `read`, `write` or `read write` asked (`offline_access` tolerated); undefined when a scope is unknown. */
export function parseScope(raw: string | undefined | null): RemoteScope | undefined | 'default' {
  if (raw === undefined || raw === null) return 'default';
  const parts = raw.split(/\s+/).filter((p) => p && p !== 'offline_access');
  if (parts.length === 0) return 'default';
  if (parts.some((p) => p !== 'read' && p !== 'write')) return undefined;
  return parts.includes('write') ? 'write' : 'read';
}

export const narrower = (a: RemoteScope, b: RemoteScope): RemoteScope => (a === 'read' || b === 'read' ? 'read' : 'write');
