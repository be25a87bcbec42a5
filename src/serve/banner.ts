// What `npm start` / `serve` says when a person, not an MCP client, is on stdin: an MCP server
// otherwise waits silently for JSON-RPC, which looks broken. The banner says what is served and how
// to connect a client, on stderr (stdout stays the protocol channel even here).
import { commandLine, launchCommand, shellWord } from '../launcher.js';

export interface BannerInfo {
  workspace: string;
  embedded: boolean;
  /** "Claire Dubois <claire@...> (admin)", or why it is not known. */
  member: string;
  /** The scope the session acts with, and where that is known from. */
  scope: string;
  tools: number | undefined;
  transport: string;
  /** The command that starts this server again from anywhere; default: launchCommand() (src/launcher.ts). */
  launch?: string[];
  /** @deprecated Ignored: the command comes from `launch`, which also knows npx and bin links. */
  entry?: string;
  /** Settings a client must pass to serve the same workspace; a token only as "$WORKSPACE_TOKEN", expanded by the shell. */
  env: Record<string, string>;
}

/** A setting's value on a command line: a "$VAR" reference is left for the shell to expand. */
const value = (v: string) => (/^"\$\w+"$/.test(v) ? v : shellWord(v));

/**
 * Every command printed here runs as printed from the terminal it is printed in: the client lines
 * start this same install with the settings it serves, and the token only ever as "$WORKSPACE_TOKEN".
 */
export function renderBanner(b: BannerInfo): string {
  const launch = commandLine(b.launch ?? launchCommand());
  const settings = Object.entries(b.env);
  // Claude Code 2.1: the name before --env, which takes several values and would take the name too.
  const claudeEnv = settings.map(([k, v]) => ` --env ${k}=${value(v)}`).join('');
  // The Inspector passes a server only the variables given with -e, not its own environment.
  const inspectorEnv = settings.map(([k, v]) => ` -e ${k}=${value(v)}`).join('');
  const prefix = settings.map(([k, v]) => `${k}=${value(v)} `).join('');
  const lines = [
    'workspace-consulting-mcp: MCP server ready.',
    `  workspace  ${b.workspace}${b.embedded ? ' (embedded sandbox: demo data in memory, gone when this process ends)' : ''}`,
    `  member     ${b.member}`,
    `  scope      ${b.scope}`,
    `  tools      ${b.tools ?? 'see tools/list'}`,
    `  transport  ${b.transport}`,
    '',
    'This terminal is not an MCP client: the server speaks JSON-RPC on stdin/stdout. Connect one:',
    `  Claude Code:  claude mcp add --transport stdio --scope user workspace-consulting${claudeEnv} -- ${launch}`,
    `  Inspector:    npx @modelcontextprotocol/inspector --cli${inspectorEnv} ${launch} --method tools/list`,
    `  Try it first: ${launch} demo`,
    `  Diagnose:     ${prefix}${launch} doctor`,
  ];
  if (settings.some(([, v]) => v.includes('$WORKSPACE_TOKEN'))) {
    lines.push('  (These lines take the token from $WORKSPACE_TOKEN in your shell: export it first if you gave it another way.)');
  }
  lines.push('Press Ctrl+C to stop.');
  return `${lines.join('\n')}\n`;
}
