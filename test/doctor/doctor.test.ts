// `doctor` as a child process against the sandbox started here: each failure a newcomer meets is
// named on its own line with the fix for it, and the exit code is 0 only when nothing failed.
import { mkdtemp } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/api/limiter.js';
import { signIn } from '../../src/auth/sign-in.js';
import { TokenStore } from '../../src/auth/token-store.js';
import { type SandboxHandle, startSandbox } from '../../src/sandbox/index.js';
import { runCli, sourceLaunch } from '../helpers/cli.js';

interface Report {
  ok: boolean;
  want: string;
  checks: { id: string; status: 'pass' | 'fail' | 'warn' | 'skip'; detail: string; fix?: string }[];
}

let sb: SandboxHandle;
let dirs: { config: string; downloads: string };
beforeAll(async () => {
  sb = await startSandbox({ port: 0, logger: () => {} });
  dirs = { config: await mkdtemp(join(tmpdir(), 'wcm-doctor-config-')), downloads: await mkdtemp(join(tmpdir(), 'wcm-doctor-dl-')) };
});
afterAll(() => sb.close());

const base = () => ({ WORKSPACE_CONFIG_DIR: dirs.config, WORKSPACE_DOWNLOAD_DIR: dirs.downloads });

async function doctor(env: Record<string, string>, args: string[] = []) {
  const ran = await runCli(['doctor', '--json', ...args], { ...base(), ...env });
  const report = JSON.parse(ran.stdout) as Report;
  const check = (id: string) => {
    const c = report.checks.find((x) => x.id === id);
    if (!c) throw new Error(`no ${id} check in ${ran.stdout}`);
    return c;
  };
  return { ...ran, report, check };
}

