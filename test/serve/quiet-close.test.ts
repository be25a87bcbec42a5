// A stdio server whose input ends at once (a client that gave up, `node dist/src/cli.js </dev/null`)
// closes while its first requests to the workspace (the live description) still settle their rate
// budget slots. Closing its store then is no failure of the store: nothing is logged as one.
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { spawnServer } from '../helpers/spawn.js';

it('logs no warning when its input ends as it starts', async () => {
  const home = await mkdtemp(join(tmpdir(), 'wcm-quiet-close-'));
  try {
    for (let run = 0; run < 3; run++) {
      // The embedded sandbox, and the member's SQLite store in a fresh configuration folder.
      const child = spawnServer({ HOME: home, WORKSPACE_CONFIG_DIR: join(home, `config-${run}`), LOG_LEVEL: 'info' }, ['serve']);
      let stderr = '';
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (d: string) => (stderr += d));
      child.stdin.end();
      const [code] = (await once(child, 'exit')) as [number | null];
      const lines = stderr
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { level: number; msg: string });
      expect(lines.map((l) => l.msg)).toContain('shutting down');
      expect(lines.filter((l) => l.level >= 40)).toEqual([]);
      expect(code).toBe(0);
    }
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}, 60_000);
