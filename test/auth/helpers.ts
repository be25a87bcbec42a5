// Shared by the OAuth tests: the CLI as a child process, and a "browser" made of plain HTTP
// requests that follows the sandbox's sign-in page to the loopback redirect.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));

export const tempConfigDir = () => mkdtemp(join(tmpdir(), 'wcm-oauth-'));

/** An environment without any workspace setting of the developer's shell. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  return { ...env, ...extra };
}

export interface CliRun {
  child: ChildProcessWithoutNullStreams;
  stderr: () => string;
  /** Resolves with the first stderr line matching `re` (its match). */
  line(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exit: Promise<number | null>;
}

export function runCli(args: string[], env: NodeJS.ProcessEnv): CliRun {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: root, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  const waiters: { re: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  child.stderr.on('data', (c: Buffer) => {
    err += c.toString();
    for (const w of [...waiters]) {
      const m = err.match(w.re);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    stderr: () => err,
    exit,
    line(re, timeoutMs = 20_000) {
      const m = err.match(re);
      if (m) return Promise.resolve(m);
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no stderr line ${re} within ${timeoutMs} ms; stderr:\n${err}`)), timeoutMs);
        waiters.push({
          re,
          resolve: (x) => {
            clearTimeout(t);
            resolve(x);
          },
        });
        void exit.then((code) => {
          clearTimeout(t);
          reject(new Error(`exited (${code}) before ${re}; stderr:\n${err}`));
        });
      });
    },
  };
}

export const SIGN_IN_LINE = /Open this URL to sign in: (\S+)/;

function hiddenField(html: string, name: string): string {
  const m = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (!m) throw new Error(`no ${name} field in page:\n${html.slice(0, 500)}`);
  return m[1] as string;
}

async function post(url: string, fields: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

/**
 * Walk the sandbox's authorize page as a member would: sign in, two-step code, consent. Returns the
 * redirect the page sends the browser to (the loopback callback), without following it.
 */
export async function consentOnPage(authorizeUrl: string, decision: 'read' | 'write' | 'deny'): Promise<string> {
  const first = await fetch(authorizeUrl, { redirect: 'manual' });
  if (first.status !== 200) throw new Error(`authorize page answered ${first.status}`);
  const page1 = await first.text();
  const txn = hiddenField(page1, 'txn');
  const email = /name="email" value="([^"]*)"/.exec(page1)?.[1] ?? '';
  const action = new URL('/oauth/authorize', authorizeUrl).href;
  const p2 = await post(action, { txn, step: 'signin', email, password: 'sandbox' });
  if (!(await p2.text()).includes('Two-step verification')) throw new Error('sign-in step did not lead to two-step verification');
  const p3 = await post(action, { txn, step: 'two_factor', code: '123456' });
  if (!(await p3.text()).includes('Step 3 of 3')) throw new Error('two-step verification did not lead to consent');
  const done = await post(action, { txn, step: 'consent', decision });
  const location = done.headers.get('location');
  if (done.status !== 303 || !location) throw new Error(`consent answered ${done.status}`);
  return location;
}

/** With the sandbox's automatic consent: the authorize URL redirects at once. */
export async function autoConsent(authorizeUrl: string, scope: 'read' | 'write'): Promise<string> {
  const u = new URL(authorizeUrl);
  u.searchParams.set('sandbox_consent', scope);
  const res = await fetch(u, { redirect: 'manual' });
  const location = res.headers.get('location');
  if (res.status !== 302 || !location) throw new Error(`authorize answered ${res.status}`);
  return location;
}

/** Deliver the redirect to the loopback listener, as the browser would; returns its page. */
export async function deliver(location: string): Promise<{ status: number; body: string }> {
  const res = await fetch(location);
  return { status: res.status, body: await res.text() };
}
