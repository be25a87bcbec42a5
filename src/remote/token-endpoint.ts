// POST /oauth/token: an authorization code for tokens (PKCE S256, the same client and redirect, the
// same resource), and a refresh token for a new pair (rotation: a refresh token works once; used
// again, it was copied, and the whole grant ends).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '../net/http-io.js';
import type { CodeRecord } from './callback.js';
import type { ClientRecord } from './clients.js';
import type { RemoteContext } from './context.js';
import type { GrantRecord } from './grants.js';
import { OAuthHttpError, readForm, single } from './io.js';
import {
  CODE_PREFIX,
  hashOf,
  issueAccessToken,
  looksLikeOurs,
  narrower,
  newRefreshToken,
  parseScope,
  refreshTokenGrant,
  tokenAnswer,
} from './issued-tokens.js';
import { canonicalResource } from './metadata.js';

/** How many replaced refresh tokens a grant remembers, to recognise one used again. */
const REMEMBERED_REFRESH = 10;

const invalidGrant = (why: string) => new OAuthHttpError(400, 'invalid_grant', why);

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** RFC 8707: a resource sent with the token request must be the one the grant is for. */
function checkResource(form: URLSearchParams, bound: string): void {
  const asked = form.getAll('resource');
  if (asked.length === 0) return;
  if (asked.length > 1 || canonicalResource(asked[0] as string) !== bound) {
    throw new OAuthHttpError(400, 'invalid_target', `This grant is for ${bound} only.`);
  }
}

export async function handleToken(ctx: RemoteContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const form = await readForm(req);
  const grantType = single(form, 'grant_type');
  const client = await ctx.clients.find(single(form, 'client_id'));
  if ('unknown' in client) throw new OAuthHttpError(401, 'invalid_client', `Unknown client: ${client.unknown}.`);
  if (grantType === 'authorization_code') return sendJson(res, 200, await redeemCode(ctx, client, form));
  if (grantType === 'refresh_token') return sendJson(res, 200, await rotate(ctx, client, form));
  throw new OAuthHttpError(400, 'unsupported_grant_type', 'Use grant_type authorization_code or refresh_token.');
}

async function redeemCode(ctx: RemoteContext, client: ClientRecord, form: URLSearchParams) {
  const code = single(form, 'code') ?? '';
  if (!looksLikeOurs(code, CODE_PREFIX)) throw invalidGrant('The authorization code is unknown.');
  const key = hashOf(code);
  const rec = await ctx.records.take<CodeRecord>('code', key);
  if (!rec) {
    // OAuth 2.1 4.1.3: a code used twice may have been stolen; what its first use bought is withdrawn.
    const used = await ctx.records.read<{ grantId: string }>('code-used', key);
    if (used) {
      await ctx.grants.end(used.value.grantId, 'authorization code used twice');
      throw invalidGrant('The authorization code was already used; the tokens it gave are revoked.');
    }
    throw invalidGrant('The authorization code is unknown or expired.');
  }
  await ctx.records.write('code-used', key, { grantId: rec.grantId }, ctx.lifetimes.codeMs * 2);
  // From here the code is spent: a failed check ends the grant it was for, which no one else can redeem now.
  const refuse = async (error: OAuthHttpError) => {
    await ctx.grants.end(rec.grantId, `code refused: ${error.error}`);
    return error;
  };
  if (rec.clientId !== client.client_id) throw await refuse(invalidGrant('The authorization code was issued to another client.'));
  if (rec.expiresAt <= ctx.now()) throw await refuse(invalidGrant('The authorization code expired; sign in again.'));
  if (single(form, 'redirect_uri') !== rec.redirectUri) throw await refuse(invalidGrant('redirect_uri differs from the one of the authorization request.'));
  const verifier = single(form, 'code_verifier') ?? '';
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier) || !sameText(createHash('sha256').update(verifier).digest('base64url'), rec.codeChallenge)) {
    throw await refuse(invalidGrant('PKCE verification failed: code_verifier is missing or does not match the code_challenge.'));
  }
  try {
    checkResource(form, rec.resource);
  } catch (e) {
    throw await refuse(e as OAuthHttpError);
  }
  const now = ctx.now();
  const refresh = newRefreshToken(rec.grantId);
  const set = await ctx.grants.update(rec.grantId, (g) =>
    g.refresh ? undefined : { ...g, refresh: { hash: refresh.hash, scope: rec.scope, expiresAt: now + ctx.lifetimes.refreshMs } },
  );
  if (!('written' in set)) throw invalidGrant('The sign-in behind this code has ended; sign in again.');
  ctx.events?.emit({
    event: 'grant_change',
    change: 'activated',
    member: `member:${set.written.value.memberId}`,
    client: client.client_id,
    scope: rec.scope,
    grant: rec.grantId.slice(0, 8),
  });
  await ctx.clients.renew(client);
  const access = await issueAccessToken(
    ctx.records,
    { grantId: rec.grantId, clientId: client.client_id, scope: rec.scope, resource: rec.resource },
    ctx.lifetimes,
    now,
  );
  return tokenAnswer(access, refresh.token, rec.scope, ctx.lifetimes);
}

