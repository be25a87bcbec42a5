// Opening the sign-in page in the member's browser. When no browser can be started (a server, a
// container, no display), the caller prints the URL instead.
import { spawn } from 'node:child_process';

function command(url: string, platform: NodeJS.Platform, env: NodeJS.ProcessEnv): [string, string[]] | undefined {
  if (platform === 'darwin') return ['open', [url]];
  // rundll32 takes the URL as one argument; `start` would need cmd.exe quoting of & in the query.
  if (platform === 'win32') return ['rundll32', ['url.dll,FileProtocolHandler', url]];
  if (env.DISPLAY || env.WAYLAND_DISPLAY || env.BROWSER) return [env.BROWSER || 'xdg-open', [url]];
  return undefined;
}

/** True when a browser was started with `url`; false when none could be. */
export function openBrowser(url: string, platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const cmd = command(url, platform, env);
  if (!cmd) return Promise.resolve(false);
  return new Promise((resolve) => {
    try {
      const child = spawn(cmd[0], cmd[1], { stdio: 'ignore', detached: true });
      child.once('error', () => resolve(false));
      child.once('spawn', () => {
        child.unref();
        resolve(true);
      });
    } catch {
      resolve(false);
    }
  });
}
