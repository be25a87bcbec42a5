// Who signed in: GET /me with the new access token, to tell the member which account the
// assistant now acts as. A failure here does not undo the sign-in.
import type { StoredMember } from './store.js';

export async function fetchMember(workspaceUrl: string, accessToken: string): Promise<StoredMember | undefined> {
  try {
    const res = await fetch(new URL('/api/v1/me', workspaceUrl), {
      headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
      signal: AbortSignal.timeout(10_000),
    });
    if (!res.ok) return undefined;
    const body = (await res.json()) as { data?: Record<string, unknown> };
    const d = body.data ?? {};
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
