// Sign-in messages follow the member's language, like the API's and the configuration's.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceLaunch } from '../helpers/cli.js';
import { spawnServer } from '../helpers/spawn.js';

async function run(args: string[], env: Record<string, string>) {
  const child = spawnServer(env, args);
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  child.stdin.end();
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, stderr, stdout };
}

describe('login, logout and status speak the member’s language', () => {
  it('in French under LANG=fr_FR, in English otherwise, on stderr only', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wcm-i18n-'));
    const fr = await run(['status', '--workspace', 'https://acme.example.com'], { WORKSPACE_CONFIG_DIR: dir, LANG: 'fr_FR.UTF-8' });
    expect(fr.code).toBe(1);
    expect(fr.stderr).toContain(`https://acme.example.com : pas de connexion (lancez ${sourceLaunch()} login --workspace https://acme.example.com)`);
    expect(fr.stdout).toBe('');
    const en = await run(['status', '--workspace', 'https://acme.example.com'], { WORKSPACE_CONFIG_DIR: dir, LANG: 'C' });
    expect(en.stderr).toContain(`not signed in (run ${sourceLaunch()} login --workspace https://acme.example.com)`);

    const usage = await run(['login'], { WORKSPACE_CONFIG_DIR: dir, WORKSPACE_LOCALE: 'fr' });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/Indiquez l'espace de travail/);
    const scope = await run(['login', '--workspace', 'https://acme.example.com', '--scope', 'admin'], { WORKSPACE_CONFIG_DIR: dir, WORKSPACE_LOCALE: 'fr' });
    expect(scope.stderr).toMatch(/--scope vaut read ou write\./);
    expect(scope.stderr).not.toContain('admin'); // a misplaced argument may be a secret: never repeated
    const out = await run(['logout', '--workspace', 'https://acme.example.com'], { WORKSPACE_CONFIG_DIR: dir, LANG: 'fr_CA' });
    expect(out.stderr).toMatch(/Aucune connexion à https:\/\/acme\.example\.com ; rien à faire\./);
  });
});
