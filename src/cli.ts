#!/usr/bin/env -S node --v8-pool-size=1
// Entry point. One V8 worker thread instead of four: a stdio server's background GC and compilation
// fit in one, and each idle worker only holds memory. `env -S` is understood by Linux, macOS and npm's
// Windows shims. No cap on V8's young generation (--max-semi-space-size): every cap tried made the
// start to the first complete tools/list slower by more than the resident memory it saved was worth
// (bench/run.ts measures both, beside a generic bridge).
// Kept to a dispatcher with no static imports: the compile cache is switched on before
// any module loads, and each command loads only what it needs (serve never loads the sandbox or OAuth
// unless it has to).
import module from 'node:module';

module.enableCompileCache?.();

const USAGE = `workspace-consulting-mcp: MCP server for a Workspace Consulting workspace

Usage:
  workspace-consulting-mcp [serve] [options]   serve MCP over stdio (default)
  workspace-consulting-mcp serve --http [--port N] [--host 127.0.0.1] [options]
                                               serve MCP over Streamable HTTP at http://HOST:PORT/mcp (loopback only)
  workspace-consulting-mcp serve --remote [--host 0.0.0.0] [--port N] --public-url https://PUBLIC [options]
                                               the remote mode: a shared server whose clients each sign in (OAuth)
  workspace-consulting-mcp sandbox [--port N] [--host H] [--time-scale X] [--no-rate-limit] [--admin-token T]
                                   [--auto-consent read|write]
                                               run the embedded sandbox workspace alone
  workspace-consulting-mcp login --workspace URL [--scope read|write] [--no-browser]
                                               sign in with the workspace's OAuth (browser, two-step verification, consent)
  workspace-consulting-mcp logout --workspace URL
                                               revoke and delete the stored sign-in
  workspace-consulting-mcp status [--workspace URL]
                                               who is signed in, with which scope, until when (never a token)
  workspace-consulting-mcp demo [--against URL] [--no-color]
                                               a guided tour: a real MCP client walks the three jobs on the sandbox
                                               (--against: the same walk, read-only, on a real workspace)
  workspace-consulting-mcp doctor [--json] [--want read|write] [options of serve]
                                               check configuration, host, token, scope, rate budget, clock... with a fix for each failure
  workspace-consulting-mcp --help | --version

With no WORKSPACE_URL, serve starts the embedded sandbox and serves its demo workspace.
With WORKSPACE_URL and no WORKSPACE_TOKEN, serve uses the sign-in stored by login (WORKSPACE_CONFIG_DIR
overrides where sign-ins are kept).
Options of serve (each also read from the environment variable shown):
`;

async function main(argv: string[]): Promise<void> {
  // Before any command loads: on a Node older than the floor a dependency fails later, half-way
  // through a session, with a message that names neither Node nor its version.
  const { nodeFloorRefusal } = await import('./node-floor.js');
  const refusal = nodeFloorRefusal();
  if (refusal !== undefined) {
    process.stderr.write(`${refusal}\n`);
    process.exitCode = 1;
    return;
  }
  const [first, ...rest] = argv;
  if (first === '--help' || first === '-h' || first === 'help') {
    const { settingsUsage } = await import('./config.js');
    process.stderr.write(`${USAGE}${settingsUsage()}\n`);
    return;
  }
  if (first === '--version' || first === '-v') {
    const { SERVER_VERSION } = await import('./version.js');
    process.stderr.write(`${SERVER_VERSION}\n`);
    return;
  }
  if (first === 'sandbox') {
    const { runSandboxCommand } = await import('./sandbox/main.js');
    await runSandboxCommand(rest);
    return;
  }
  if (first === 'doctor') {
    const { runDoctor } = await import('./doctor/doctor.js');
    process.exitCode = await runDoctor(rest);
    return;
  }
  if (first === 'demo') {
    const { runDemo } = await import('./demo/demo.js');
    process.exitCode = await runDemo(rest);
    return;
  }
  if (first === 'login' || first === 'logout' || first === 'status') {
    const commands = await import('./auth/commands.js');
    const run = first === 'login' ? commands.runLogin : first === 'logout' ? commands.runLogout : commands.runStatus;
    process.exitCode = await run(rest);
    return;
  }
  const { runServe } = await import('./serve/serve.js');
  await runServe(first === 'serve' ? rest : argv);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`workspace-consulting-mcp: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
