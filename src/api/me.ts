// GET /me: who a token belongs to. One request, written once, through the API client (its rate
// limiter, timeouts and typed errors): the banner asks it of the running server's client; sign-in
// (the member just signed in) and the remote mode's personal tokens ask it of one token, through a
// short-lived client on the limiter the caller gives. No other module fetches the API by itself.
import { ApiClient, type ApiClientOptions } from './client.js';

/** What GET /me says of a member, as sent (`token.scope` when the workspace describes the token). */
export type CurrentMember = Record<string, unknown> & { id?: unknown; name?: unknown; email?: unknown; role?: unknown; token?: { scope?: unknown } };

/** The member behind a client's token. Throws the client's typed errors (WorkspaceApiError 401 for a refused token). */
export async function readCurrentMember(client: Pick<ApiClient, 'request'>, signal?: AbortSignal): Promise<CurrentMember> {
  const res = await client.request({ method: 'GET', path: '/me', ...(signal ? { signal } : {}) });
  return (res.data && typeof res.data === 'object' ? res.data : {}) as CurrentMember;
}

interface MemberOfTokenOptions {
  /** Per attempt; default 10 s: a sign-in or a request's authentication should not hang on it. */
  timeoutMs?: number;
  /** The rate budget the request draws on. */
  limiter: ApiClientOptions['limiter'];
  logger?: ApiClientOptions['logger'];
}

/**
 * The member behind one token, asked through a client of its own on `opts.limiter`, closed after. No
 * retry of a 429 or a network failure: the caller (a sign-in, a request being authenticated) answers
 * at once instead.
 */
export async function memberOfToken(apiRoot: string, token: string, opts: MemberOfTokenOptions): Promise<CurrentMember> {
  const client = new ApiClient({
    baseUrl: apiRoot,
    token: () => token,
    timeoutMs: opts.timeoutMs ?? 10_000,
    retry: { max429Retries: 0, maxNetworkRetries: 0 },
    limiter: opts.limiter,
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
  try {
    return await readCurrentMember(client);
  } finally {
    await client.close();
  }
}
