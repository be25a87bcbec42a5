// A person who runs the server in a terminal is told what it serves and how to connect a client, on
// stderr; a client piping stdio gets no banner and a clean stdout.
import { spawn, spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderBanner } from '../../src/banner.js';
import { ROOT } from './cli.js';

const hasScript = spawnSync('script', ['--version']).status === 0;

describe('the banner', () => {
  it('gives the exact client lines for this install, with settings but never a token value', () => {
    const text = renderBanner({
      workspace: 'https://acme.workspace-consulting.com',
      embedded: false,
      member: 'Claire Dubois <claire@acme.test> (admin)',
      scope: 'write (granted at OAuth consent)',
      tools: 25,
      transport: 'stdio (JSON-RPC on stdin/stdout)',
      entry: '/opt/wcm/dist/src/cli.js',
      env: { WORKSPACE_URL: 'https://acme.workspace-consulting.com', WORKSPACE_TOKEN: '"$WORKSPACE_TOKEN"' },
    });
    expect(text).toContain('  tools      25\n');
    expect(text).toContain(
      'claude mcp add --transport stdio --scope user --env WORKSPACE_URL=https://acme.workspace-consulting.com --env WORKSPACE_TOKEN="$WORKSPACE_TOKEN" workspace-consulting -- node /opt/wcm/dist/src/cli.js\n',
    );
    expect(text).toContain('npx @modelcontextprotocol/inspector node /opt/wcm/dist/src/cli.js\n');
  });

  it.skipIf(!hasScript)('is printed on stderr when stdin is a terminal, with the member and nothing on stdout', async () => {
    // `script` gives the server a pseudo-terminal; stderr goes to a file, stdout to the terminal log.
    // script's own stdin stays open until the banner is out: a terminal's input does not end by
    // itself, and an early end of input would race the banner against the shutdown it starts.
    const err = join(tmpdir(), `wcm-banner-${process.pid}.err`);
    const child = spawn('script', ['-qec', `node --import tsx src/cli.ts 2>${err}`, '/dev/null'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'silent', TERM: 'dumb' },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const read = () => spawnSync('cat', [err], { encoding: 'utf8' }).stdout ?? '';
    const deadline = Date.now() + 15_000;
    while (!read().includes('Press Ctrl+C to stop.') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    child.stdin.end();
    await exited;
    const stderr = read();
    spawnSync('rm', ['-f', err]);
    expect(stderr).toContain('workspace-consulting-mcp: MCP server ready.');
    expect(stderr).toMatch(/ {2}workspace {2}http:\/\/127\.0\.0\.1:\d+ \(embedded sandbox/);
    expect(stderr).toContain('  member     Claire Dubois <claire.dubois@atelier-conseil.fr> (admin)');
    expect(stderr).toContain('  transport  stdio');
    expect(stderr).toContain(`npx @modelcontextprotocol/inspector node --import tsx ${join(ROOT, 'src/cli.ts')}`);
    expect(stdout.trim()).toBe('');
  }, 30_000);
});