async function rotate(ctx: RemoteContext, client: ClientRecord, form: URLSearchParams) {
  const token = single(form, 'refresh_token') ?? '';
  const grantId = refreshTokenGrant(token);
  const found = grantId ? await ctx.grants.read(grantId) : undefined;
  if (!grantId || !found || found.value.clientId !== client.client_id || !found.value.refresh)
    throw invalidGrant('The refresh token is unknown, or the authorization ended; sign in again.');
  const hash = hashOf(token);
  const reused = async () => {
    ctx.logger.warn({ event: 'remote.refresh_reuse', client_id: client.client_id }, 'a replaced refresh token was used again: the grant is revoked');
    await ctx.grants.end(grantId, 'refresh token used twice');
    return invalidGrant('This refresh token was already used (reuse detected); the authorization is revoked. Sign in again.');
  };
  const current = found.value.refresh;
  if (current.hash !== hash) {
    if (found.value.replacedRefresh?.includes(hash)) throw await reused();
    throw invalidGrant('The refresh token is unknown.');
  }
  const now = ctx.now();
  if (current.expiresAt <= now) throw invalidGrant('The refresh token expired; sign in again.');
  checkResource(form, found.value.resource);
  const asked = parseScope(single(form, 'scope'));
  if (asked === undefined || (asked === 'write' && current.scope !== 'write'))
    throw new OAuthHttpError(400, 'invalid_scope', 'A refresh cannot widen the granted scope.');
  const scope = asked === 'default' ? current.scope : narrower(asked, current.scope);
  const next = newRefreshToken(grantId);
  // Compare-and-set on the grant: of two uses of this token racing, exactly one replaces it.
  const outcome = await ctx.grants.update(grantId, (g: GrantRecord) =>
    g.refresh?.hash === hash
      ? {
          ...g,
          refresh: { hash: next.hash, scope, expiresAt: now + ctx.lifetimes.refreshMs },
          replacedRefresh: [hash, ...(g.replacedRefresh ?? [])].slice(0, REMEMBERED_REFRESH),
        }
      : undefined,
  );
  if ('absent' in outcome) throw invalidGrant("The member's authorization ended; sign in again.");
  if ('declined' in outcome) throw await reused();
  if (scope !== current.scope) {
    ctx.events?.emit({
      event: 'grant_change',
      change: 'narrowed',
      member: `member:${outcome.written.value.memberId}`,
      client: client.client_id,
      scope,
      grant: grantId.slice(0, 8),
    });
  }
  await ctx.clients.renew(client);
  const access = await issueAccessToken(ctx.records, { grantId, clientId: client.client_id, scope, resource: found.value.resource }, ctx.lifetimes, now);
  return tokenAnswer(access, next.token, scope, ctx.lifetimes);
}
