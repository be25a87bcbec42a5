// Who signed in: GET /me with the new access token, to tell the member which account the
// assistant now acts as (through the API client: src/api/me.ts). A failure here does not undo the sign-in.
import type { RateLimiter } from '../api/limiter.js';
import { memberOfToken } from '../api/me.js';
import type { StoredMember } from './token-store.js';

/** `limiter`: the rate budget the request draws on (the member's, when known before the answer). */
export async function fetchMember(workspaceUrl: string, accessToken: string, limiter: RateLimiter): Promise<StoredMember | undefined> {
  try {
    const d = await memberOfToken(`${new URL(workspaceUrl).origin}/api/v1`, accessToken, { limiter });
    const pick = (k: string) => (typeof d[k] === 'string' ? { [k]: d[k] as string } : {});
    return { ...pick('id'), ...pick('name'), ...pick('email') };
  } catch {
    return undefined;
  }
}

export function describeMember(m: StoredMember | undefined): string {
  if (!m || (!m.name && !m.email)) return 'an unknown member';
  return [m.name, m.email ? `<${m.email}>` : undefined].filter(Boolean).join(' ');
}
