// `npm run screenshots`: writes the screenshots the README and docs/apps.md show (docs/screenshots/).
// They are taken by the apps' browser test (test/mcp/apps/apps-browser.test.ts), which keeps them in
// its temp folder when it runs with the suite: Chromium draws text with the machine's fonts, so a run
// on another machine would rewrite every one of them. Here the test keeps them in docs/screenshots;
// look at the diff before committing it.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const VITEST = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));

const run = spawnSync(process.execPath, [VITEST, 'run', 'test/mcp/apps/apps-browser.test.ts'], {
  cwd: ROOT,
  env: { ...process.env, WCM_SCREENSHOTS_DIR: fileURLToPath(new URL('../docs/screenshots', import.meta.url)) },
  stdio: 'inherit',
});
process.exit(run.status ?? 1);
