// POST /oauth/revoke (RFC 7009): the current refresh token ends the whole grant (and, best effort,
// the workspace authorization behind it); an access token only itself. Unknown tokens and other clients'
// tokens are answered 200 as well: the answer must not tell which tokens exist.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '../net/http-io.js';
import type { RemoteContext } from './context.js';
import { OAuthHttpError, readForm, single } from './io.js';
import { ACCESS_PREFIX, type AccessRecord, hashOf, looksLikeOurs, refreshTokenGrant } from './issued-tokens.js';

export async function handleRevoke(ctx: RemoteContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const form = await readForm(req);
  const client = await ctx.clients.find(single(form, 'client_id'));
  if ('unknown' in client) throw new OAuthHttpError(401, 'invalid_client', `Unknown client: ${client.unknown}.`);
  const token = single(form, 'token') ?? '';
  const grantId = refreshTokenGrant(token);
  if (grantId) {
    const g = await ctx.grants.read(grantId);
    if (g && g.value.clientId === client.client_id && g.value.refresh?.hash === hashOf(token)) await ctx.grants.end(grantId, 'revoked by the client');
  } else if (looksLikeOurs(token, ACCESS_PREFIX)) {
    const rec = await ctx.records.read<AccessRecord>('access', hashOf(token));
    if (rec && rec.value.clientId === client.client_id) {
      await ctx.records.delete('access', hashOf(token));
      if (ctx.events) {
        const g = await ctx.grants.read(rec.value.grantId);
        ctx.events.emit({
          event: 'revocation',
          what: 'access_token',
          member: g ? `member:${g.value.memberId}` : null,
          client: client.client_id,
          reason: 'revoked by the client',
          grant: rec.value.grantId.slice(0, 8),
        });
      }
    }
  }
  sendJson(res, 200, {});
}
