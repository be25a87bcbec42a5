// `workspace-consulting-mcp sandbox`: run the sandbox in the foreground. Prints exactly one JSON line
// on stdout once listening (scripts and tests read it to find the port and tokens); everything else
// goes to stderr.
import { type SandboxOptions, startSandbox } from './index.js';

const USAGE = 'usage: workspace-consulting-mcp sandbox [--port N] [--host H] [--time-scale X] [--no-rate-limit] [--admin-token T] [--auto-consent read|write]';

export function parseSandboxArgs(argv: string[]): SandboxOptions {
  const opts: SandboxOptions = { port: 0 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '') throw new Error(`${flag} needs a value\n${USAGE}`);
      return v;
    };
    switch (flag) {
      case '--port': {
        const n = Number(value());
        if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`--port must be 0..65535\n${USAGE}`);
        opts.port = n;
        break;
      }
      case '--host':
        opts.host = value();
        break;
      case '--time-scale': {
        const x = Number(value());
        if (!(x > 0) || !Number.isFinite(x)) throw new Error(`--time-scale must be a positive number\n${USAGE}`);
        opts.timeScale = x;
        break;
      }
      case '--no-rate-limit':
        opts.rateLimit = false;
        break;
      case '--admin-token':
        opts.adminToken = value();
        break;
      case '--auto-consent': {
        // Every OAuth sign-in is approved at once, as the member owning the demo tokens, with the
        // narrower of the scope asked and this one: tests and people trying the remote mode need no browser.
        const scope = value();
        if (scope !== 'read' && scope !== 'write') throw new Error(`--auto-consent must be read or write\n${USAGE}`);
        opts.oauth = { autoConsent: scope };
        break;
      }
      default:
        throw new Error(`unknown option ${arg}\n${USAGE}`);
    }
  }
  return opts;
}

export async function runSandboxCommand(argv: string[]): Promise<void> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const opts = parseSandboxArgs(argv);
  const sandbox = await startSandbox({ ...opts, logger: log });
  process.stdout.write(`${JSON.stringify({ url: sandbox.url, api: sandbox.api, tokens: sandbox.tokens })}\n`);
  log(`sandbox: listening on ${sandbox.url} (workspace atelier); globex on ${sandbox.workspaces[1]?.url ?? ''}`);
  if (sandbox.adminToken) log(`sandbox: admin endpoint under ${sandbox.url}/__sandbox/`);
  const consent = opts.oauth?.autoConsent;
  if (consent) log(`sandbox: OAuth sign-ins are approved without a page (auto consent: ${consent})`);
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      log(`sandbox: ${signal}, stopping`);
      void sandbox.close().then(resolve);
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}
