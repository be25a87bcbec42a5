// Run before every test file (vitest setupFiles): a child process started with an environment of its
// own (`env: {PATH, HOME, ...}`, as the helpers start servers, and as the MCP SDK's stdio transport
// does with its default environment) still gets the run's temp root (test/setup/temp-root.ts), so
// what it writes to its temp directory goes where the run cleans up; and one given no HOME gets the
// run's home and its XDG folders, where it would otherwise find the user's own. One patch here rather
// than the variables repeated in every spawn of every test: a test written tomorrow is covered too.
import { createRequire, syncBuiltinESMExports } from 'node:module';

const TEMP_VARS = ['TMPDIR', 'TMP', 'TEMP'] as const;
/** Given with HOME, or not at all: a child given a HOME of its own keeps the folders that follow from it. */
const HOME_VARS = ['HOME', 'XDG_CONFIG_HOME', 'XDG_CACHE_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME'] as const;
const PATCHED = Symbol.for('workspace-consulting-mcp.child-env');
const g = globalThis as { [PATCHED]?: boolean };

type Options = { env?: NodeJS.ProcessEnv } & Record<string, unknown>;

/** The options object of a child_process call: the first plain object after the command. */
function withTempRoot(args: unknown[]): unknown[] {
  const at = args.findIndex((a, i) => i > 0 && typeof a === 'object' && a !== null && !Array.isArray(a));
  if (at < 0) return args; // no options: the child inherits process.env, TMPDIR included
  const options = args[at] as Options;
  if (!options.env) return args;
  const unset = (k: string) => options.env?.[k] === undefined && process.env[k] !== undefined;
  const missing = [...TEMP_VARS.filter(unset), ...(options.env.HOME === undefined ? HOME_VARS.filter(unset) : [])];
  if (missing.length === 0) return args;
  const env = { ...options.env, ...Object.fromEntries(missing.map((k) => [k, process.env[k]])) };
  const out = [...args];
  out[at] = { ...options, env };
  return out;
}

if (!g[PATCHED]) {
  g[PATCHED] = true;
  // The builtin's CommonJS object, then its ESM named exports: `import { spawn }` sees the wrapper,
  // and so does `require('child_process').spawn` (cross-spawn, used by the SDK's stdio transport).
  const cp = createRequire(import.meta.url)('node:child_process') as Record<string, unknown>;
  for (const name of ['spawn', 'spawnSync', 'execFile', 'execFileSync', 'exec', 'execSync', 'fork']) {
    const original = cp[name] as (...a: unknown[]) => unknown;
    const wrapped = function (this: unknown, ...args: unknown[]) {
      return original.apply(this, withTempRoot(args));
    };
    // execFile and exec carry their promisified forms (util.promisify.custom): wrapped the same way.
    for (const key of Object.getOwnPropertySymbols(original)) {
      const custom = (original as unknown as Record<symbol, unknown>)[key];
      const value =
        typeof custom === 'function'
          ? function (this: unknown, ...args: unknown[]) {
              return (custom as (...a: unknown[]) => unknown).apply(this, withTempRoot(args));
            }
          : custom;
      Object.defineProperty(wrapped, key, { value, configurable: true });
    }
    cp[name] = wrapped;
  }
  syncBuiltinESMExports();
}
