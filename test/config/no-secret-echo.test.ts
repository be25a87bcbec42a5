// A configuration error never repeats the value it refuses: clients keep a server's stderr in log
// files, and a token pasted into the wrong setting (the URL, its user-info or password, the locale,
// the toolsets, an http URL's path...) must not land there. Each refusal names the setting and the
// shape it needs instead. Checked for the six cases the reliability probes found, then for every
// setting and every place in a value a secret could sit, then through the real CLI.
import { spawn } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, SETTINGS } from '../../src/config.js';
import { ROOT } from '../helpers/spawn.js';

const SECRET = 'pat_9f86d081884c7d659a2feaa0c55ad015a3bf4f1b';

/** Every run of 10 characters of `secret` that appears in `text`: none may. */
function leaks(text: string, secret: string): string[] {
  const found: string[] = [];
  for (let i = 0; i + 10 <= secret.length; i++) {
    const piece = secret.slice(i, i + 10);
    if (text.includes(piece) || text.includes(encodeURIComponent(piece))) found.push(piece);
  }
  return found;
}

function refusal(env: Record<string, string>, argv: string[] = []): ConfigError {
  try {
    loadConfig({ LANG: 'C', ...env }, argv);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error(`accepted ${JSON.stringify(env)} ${argv.join(' ')}`);
}

describe('a configuration error never echoes a value that may hold a secret', () => {
  it.each([
    ['a token pasted into WORKSPACE_URL', { WORKSPACE_URL: SECRET }, /^Invalid WORKSPACE_URL \(--workspace-url\): give the workspace origin as a full URL/],
    [
      'a token in the URL user-info',
      { WORKSPACE_URL: `https://${SECRET}@acme.workspace-consulting.com` },
      /^Invalid WORKSPACE_URL .*remove the user name and password/,
    ],
    [
      'a token as the URL password',
      { WORKSPACE_URL: `https://me:${SECRET}@acme.workspace-consulting.com` },
      /^Invalid WORKSPACE_URL .*remove the user name and password/,
    ],
    ['a token pasted into WORKSPACE_LOCALE', { WORKSPACE_LOCALE: SECRET }, /^Invalid WORKSPACE_LOCALE \(--locale\): use en or fr$/],
    [
      'a token pasted into WORKSPACE_TOOLSETS',
      { WORKSPACE_TOOLSETS: `analysis,${SECRET}` },
      /^Invalid WORKSPACE_TOOLSETS \(--toolsets\): name 2 of 2 is not an area; give a comma list of areas from /,
    ],
    ['a token in an http URL path', { WORKSPACE_URL: `http://acme.workspace-consulting.com/${SECRET}` }, /^Invalid WORKSPACE_URL .*use https/],
    [
      'a token in an https URL path',
      { WORKSPACE_URL: `https://acme.workspace-consulting.com/${SECRET}` },
      /^Invalid WORKSPACE_URL .*give the origin only .*without a path/,
    ],
  ])('%s: the setting and the shape it needs, not the value', (_, env, message) => {
    const err = refusal(env);
    expect(err.message).toMatch(message);
    expect(err.setting).toBe(Object.keys(env)[0]);
    expect(leaks(err.message, SECRET)).toEqual([]);
  });

  it('a token after a bare flag or as an unknown option: its position, not its text', () => {
    const stray = refusal({}, ['--read-only', SECRET]);
    expect(stray.message).toBe('Unexpected argument at position 2: options start with --; run with --help for the options.');
    const option = refusal({}, [`--${SECRET}`]);
    expect(option.message).toBe('Unknown option at position 1: run with --help for the options.');
    expect(refusal({}, ['--tokn', SECRET]).message).toBe('Unknown option --tokn: run with --help for the options.');
  });

  // Where a secret can sit in a value, whatever the setting: alone, in a URL's path, user-info,
  // password or query, in a list, beside a number.
  const placements: Array<(s: string) => string> = [
    (s) => s,
    (s) => ` ${s} `,
    (s) => `https://acme.workspace-consulting.com/${s}`,
    (s) => `http://acme.workspace-consulting.com/api/v1/${s}`,
    (s) => `https://${s}@acme.workspace-consulting.com`,
    (s) => `https://me:${s}@acme.workspace-consulting.com`,
    (s) => `https://acme.workspace-consulting.com/?token=${s}`,
    (s) => `redis://:${s}@redis.internal:6379/${s}`,
    (s) => `redis-sentinel://:${s}@10.0.0.1:26379,${s}/${s}`,
    (s) => `ftp://${s}`,
    (s) => `analysis,${s}`,
    (s) => `${s},analysis`,
    (s) => `/srv/uploads:${s}`,
    (s) => `${s}/60`,
    (s) => `12${s}`,
  ];
  const secrets = fc
    .tuple(fc.constantFrom('pat_', 'sk-', 'ghp_', 'Bearer ', ''), fc.uint8Array({ minLength: 16, maxLength: 32 }), fc.constantFrom('hex', 'base64url'))
    .map(([prefix, bytes, encoding]) => prefix + Buffer.from(bytes).toString(encoding as BufferEncoding))
    // A run of one repeated character reads like a setting's own numbers (1000000), not like a secret.
    .filter((s) => new Set(s.replace(/^\w+[_-]/, '')).size > 4);

  it('for every setting and every placement, as an environment variable or a flag', () => {
    const settings = fc.constantFrom(...SETTINGS);
    fc.assert(
      fc.property(
        settings,
        fc.constantFrom(...placements),
        secrets,
        fc.boolean(),
        fc.constantFrom<Record<string, string>>({}, { WORKSPACE_REMOTE: 'true' }, { WORKSPACE_HTTP: 'true' }),
        (setting, place, secret, asFlag, mode) => {
          const value = place(secret);
          let message: string;
          try {
            loadConfig({ LANG: 'C', ...mode, ...(asFlag ? {} : { [setting.env]: value }) }, asFlag ? [`${setting.flag}=${value}`] : []);
            return; // accepted: a folder name or a token in its own setting is not an error
          } catch (err) {
            if (!(err instanceof ConfigError)) throw err;
            message = err.message;
          }
          expect(leaks(message, secret), `${setting.env}=${value}: ${message}`).toEqual([]);
          // And in French.
          let fr = '';
          try {
            loadConfig({ LANG: 'fr_FR.UTF-8', ...mode, [setting.env]: value });
          } catch (err) {
            fr = (err as Error).message;
          }
          expect(leaks(fr, secret), `${setting.env}=${value}: ${fr}`).toEqual([]);
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 1000) },
    );
  });

  it('through the CLI: serve, doctor and login exit on the bad setting, and stderr and stdout hold no part of the token', { timeout: 120_000 }, async () => {
    const run = (args: string[], env: Record<string, string>) =>
      new Promise<{ code: number | null; out: string }>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
          cwd: ROOT,
          env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LANG: 'C', ...env },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        child.stderr.on('data', (c: Buffer) => (out += c.toString()));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, out }));
      });
    const [serve, doctor, login, scope] = await Promise.all([
      run(['serve'], { WORKSPACE_URL: `https://me:${SECRET}@acme.workspace-consulting.com` }),
      run(['doctor', '--json', '--toolsets', `analysis,${SECRET}`], {}),
      run(['login', '--no-browser'], { WORKSPACE_URL: SECRET }),
      run(['login', '--workspace', 'https://acme.workspace-consulting.com', '--scope', SECRET], {}),
    ]);
    expect(login.code).toBe(1);
    expect(login.out).toMatch(/The workspace URL is not a valid URL/);
    expect(leaks(login.out, SECRET)).toEqual([]);
    expect(scope.code).toBe(2);
    expect(scope.out).toMatch(/--scope is read or write\./);
    expect(leaks(scope.out, SECRET)).toEqual([]);
    expect(serve.code).toBe(2);
    expect(serve.out).toMatch(/Invalid WORKSPACE_URL \(--workspace-url\): remove the user name and password/);
    expect(leaks(serve.out, SECRET)).toEqual([]);
    expect(doctor.code).toBe(1);
    expect(doctor.out).toMatch(/Invalid WORKSPACE_TOOLSETS \(--toolsets\): name 2 of 2 is not an area/);
    expect(leaks(doctor.out, SECRET)).toEqual([]);
  });
});
