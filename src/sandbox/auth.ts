// Personal tokens: `Authorization: Bearer pat_...`, looked up in the workspace the Host names.
import { ACCESS_TOKEN_FORMAT, authenticateAccessToken } from './oauth.js';
import type { MemoryWorkspace } from './state.js';
import { ApiError, type Rec } from './types.js';

/** `pat_` and 40 letters or digits, as the sandbox issues personal tokens. */
const TOKEN_FORMAT = /^pat_[A-Za-z0-9]{40}$/;

export const unauthenticated = (why: 'missing' | 'malformed' | 'unknown' | 'revoked' | 'expired' | 'member_removed') =>
  new ApiError(
    401,
    'auth.unauthenticated',
    {
      en: 'Authentication required: send a valid, active personal token as "Authorization: Bearer pat_...".',
      fr: 'Authentification requise : envoyez un jeton personnel valide et actif dans « Authorization: Bearer pat_... ».',
    },
    { reason: why },
    { 'WWW-Authenticate': 'Bearer realm="workspace-api"' },
  );

export interface Principal {
  token: Rec;
  member: Rec;
  scope: 'read' | 'write';
}

export function authenticate(ws: MemoryWorkspace, header: string | undefined, now: number): Principal {
  if (!header) throw unauthenticated('missing');
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) throw unauthenticated('malformed');
  const value = m[1] as string;
  // OAuth access tokens (wco_at_...) are issued by the sandbox's authorization server (oauth.ts).
  if (ACCESS_TOKEN_FORMAT.test(value)) {
    const p = authenticateAccessToken(ws, value, now);
    if (typeof p === 'string') throw unauthenticated(p);
    return p;
  }
  if (!TOKEN_FORMAT.test(value)) throw unauthenticated('malformed');
  const token = ws.c('tokens').find((t) => t.value === value);
  if (!token) throw unauthenticated('unknown');
  if (token.revoked_at) throw unauthenticated('revoked');
  if (typeof token.expires_at === 'string' && Date.parse(token.expires_at) <= now) throw unauthenticated('expired');
  // A member removed from the workspace loses their tokens at once.
  const member = ws.c('members').get(String(token.member_id));
  if (!member || member.status === 'removed') throw unauthenticated('member_removed');
  token.last_used_at = new Date(now).toISOString();
  return { token, member, scope: token.scope === 'write' ? 'write' : 'read' };
}

/**
 * The credential as the member may see it (GET /me): never its value. Whether the real API shows this
 * is not in the spec; a workspace that lists "date of last use" and "last four characters" per token
 * plausibly tells a token about itself, and clients need the scope to offer only what will work.
 */
export function credentialView(p: Principal): HandlerCredential {
  const t = p.token;
  if (typeof t.value === 'string' && t.value.startsWith('pat_')) {
    return {
      kind: 'personal',
      scope: p.scope,
      name: String(t.name ?? ''),
      last_four: t.value.slice(-4),
      expires_at: typeof t.expires_at === 'string' ? t.expires_at : null,
    };
  }
  return { kind: 'oauth', scope: p.scope };
}

type HandlerCredential = import('./types.js').HandlerContext['credential'];

export const insufficientScope = () =>
  new ApiError(403, 'auth.insufficient_scope', {
    en: 'This token has the read scope; this operation needs a token with the write scope.',
    fr: 'Ce jeton a la portée lecture ; cette opération demande un jeton avec la portée écriture.',
  });

export const sessionRequired = () =>
  new ApiError(403, 'integrations.session_required', {
    en: 'This action is reserved to the web application: sign in there to do it.',
    fr: "Cette action est réservée à l'application web : connectez-vous-y pour l'effectuer.",
  });
