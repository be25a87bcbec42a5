// A long-running remote server keeps nothing per sign-in beyond what the sign-in stores: each asks
// the workspace who signed in (GET /me through the API client and a rate limiter), and a limiter or
// a store kept for each would grow the process without bound (docs/architecture.md, Rate budget).
// Counted as objects alive after a full garbage collection (v8.queryObjects), over real sign-ins
// through the front and the sandbox's OAuth server.
import { queryObjects } from 'node:v8';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RateLimiter } from '../../src/api/limiter.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { authorizeUrl, browse, pkce, REDIRECT, register, type Stack, startStack } from './helpers.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ autoConsent: 'write' });
});
afterAll(() => stack?.close());

/** One member's sign-in through this server, to the code the MCP client receives. */
async function signIn(url: string, clientId: string): Promise<void> {
  const { challenge } = pkce();
  const back = await browse(
    authorizeUrl(url, { response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256' }),
    REDIRECT,
  );
  if (!back.searchParams.get('code')) throw new Error(`no code: ${back.href}`);
}

/** Limiters and stores (each a database) alive now. */
function kept(): { limiters: number; stores: number } {
  return { limiters: queryObjects(RateLimiter, { format: 'count' }), stores: queryObjects(SqliteStore, { format: 'count' }) };
}

it('keeps no limiter and no store per sign-in: as many alive after 1,000 sign-ins as after 10', async () => {
  const url = stack.replica.url;
  const clientId = await register(url);
  for (let i = 0; i < 10; i++) await signIn(url, clientId);
  const before = kept();
  for (let i = 0; i < 990; i++) await signIn(url, clientId);
  expect(kept()).toEqual(before);
}, 300_000);
