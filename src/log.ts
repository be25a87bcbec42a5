// Logging: pino, to stderr only (stdout is the protocol channel in stdio mode), tokens scrubbed from
// every line whatever field they hide in, and an optional tap that forwards lines to the MCP client.
import { type LevelWithSilent, type Logger, pino } from 'pino';

export type { Logger };

/** Token material: personal tokens, bearer values, and OAuth-looking fields. */
const SECRET_PATTERNS: [RegExp, string][] = [
  [/pat_[A-Za-z0-9_-]{4,}/g, 'pat_[redacted]'],
  // OAuth tokens by their prefixes: the workspace's (wco_) and the remote mode's own (wcm_).
  [/\b(wco|wcm)_(at|rt|ac)_[A-Za-z0-9._-]{8,}/g, '$1_$2_[redacted]'],
  [/(Bearer\s+)[A-Za-z0-9._~+/=-]+/gi, '$1[redacted]'],
  [/("(?:access_token|refresh_token|id_token|token|authorization|code_verifier|client_secret|code)"\s*:\s*")[^"]*(")/gi, '$1[redacted]$2'],
];

/** Remove anything that looks like a token from a serialised line. */
export function scrub(line: string): string {
  let out = line;
  for (const [re, repl] of SECRET_PATTERNS) out = out.replace(re, repl);
  return out;
}

export type LogTap = (level: string, entry: Record<string, unknown>) => void;

const LEVEL_NAMES: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
const LEVEL_VALUES: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };

/**
 * A stderr logger. `tap`, when set later with `setTap`, receives each (scrubbed) entry: the MCP
 * server uses it to forward logs as notifications/message at the level the client asked for.
 */
export function createLogger(level: LevelWithSilent = 'info', write: (line: string) => void = (l) => process.stderr.write(l)) {
  let tap: LogTap | undefined;
  let tapMin = Infinity;
  const stderrMin = LEVEL_VALUES[level] ?? 30;
  const stream = {
    write(raw: string) {
      const line = scrub(raw);
      const lv = Number(/"level":(\d+)/.exec(line)?.[1] ?? 30);
      if (lv >= stderrMin) write(line);
      if (tap && lv >= tapMin) {
        try {
          const entry = JSON.parse(line) as Record<string, unknown>;
          tap(LEVEL_NAMES[entry.level as number] ?? 'info', entry);
        } catch {
          // a line that does not parse is still on stderr; the client just does not get it
        }
      }
    },
  };
  const logger = pino(
    {
      level,
      base: undefined,
      redact: {
        paths: ['token', 'authorization', 'headers.authorization', '*.token', 'access_token', 'refresh_token'],
        censor: '[redacted]',
      },
    },
    stream,
  );
  return {
    logger,
    /** Forward entries at `minLevel` and above to `t`; pino's own level drops to the lower of the two. */
    setTap(t: LogTap | undefined, minLevel: LevelWithSilent = 'info') {
      tap = t;
      tapMin = t ? (LEVEL_VALUES[minLevel] ?? 30) : Infinity;
      const lowest = Math.min(stderrMin, tapMin);
      logger.level = (LEVEL_NAMES[lowest] ?? (lowest === Infinity ? 'silent' : 'info')) as LevelWithSilent;
    },
  };
}
