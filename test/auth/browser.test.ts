// Opening the browser: where none can be started, the caller is told so and prints the URL instead.
import { describe, expect, it } from 'vitest';
import { openBrowser } from '../../src/auth/browser.js';

const url = 'http://127.0.0.1:1/oauth/authorize?client_id=x&state=y';

describe('openBrowser', () => {
  it('does not try on Linux without a display or $BROWSER', async () => {
    expect(await openBrowser(url, 'linux', {})).toBe(false);
  });

  it('reports false when the browser command cannot be started', async () => {
    expect(await openBrowser(url, 'linux', { BROWSER: '/nonexistent/browser-command' })).toBe(false);
  });

  it('reports true once $BROWSER was started with the URL', async () => {
    // `true` exists on every POSIX system and ignores its argument.
    expect(await openBrowser(url, 'linux', { BROWSER: 'true' })).toBe(true);
  });
});
