// `sandbox --auto-consent read|write`: the server-wide auto-consent switch on the command line. A
// sign-in started against the sandbox command is answered with a redirect carrying a code, no page,
// and the code buys no more than the switch allows.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseSandboxArgs } from '../../src/sandbox/main.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('sandbox --auto-consent', () => {
  it('takes read or write and refuses anything else with the usage line', () => {
    expect(parseSandboxArgs(['--auto-consent', 'read']).oauth).toEqual({ autoConsent: 'read' });
    expect(parseSandboxArgs(['--auto-consent=write']).oauth).toEqual({ autoConsent: 'write' });
    expect(parseSandboxArgs([]).oauth).toBeUndefined();
    expect(() => parseSandboxArgs(['--auto-consent', 'admin'])).toThrow(/--auto-consent must be read or write\nusage: .*--auto-consent read\|write/);
    expect(() => parseSandboxArgs(['--auto-consent'])).toThrow(/--auto-consent needs a value/);
  });

  it('signs in without a page, as the demo member, with the narrower of the scope asked and the switch', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'sandbox', '--port', '0', '--auto-consent', 'read'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const line = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (c: Buffer) => {
          stdout += c.toString();
          const nl = stdout.indexOf('\n');
          if (nl >= 0) resolve(stdout.slice(0, nl));
        });
        void exited.then((code) => reject(new Error(`exited with ${code}: ${stderr}`)));
      });
      const { url } = JSON.parse(line) as { url: string };
      const redirectUri = 'http://127.0.0.1:9/callback';
      const reg = await fetch(`${url}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'auto-consent test', redirect_uris: [redirectUri] }),
      });
      expect(reg.status).toBe(201);
      const { client_id } = (await reg.json()) as { client_id: string };

      const verifier = randomBytes(32).toString('base64url');
      const authorize = new URL(`${url}/oauth/authorize`);
      for (const [k, v] of Object.entries({
        response_type: 'code',
        client_id,
        redirect_uri: redirectUri,
        scope: 'read write',
        state: 'st-1',
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
      })) {
        authorize.searchParams.set(k, v);
      }
      const answer = await fetch(authorize, { redirect: 'manual' });
      expect(answer.status).toBe(302);
      const back = new URL(answer.headers.get('location') ?? '');
      expect(back.origin + back.pathname).toBe(redirectUri);
      expect(back.searchParams.get('state')).toBe('st-1');
      expect(back.searchParams.get('iss')).toBe(url);

      const token = await fetch(`${url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          client_id,
          code: back.searchParams.get('code') ?? '',
          redirect_uri: redirectUri,
          code_verifier: verifier,
        }),
      });
      expect(token.status).toBe(200);
      const tokens = (await token.json()) as { access_token: string; scope: string };
      // Asked read and write; the switch says read: the member granted read only.
      expect(tokens.scope).toBe('read');
      const me = await fetch(`${url}/api/v1/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
      expect(me.status).toBe(200);
      expect(stderr).toMatch(/auto consent: read/);
    } finally {
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  }, 30_000);
});
