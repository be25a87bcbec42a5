// End to end, no human: the sandbox runs here, `login --no-browser` and `serve` run as child
// processes, and this test plays the browser with plain HTTP requests. Every line the children
// write (at trace level) is kept and searched for the tokens, codes and state they handled.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, type ClientOptions } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeFileName } from '../../src/auth/paths.js';
import type { StoredSignIn } from '../../src/auth/token-store.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { sourceLaunch } from '../helpers/cli.js';
import { type Era, negotiation } from '../helpers/stack.js';
import { autoConsent, cleanEnv, consentOnPage, deliver, root, runCli, SIGN_IN_LINE, tempConfigDir } from './helpers.js';

let sb: SandboxHandle;
/** Everything the child processes wrote on stderr. */
const logs: string[] = [];
/** Values that must never appear in a log line. */
const secrets = new Set<string>();

beforeAll(async () => {
  sb = await startSandbox({ port: 0, rateLimit: false, logger: () => {} });
});
afterAll(() => sb.close());

const env = (dir: string) => cleanEnv({ WORKSPACE_CONFIG_DIR: dir, LOG_LEVEL: 'trace', WORKSPACE_TOOLSETS: 'all' });

async function keepSecretsOf(dir: string): Promise<StoredSignIn> {
  const rec = JSON.parse(await readFile(join(dir, storeFileName(sb.url)), 'utf8')) as StoredSignIn;
  if (rec.tokens) {
    secrets.add(rec.tokens.access_token);
    if (rec.tokens.refresh_token) secrets.add(rec.tokens.refresh_token);
  }
  return rec;
}

/** `login` as a child process, the sign-in followed by `follow`; returns its stderr and exit code. */
async function login(dir: string, follow: (url: string) => Promise<string>, extra: string[] = []): Promise<{ code: number | null; stderr: string }> {
  const run = runCli(['login', '--workspace', sb.url, '--no-browser', ...extra], env(dir));
  const [, url] = await run.line(SIGN_IN_LINE);
  const location = new URL(await follow(url as string));
  // The state is printed in the sign-in URL by design; the code is the secret of the redirect.
  const granted = location.searchParams.get('code');
  if (granted) secrets.add(granted);
  const page = await deliver(location.href);
  const code = await run.exit;
  logs.push(run.stderr());
  expect(page.status).toBe(code === 0 ? 200 : 400);
  return { code, stderr: run.stderr() };
}

interface Served {
  client: Client;
  stderr(): string;
  close(): Promise<void>;
}

async function serve(dir: string, options: ClientOptions = {}, era: Era = 'legacy'): Promise<Served> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'src/cli.ts', 'serve'],
    cwd: root,
    env: { ...env(dir), WORKSPACE_URL: sb.url } as Record<string, string>,
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  const client = new Client({ name: 'e2e', version: '1.0.0' }, { ...options, versionNegotiation: negotiation(era) });
  await client.connect(transport);
  return {
    client,
    stderr: () => err,
    async close() {
      await client.close();
      logs.push(err);
    },
  };
}

const call = (s: Served, name: string, args: Record<string, unknown> = {}) => s.client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

