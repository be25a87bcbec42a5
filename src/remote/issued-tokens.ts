// The tokens this server issues to MCP clients: opaque random values, recognisable by their prefix,
// kept in the store only as a SHA-256 hash (a copy of the store yields no usable token). Each is bound
// to one grant, one client and one resource (RFC 8707). Access tokens have a record each; a grant has
// one current refresh token, whose hash it keeps with the hashes of the few it replaced (to tell a
// copied token, used again, from a stranger's guess).
import { createHash, randomBytes } from 'node:crypto';
import type { RemoteScope } from './metadata.js';
import type { SealedRecords } from './records.js';

export const ACCESS_PREFIX = 'wcm_at_';
const REFRESH_PREFIX = 'wcm_rt_';
export const CODE_PREFIX = 'wcm_ac_';
const SECRET_SHAPE = /^wcm_(?:at|ac)_[A-Za-z0-9_-]{43}$/;
/** A refresh token names its grant: the grant keeps the hash of the one current token (one chain per grant). */
const REFRESH_SHAPE = /^wcm_rt_([A-Za-z0-9_-]{24})\.[A-Za-z0-9_-]{43}$/;

export const newSecret = (prefix: string) => prefix + randomBytes(32).toString('base64url');
export const hashOf = (secret: string) => createHash('sha256').update(secret).digest('hex');
/** A value that could be one of ours: anything else is refused without a store read. */
export const looksLikeOurs = (value: string, prefix: typeof ACCESS_PREFIX | typeof CODE_PREFIX) => value.startsWith(prefix) && SECRET_SHAPE.test(value);

export function newRefreshToken(grantId: string): { token: string; hash: string } {
  const token = `${REFRESH_PREFIX}${grantId}.${randomBytes(32).toString('base64url')}`;
  return { token, hash: hashOf(token) };
}

/** The grant a refresh token names, or undefined when it is not shaped like one of ours. */
export function refreshTokenGrant(token: string): string | undefined {
  return REFRESH_SHAPE.exec(token)?.[1];
}

/** What an access token stands for. */
export interface AccessRecord {
  grantId: string;
  clientId: string;
  scope: RemoteScope;
  /** The resource (RFC 8707) the token is for. */
  resource: string;
  expiresAt: number;
}

export interface TokenLifetimes {
  accessMs: number;
  refreshMs: number;
}

export async function issueAccessToken(records: SealedRecords, binding: Omit<AccessRecord, 'expiresAt'>, life: TokenLifetimes, now: number): Promise<string> {
  const access = newSecret(ACCESS_PREFIX);
  await records.write('access', hashOf(access), { ...binding, expiresAt: now + life.accessMs } satisfies AccessRecord, life.accessMs);
  return access;
}

/** The token answer (RFC 6749 5.1). */
export function tokenAnswer(access: string, refresh: string, scope: RemoteScope, life: TokenLifetimes) {
  return {
    access_token: access,
    token_type: 'Bearer',
    expires_in: Math.floor(life.accessMs / 1000),
    refresh_token: refresh,
    scope: scope === 'write' ? 'read write' : 'read',
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
