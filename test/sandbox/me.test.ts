import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';

let sb: SandboxHandle;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, rateLimit: false });
});
afterAll(async () => {
  await sb.close();
});

async function me(token: string) {
  const res = await fetch(`${sb.api}/me`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, text: await res.text() };
}

describe('GET /me tells a token about itself', () => {
  it('shows the scope, name, last four characters and expiry of a personal token, never its value', async () => {
    for (const kind of ['read', 'write'] as const) {
      const r = await me(sb.tokens[kind]);
      expect(r.status).toBe(200);
      const token = (JSON.parse(r.text) as { data: { token: Record<string, unknown> } }).data.token;
      expect(token).toMatchObject({ kind: 'personal', scope: kind, last_four: sb.tokens[kind].slice(-4) });
      expect(r.text).not.toContain(sb.tokens[kind]);
    }
  });
});
