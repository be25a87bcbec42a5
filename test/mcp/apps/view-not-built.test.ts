// A view read from a server where the views were not built: the error says what to run, never where
// the server's files are (on a shared server the member who reads it is not the server's operator).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { readView, VIEWS } from '../../../src/mcp/apps/views.js';

it("a view that was not built is refused naming what to run, not the server's path", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'wcm-no-views-'));
  try {
    for (const view of Object.values(VIEWS)) {
      let message = '';
      try {
        readView(view.uri, dir);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/not built.*npm run build/);
      expect(message).not.toContain(dir);
      expect(message).not.toContain(process.cwd());
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
