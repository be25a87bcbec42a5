// What `npm start` / `serve` says when a person, not an MCP client, is on stdin: an MCP server
// otherwise waits silently for JSON-RPC, which looks broken. The banner says what is served and how
// to connect a client, on stderr (stdout stays the protocol channel even here).
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';

export interface BannerInfo {
  workspace: string;
  embedded: boolean;
  /** "Claire Dubois <claire@...> (admin)", or why it is not known. */
  member: string;
  /** The scope the session acts with, and where that is known from. */
  scope: string;
  tools: number | undefined;
  transport: string;
  /** Absolute path of the entry script this install runs (dist/src/cli.js). */
  entry: string;
  /** Settings a client must pass to serve the same workspace; a token only as "$WORKSPACE_TOKEN", expanded by the shell. */
  env: Record<string, string>;
}

/** The running entry script's real path: what a client's configuration must start. */
export function entryScript(argv1: string | undefined = process.argv[1]): string {
  const p = resolve(argv1 ?? 'dist/src/cli.js');
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

export function renderBanner(b: BannerInfo): string {
  const envFlags = Object.entries(b.env).map(([k, v]) => `--env ${k}=${v.startsWith('"$') ? v : quote(v)} `).join('');
  const node = b.entry.endsWith('.ts') ? 'node --import tsx' : 'node';
  const lines = [
    'workspace-consulting-mcp: MCP server ready.',
    `  workspace  ${b.workspace}${b.embedded ? ' (embedded sandbox: demo data in memory, gone when this process ends)' : ''}`,
    `  member     ${b.member}`,
    `  scope      ${b.scope}`,
    `  tools      ${b.tools ?? 'see tools/list'}`,
    `  transport  ${b.transport}`,
    '',
    'This terminal is not an MCP client: the server speaks JSON-RPC on stdin/stdout. Connect one:',
    `  Claude Code:  claude mcp add --transport stdio --scope user ${envFlags}workspace-consulting -- ${node} ${quote(b.entry)}`,
    `  Inspector:    npx @modelcontextprotocol/inspector ${node} ${quote(b.entry)}`,
    '  Try it first: workspace-consulting-mcp demo   |   Diagnose a set-up: workspace-consulting-mcp doctor',
    'Press Ctrl+C to stop.',
  ];
  return `${lines.join('\n')}\n`;
}