describe('doctor', () => {
  it('passes every check, in order, with a valid write token, and exits 0', async () => {
    const r = await doctor({ WORKSPACE_URL: sb.url, WORKSPACE_TOKEN: sb.tokens.write });
    expect(r.report.checks.map((c) => c.id)).toEqual(['config', 'node', 'host', 'oauth', 'token', 'scope', 'openapi', 'rate', 'clock', 'downloads']);
    expect(r.report.checks.filter((c) => c.status === 'fail')).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.report.ok).toBe(true);
    expect(r.check('token').detail).toMatch(/personal token of Claire Dubois <claire\.dubois@atelier-conseil\.fr> \(admin\)/);
    // The live description has operations the catalog lacks; the doctor says how many.
    expect(r.check('openapi').detail).toMatch(/^\d+ operations \(version 1\.0\.0\); [1-9]\d* beyond the built-in catalog/);
    expect(r.check('rate').detail).toMatch(/^\d+ of 120 requests left/);
    expect(r.check('clock').status).toBe('pass');
    expect(r.check('downloads').detail).toContain(dirs.downloads);
  });

  it('fails for a read personal token when write was wanted, with the fix, and sends no write', async () => {
    sb.clearRequests();
    const r = await doctor({ WORKSPACE_URL: sb.url, WORKSPACE_TOKEN: sb.tokens.read });
    expect(r.code).toBe(1);
    expect(r.check('scope').status).toBe('fail');
    expect(r.check('scope').detail).toMatch(/read only .*but write was wanted/);
    expect(r.check('scope').fix).toMatch(/create a token with the write scope/);
    expect(sb.requests().filter((q) => q.method !== 'GET')).toEqual([]);
    const enough = await doctor({ WORKSPACE_URL: sb.url, WORKSPACE_TOKEN: sb.tokens.read, WORKSPACE_READ_ONLY: 'true' });
    expect(enough.check('scope').status).toBe('pass');
  });

  it("says a personal token's scope is unknown, sends no write to learn it, and still exits 0, where GET /me does not state it", async () => {
    // The sandbox's GET /me states the token's scope; a workspace may not. A proxy in front of the
    // sandbox answers /me without it, and passes everything else through as it is.
    const origin = new URL(sb.url);
    const proxy = createServer((req, res) => {
      const upstream = httpRequest(
        { host: origin.hostname, port: origin.port, method: req.method, path: req.url, headers: { ...req.headers, host: origin.host } },
        (up) => {
          if (req.url !== '/api/v1/me' || up.statusCode !== 200) {
            res.writeHead(up.statusCode ?? 502, up.headers);
            up.pipe(res);
            return;
          }
          const chunks: Buffer[] = [];
          up.on('data', (c: Buffer) => chunks.push(c));
          up.on('end', () => {
            const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { token: Record<string, unknown> } };
            delete body.data.token.scope;
            const out = JSON.stringify(body);
            res.writeHead(200, { ...up.headers, 'content-length': Buffer.byteLength(out) });
            res.end(out);
          });
        },
      );
      req.pipe(upstream);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    try {
      sb.clearRequests();
      const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const r = await doctor({ WORKSPACE_URL: url, WORKSPACE_TOKEN: sb.tokens.read });
      expect(r.check('token').status).toBe('pass');
      expect(r.check('scope')).toMatchObject({
        status: 'warn',
        detail: expect.stringMatching(/^unknown: GET \/me does not state this token's scope, and doctor sends no write request to find out/),
      });
      expect(r.code).toBe(0);
      expect(sb.requests().filter((q) => q.method !== 'GET')).toEqual([]);
    } finally {
      await new Promise<void>((r) => proxy.close(() => r()));
    }
  });

  it('prints a readable report: one line per check, the fix under a failure, the summary last', async () => {
    const r = await runCli(['doctor'], { ...base(), WORKSPACE_URL: sb.url });
    expect(r.code).toBe(1);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^PASS {2}Configuration/);
    const token = lines.findIndex((l) => /^FAIL {2}Token /.test(l));
    expect(lines[token + 1]).toMatch(/^\s+fix: create a personal token/);
    expect(lines.at(-1)).toMatch(/^\d+ of 10 checks failed/);
    // Not a terminal: no colour codes.
    expect(r.stdout).not.toContain('\u001b[');
  });

  it('fails with no token, and says how to get one', async () => {
    const r = await doctor({ WORKSPACE_URL: sb.url });
    expect(r.code).toBe(1);
    expect(r.check('token').status).toBe('fail');
    expect(r.check('token').detail).toMatch(/no personal token \(WORKSPACE_TOKEN\) and no stored sign-in/);
    expect(r.check('token').fix).toContain('WORKSPACE_TOKEN=pat_');
    expect(r.check('token').fix).toContain(`${sourceLaunch()} login --workspace ${sb.url}`);
    expect(r.check('scope').status).toBe('skip');
  });

  it('fails with a revoked token, and says to create a new one', async () => {
    const own = await startSandbox({ port: 0, logger: () => {} });
    try {
      expect(own.admin.revokeToken(own.tokens.write)).toBe(true);
      const r = await doctor({ WORKSPACE_URL: own.url, WORKSPACE_TOKEN: own.tokens.write });
      expect(r.code).toBe(1);
      expect(r.check('host').status).toBe('pass');
      expect(r.check('token').status).toBe('fail');
      expect(r.check('token').detail).toMatch(/401, revoked/);
      expect(r.check('token').fix).toMatch(/create a new one in API and integrations > API keys/);
    } finally {
      await own.close();
    }
  });

  it('fails a read sign-in when write was wanted, and passes it when read is enough', async () => {
    const own = await startSandbox({ port: 0, logger: () => {}, oauth: { autoConsent: 'read' } });
    const config = await mkdtemp(join(tmpdir(), 'wcm-doctor-oauth-'));
    try {
      // The member asks for write and grants read at consent (the sandbox's automatic consent).
      await signIn({
        workspaceUrl: own.url,
        scope: 'write',
        store: new TokenStore(own.url, config),
        limiter: new RateLimiter(),
        // Played like a browser, without holding up the sign-in that waits for the redirect.
        present: async (url) => void fetch(url).then((res) => res.text()),
      });
      const env = { WORKSPACE_URL: own.url, WORKSPACE_CONFIG_DIR: config };
      const r = await doctor(env);
      expect(r.code).toBe(1);
      expect(r.check('token').detail).toMatch(/^stored OAuth sign-in of Claire Dubois/);
      expect(r.check('scope').status).toBe('fail');
      expect(r.check('scope').detail).toMatch(/read only \(granted at OAuth consent\), but write was wanted/);
      expect(r.check('scope').fix).toContain(`${sourceLaunch()} login --workspace ${own.url} --scope write`);
      expect(r.check('scope').fix).toContain('WORKSPACE_READ_ONLY=true');
      const readOnly = await doctor({ ...env, WORKSPACE_READ_ONLY: 'true' });
      expect(readOnly.check('scope').status).toBe('pass');
      expect(readOnly.report.want).toBe('read');
      expect((await doctor(env, ['--want', 'read'])).code).toBe(0);
    } finally {
      await own.close();
    }
  });

  it('fails an unreachable host (a closed port) and skips what needs it', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const r = await doctor({ WORKSPACE_URL: `http://127.0.0.1:${port}`, WORKSPACE_TOKEN: sb.tokens.write });
    expect(r.code).toBe(1);
    expect(r.check('host').status).toBe('fail');
    expect(r.check('host').detail).toMatch(new RegExp(`nothing answers at http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED`));
    expect(r.check('host').fix).toMatch(/check WORKSPACE_URL \(host and port\)/);
    for (const id of ['oauth', 'token', 'scope', 'openapi', 'rate', 'clock']) expect(r.check(id).status).toBe('skip');
    expect(r.check('downloads').status).toBe('pass');
  });

  describe('a URL that answers a web page', () => {
    let html: Server;
    let url: string;
    beforeAll(async () => {
      html = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end('<!doctype html><html><body><h1>Welcome to Acme</h1></body></html>');
      });
      await new Promise<void>((r) => html.listen(0, '127.0.0.1', r));
      url = `http://127.0.0.1:${(html.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((r) => html.close(() => r())));

    it('fails the host check and says to use the workspace origin', async () => {
      const r = await doctor({ WORKSPACE_URL: url, WORKSPACE_TOKEN: sb.tokens.write });
      expect(r.code).toBe(1);
      expect(r.check('host').status).toBe('fail');
      expect(r.check('host').detail).toBe(`${url} answers a web page (text/html; charset=utf-8), not the Workspace Consulting API`);
      expect(r.check('host').fix).toMatch(/set WORKSPACE_URL to your workspace origin/);
    });
  });

  it('fails a configuration that does not parse, naming the setting', async () => {
    const r = await doctor({ WORKSPACE_URL: 'http://acme.example.com', WORKSPACE_TOKEN: sb.tokens.write });
    expect(r.code).toBe(1);
    expect(r.check('config').status).toBe('fail');
    expect(r.check('config').detail).toMatch(/Invalid WORKSPACE_URL \(--workspace-url\).*use https/);
    expect(r.check('node').status).toBe('pass');
  });

  it("speaks the member's language: French from WORKSPACE_LOCALE or the system locale", async () => {
    const r = await runCli(['doctor'], { ...base(), WORKSPACE_URL: sb.url, LANG: 'fr_FR.UTF-8' });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL {2}Jeton +aucun jeton personnel \(WORKSPACE_TOKEN\) ni connexion enregistrée/);
    expect(r.stdout).toMatch(/correction : créez un jeton personnel/);
  });
});
