// Where sign-ins are kept: one file per workspace under the user's configuration directory.
import { homedir } from 'node:os';
import { join } from 'node:path';

const APP_DIR = 'workspace-consulting-mcp';

/** WORKSPACE_CONFIG_DIR, else the platform's per-user configuration directory + the app's folder. */
export function configDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  const override = env.WORKSPACE_CONFIG_DIR?.trim();
  if (override) return override;
  if (platform === 'win32') return join(env.APPDATA || join(homedir(), 'AppData', 'Roaming'), APP_DIR);
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', APP_DIR);
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), APP_DIR);
}

/** A file name for a workspace origin: host and port, nothing a file system could misread. */
export function storeFileName(workspaceUrl: string): string {
  const u = new URL(workspaceUrl);
  const host = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const name = `${host}${u.port ? `_${u.port}` : ''}`.replace(/[^a-z0-9.-]/g, '_');
  return `${name}.json`;
}
