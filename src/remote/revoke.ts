// POST /oauth/revoke (RFC 7009): a refresh token ends the whole grant (and, best effort, the
// workspace authorization behind it); an access token only itself. Unknown tokens and other clients'
// tokens are answered 200 as well: the answer must not tell which tokens exist.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RemoteContext } from './context.js';
import { OAuthHttpError, readForm, sendJson, single } from './io.js';
import { ACCESS_PREFIX, REFRESH_PREFIX, hashOf, looksLikeOurs, type AccessRecord, type RefreshRecord } from './tokens.js';

export async function handleRevoke(ctx: RemoteContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const form = await readForm(req);
  const client = await ctx.clients.find(single(form, 'client_id'));
  if ('unknown' in client) throw new OAuthHttpError(401, 'invalid_client', `Unknown client: ${client.unknown}.`);
  const token = single(form, 'token') ?? '';
  if (looksLikeOurs(token, REFRESH_PREFIX)) {
    const rec = await ctx.records.read<RefreshRecord>('refresh', hashOf(token));
    if (rec && rec.value.clientId === client.client_id) {
      await ctx.records.delete('refresh', hashOf(token));
      await ctx.grants.end(rec.value.grantId, 'revoked by the client');
    }
  } else if (looksLikeOurs(token, ACCESS_PREFIX)) {
    const rec = await ctx.records.read<AccessRecord>('access', hashOf(token));
    if (rec && rec.value.clientId === client.client_id) await ctx.records.delete('access', hashOf(token));
  }
  sendJson(res, 200, {});
}