describe('sign in with OAuth, then serve with the granted scope', () => {
  it('read consent: login exits 0, serve lists no write tool and refuses one', async () => {
    const dir = await tempConfigDir();
    const { code, stderr } = await login(dir, (url) => autoConsent(url, 'read'));
    expect(code).toBe(0);
    expect(stderr).toMatch(new RegExp(`Signed in to ${sb.url} as .+ with read-only access`));
    const rec = await keepSecretsOf(dir);
    expect(rec.tokens?.scope).toBe('read');

    const s = await serve(dir);
    try {
      const { tools } = await s.client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toContain('get_current_member');
      expect(names).not.toContain('update_current_member');
      expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);

      const me = await call(s, 'get_current_member');
      expect(me.isError).toBeFalsy();
      expect(me.structuredContent).toMatchObject({ email: rec.member?.email });

      const refused = await call(s, 'update_current_member', { locale: 'en' });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/granted read-only access/);
    } finally {
      await s.close();
    }
  }, 60_000);

  it('write consent through the sign-in, two-step and consent page: serve lists and calls a write tool', async () => {
    const dir = await tempConfigDir();
    const { code, stderr } = await login(dir, (url) => consentOnPage(url, 'write'));
    expect(code).toBe(0);
    expect(stderr).toMatch(/with read and write access/);
    expect((await keepSecretsOf(dir)).tokens?.scope).toBe('write');

    const s = await serve(dir);
    try {
      const names = (await s.client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('update_current_member');
      const updated = await call(s, 'update_current_member', { name: 'Signed In Via OAuth' });
      expect(updated.isError).toBeFalsy();
      expect(updated.structuredContent).toMatchObject({ name: 'Signed In Via OAuth' });
    } finally {
      await s.close();
    }
  }, 60_000);

  it('refreshes an expired access token once, though two serve processes ask at the same moment', async () => {
    const dir = await tempConfigDir();
    expect((await login(dir, (url) => autoConsent(url, 'write'))).code).toBe(0);
    const before = await keepSecretsOf(dir);
    const [a, b] = await Promise.all([serve(dir), serve(dir)]);
    try {
      sb.oauth.expireAccessTokens();
      sb.oauth.clearTokenRequests();
      const [ra, rb] = await Promise.all([call(a, 'get_current_member'), call(b, 'get_current_member')]);
      expect(ra.isError).toBeFalsy();
      expect(rb.isError).toBeFalsy();
      expect(sb.oauth.tokenRequests().filter((r) => r.grant_type === 'refresh_token')).toEqual([
        expect.objectContaining({ grant_type: 'refresh_token', ok: true }),
      ]);
      const after = await keepSecretsOf(dir);
      expect(after.tokens?.refresh_token).not.toBe(before.tokens?.refresh_token);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 60_000);

  it('not signed in: every tool answers an error naming the exact login command, which runs as printed from any folder', async () => {
    const dir = await tempConfigDir();
    const s = await serve(dir);
    let printed: string;
    try {
      const r = await call(s, 'get_current_member');
      expect(r.isError).toBe(true);
      // Run from the sources in a clone, where the bare name is on no PATH: node, tsx's loader and the entry.
      printed = `${sourceLaunch(env(dir).PATH)} login --workspace ${sb.url}`;
      expect(textOf(r)).toContain(`To sign in outside the assistant, run: ${printed}`);
    } finally {
      await s.close();
    }
    // The member pastes it in a shell, in another folder: it starts the sign-in.
    // In a process group of its own: the shell may fork the command rather than exec it, and the
    // sign-in it starts must end with the test, not outlive it.
    const pasted = spawn('sh', ['-c', `${printed} --no-browser`], { cwd: tmpdir(), env: env(dir), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let said = '';
    pasted.stderr.on('data', (c: Buffer) => {
      said += c.toString();
    });
    const exited = new Promise((r) => pasted.once('exit', r));
    await expect.poll(() => SIGN_IN_LINE.test(said), { timeout: 30_000 }).toBe(true);
    process.kill(-(pasted.pid as number), 'SIGTERM');
    await exited;
    const status = runCli(['status', '--workspace', sb.url], env(dir));
    expect(await status.exit).toBe(1);
    expect(status.stderr()).toContain('not signed in');
  }, 60_000);

  // 2025: the server asks with elicitation/create (the SDK's legacy shim); 2026-07-28: the call answers
  // input_required with the URL and a sealed requestState, and the client retries it.
  for (const era of ['legacy', 'modern'] as const) {
    it(`not signed in, with a client that supports URL elicitation (${era}): the call signs in and carries on`, async () => {
      const dir = await tempConfigDir();
      const s = await serve(dir, { capabilities: { elicitation: { url: {} } } }, era);
      const asked: string[] = [];
      s.client.setRequestHandler('elicitation/create', (req) => {
        const url = (req.params as { url: string }).url;
        asked.push(url);
        // The member opens the page after accepting; the server's listener receives the redirect.
        void autoConsent(url, 'read').then(deliver);
        return { action: 'accept' };
      });
      try {
        const r = await call(s, 'get_current_member');
        expect(r.isError).toBeFalsy();
        expect(asked).toHaveLength(1);
        expect(new URL(asked[0] as string).pathname).toBe('/oauth/authorize');
        expect((await keepSecretsOf(dir)).tokens?.scope).toBe('read');
        // The member consented to read: the session now lists no tool that writes.
        const { tools } = await s.client.listTools();
        expect(tools.length).toBeGreaterThan(0);
        expect(tools.filter((t) => t.annotations?.readOnlyHint !== true).map((t) => t.name)).toEqual([]);
      } finally {
        await s.close();
      }
    }, 60_000);

    it(`not signed in, and the member declines the URL elicitation (${era}): the call fails with the login command`, async () => {
      const dir = await tempConfigDir();
      const s = await serve(dir, { capabilities: { elicitation: { url: {} } } }, era);
      s.client.setRequestHandler('elicitation/create', () => ({ action: 'decline' }));
      try {
        const r = await call(s, 'get_current_member');
        expect(r.isError).toBe(true);
        expect(textOf(r)).toMatch(/the member chose decline instead of signing in/);
        expect(textOf(r)).toContain(`run: ${sourceLaunch(env(dir).PATH)} login --workspace ${sb.url}`);
      } finally {
        await s.close();
      }
    }, 60_000);
  }

  it('login refuses an answer with a forged state, and a plain-http workspace off loopback', async () => {
    const dir = await tempConfigDir();
    const forged = await login(dir, async (url) => {
      const l = new URL(await autoConsent(url, 'write'));
      l.searchParams.set('state', 'forged');
      return l.href;
    });
    expect(forged.code).toBe(1);
    expect(forged.stderr).toMatch(/login: Sign-in refused: the answer does not belong to this sign-in \(state mismatch\)/);

    const insecure = runCli(['login', '--workspace', 'http://acme.example.com', '--no-browser'], env(dir));
    expect(await insecure.exit).toBe(1);
    expect(insecure.stderr()).toMatch(/Refusing the workspace URL http:\/\/acme\.example\.com: OAuth needs https/);
  }, 60_000);

  it('status shows member, scope and expiry without a token; logout revokes and deletes', async () => {
    const dir = await tempConfigDir();
    expect((await login(dir, (url) => autoConsent(url, 'write'))).code).toBe(0);
    const rec = await keepSecretsOf(dir);
    const status = runCli(['status'], env(dir));
    expect(await status.exit).toBe(0);
    expect(status.stderr()).toMatch(new RegExp(`${sb.url}: signed in as .+ read and write access, access token valid until \\d{4}-`));
    logs.push(status.stderr());

    const logout = runCli(['logout', '--workspace', sb.url], env(dir));
    expect(await logout.exit).toBe(0);
    expect(logout.stderr()).toMatch(/revoked at the workspace/);
    logs.push(logout.stderr());
    const me = await fetch(`${sb.api}/me`, { headers: { authorization: `Bearer ${rec.tokens?.access_token}` } });
    expect(me.status).toBe(401);
    const after = JSON.parse(await readFile(join(dir, storeFileName(sb.url)), 'utf8')) as StoredSignIn;
    expect(after.tokens).toBeUndefined();
  }, 60_000);

  it('never wrote a token or an authorization code in any log line, at trace level', () => {
    const all = logs.join('\n');
    expect(all.length).toBeGreaterThan(1000);
    // trace level really was on: the MCP server logs its tool calls at debug.
    expect(all).toMatch(/"level":(10|20)/);
    expect(secrets.size).toBeGreaterThan(10);
    const leaked = [...secrets].filter((s) => all.includes(s)).map((s) => `${s.slice(0, 10)}...`);
    expect(leaked).toEqual([]);
    expect(all).not.toMatch(/wco_(at|rt)_/);
  });
});
