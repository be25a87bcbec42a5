// One logger, several MCP sessions (Streamable HTTP): each session asks for log lines at its own
// level with logging/setLevel, while the logger has a single tap. This keeps one tap per session and
// gives the logger their union at the lowest level any of them wants.
import type { LevelWithSilent } from 'pino';
import type { LogTap } from './log.js';

type TapLevel = 'debug' | 'info' | 'warn' | 'error' | 'fatal';
const RANK: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

export class LogFanout {
  private readonly taps = new Map<object, { tap: LogTap; level: TapLevel }>();

  constructor(private readonly setTap: (tap: LogTap | undefined, minLevel: LevelWithSilent) => void) {}

  /** The `setLogTap` of one session (createMcpServer's dependency), keyed by `session`. */
  forSession(session: object): (tap: LogTap | undefined, level: TapLevel) => void {
    return (tap, level) => {
      if (tap) this.taps.set(session, { tap, level });
      else this.taps.delete(session);
      this.apply();
    };
  }

  /** A closed session stops receiving lines. */
  drop(session: object): void {
    if (this.taps.delete(session)) this.apply();
  }

  private apply(): void {
    const entries = [...this.taps.values()];
    if (entries.length === 0) return this.setTap(undefined, 'info');
    const lowest = entries.reduce((min, e) => (RANK[e.level]! < RANK[min]! ? e.level : min), 'fatal' as TapLevel);
    this.setTap((level, entry) => {
      for (const e of entries) if ((RANK[level] ?? 30) >= RANK[e.level]!) e.tap(level, entry);
    }, lowest);
  }
}
