// Log lines to the MCP client, only for the requests that asked: a 2026-07-28 request names its level
// in its `_meta` (absent: none), a 2025 connection with logging/setLevel. Each request runs in an
// async context that carries where its lines go, so a client only ever sees the lines of its own
// requests (a remote server serves several members: one member's lines never reach another).
import { AsyncLocalStorage } from 'node:async_hooks';
import type { LoggingLevel } from '@modelcontextprotocol/server';
import type { LevelWithSilent } from 'pino';
import type { LogTap } from '../../log.js';

/** pino's levels, by number, and the MCP level each one is sent as. */
const PINO_RANK: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };
const TO_MCP: Record<string, LoggingLevel> = { trace: 'debug', debug: 'debug', info: 'info', warn: 'warning', error: 'error', fatal: 'critical' };
/** MCP's levels as pino's (notice is info; critical and worse are fatal). */
const FROM_MCP: Record<LoggingLevel, keyof typeof PINO_RANK> = {
  debug: 'debug',
  info: 'info',
  notice: 'info',
  warning: 'warn',
  error: 'error',
  critical: 'fatal',
  alert: 'fatal',
  emergency: 'fatal',
};

export function isLoggingLevel(v: unknown): v is LoggingLevel {
  return typeof v === 'string' && v in FROM_MCP;
}

export interface LogSink {
  /** The lowest MCP level the client asked for. */
  level: LoggingLevel;
  send(level: LoggingLevel, data: Record<string, unknown>): void;
}

export class RequestLogRouter {
  readonly #als = new AsyncLocalStorage<LogSink>();
  /** Requests (and their levels) currently forwarding, so pino logs as low as the lowest one asks. */
  readonly #active = new Map<LogSink, number>();

  constructor(private readonly setTap: (tap: LogTap | undefined, minLevel: LevelWithSilent) => void) {}

  /** Run `fn` with its log lines forwarded to `sink` (undefined: nothing is forwarded). */
  async run<T>(sink: LogSink | undefined, fn: () => Promise<T>): Promise<T> {
    if (!sink) return fn();
    this.#active.set(sink, PINO_RANK[FROM_MCP[sink.level]] ?? 30);
    this.#apply();
    try {
      return await this.#als.run(sink, fn);
    } finally {
      this.#active.delete(sink);
      this.#apply();
    }
  }

  #apply(): void {
    if (this.#active.size === 0) {
      this.setTap(undefined, 'info');
      return;
    }
    const lowest = Math.min(...this.#active.values());
    const name = (Object.keys(PINO_RANK).find((k) => PINO_RANK[k] === lowest) ?? 'info') as LevelWithSilent;
    this.setTap((level, entry) => {
      const sink = this.#als.getStore();
      if (!sink) return;
      if ((PINO_RANK[level] ?? 30) < (this.#active.get(sink) ?? Infinity)) return;
      const { level: _n, time: _t, ...rest } = entry;
      sink.send(TO_MCP[level] ?? 'info', rest);
    }, name);
  }
}
