// A raw stdio peer for abuse tests: writes whatever bytes a broken client would, reads stdout line by
// line, and can wait for the answer to an id, for a line that matches, or for the process to exit.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { logged } from '../helpers/logged.js';
import { ROOT, spawnServer } from '../helpers/spawn.js';
import type { LogScan } from './token-scan.js';

export type Rpc = {
  jsonrpc?: string;
  id?: string | number | null;
  result?: unknown;
  error?: { code: number; message: string };
  method?: string;
  params?: unknown;
};

/** The protocol era a raw peer speaks: 2025-11-25 (initialize, then requests) or 2026-07-28 (no handshake). */
export type Era = 'legacy' | 'modern';

/** The `_meta` envelope every request of a 2026-07-28 client carries (as the SDK v2 client sends it). */
export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'abuse', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
} as const;

/** A request's params as a client of the era sends them: a 2026 client's carry the `_meta` envelope. */
export function eraParams(era: Era, params: Record<string, unknown> = {}): Record<string, unknown> {
  if (era === 'legacy') return params;
  const meta = params._meta;
  return { ...params, _meta: { ...MODERN_META, ...(meta !== null && typeof meta === 'object' && !Array.isArray(meta) ? meta : {}) } };
}

/** The built server, as an installed package or bundle runs it (npm run build). */
export const BUILT_CLI = join(ROOT, 'dist/src/cli.js');
export const builtServerExists = () => existsSync(BUILT_CLI);

export class StdioPeer {
  readonly child: ChildProcessWithoutNullStreams;
  readonly messages: Rpc[] = [];
  /** Lines of stdout that were not JSON-RPC (must stay empty). */
  readonly strayLines: string[] = [];
  stderr = '';
  #partial = '';
  /** Who waits for a message (waitFor): told of each one as it comes. */
  readonly #waiters = new Set<(m: Rpc) => void>();
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(mode: 'source' | 'built', env: Record<string, string>, scan?: LogScan) {
    this.child =
      mode === 'source'
        ? spawnServer(env)
        : spawn(process.execPath, [BUILT_CLI], {
            cwd: ROOT,
            env: { PATH: process.env.PATH ?? '', HOME: env.HOME ?? process.env.HOME ?? '', ...env },
            stdio: ['pipe', 'pipe', 'pipe'],
          });
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
    // A peer that writes after the server is gone must not crash the test run.
    this.child.stdin.on('error', () => {});
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (d: string) => {
      this.#partial += d;
      for (let nl = this.#partial.indexOf('\n'); nl >= 0; nl = this.#partial.indexOf('\n')) {
        const line = this.#partial.slice(0, nl);
        this.#partial = this.#partial.slice(nl + 1);
        if (!line) continue;
        try {
          const msg = JSON.parse(line) as Rpc;
          if (msg.jsonrpc === '2.0') {
            this.messages.push(msg);
            for (const w of this.#waiters) w(msg);
          } else this.strayLines.push(line.slice(0, 200));
        } catch {
          this.strayLines.push(line.slice(0, 200));
        }
      }
    });
    this.child.stderr.on('data', (d: Buffer) => (this.stderr += d.toString('utf8')));
    if (scan) scan.tap(this.child.stderr);
  }

  raw(text: string): void {
    this.child.stdin.write(text);
  }

  send(msg: Record<string, unknown>): void {
    this.raw(`${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`);
  }

  initialize(id: number | string = 'init'): void {
    this.send({ id, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'abuse', version: '1' } } });
  }

  /**
   * Opens the connection in an era: a 2025 client initializes and says so; a 2026 client has no
   * handshake (its first request, carrying the envelope, chooses the era).
   */
  async open(era: Era): Promise<void> {
    if (era === 'modern') return;
    this.initialize('init');
    await this.answer('init');
    this.send({ method: 'notifications/initialized' });
  }

  /** The first message `match` accepts, already received or the next one; rejects after `ms`. */
  waitFor(match: (m: Rpc) => boolean, what: string, ms = 20_000): Promise<Rpc> {
    const seen = this.messages.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter = (m: Rpc) => {
        if (!match(m)) return;
        clearTimeout(timer);
        this.#waiters.delete(waiter);
        resolve(m);
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(new Error(`no ${what} within ${ms} ms; stderr: ${this.stderr.slice(-2000)}`));
      }, ms);
      this.#waiters.add(waiter);
    });
  }

  /** Resolves once stderr matches `pattern`; rejects after `ms`. */
  logged(pattern: RegExp, what: string, ms = 20_000): Promise<string> {
    return logged(this.child, () => this.stderr, pattern, what, ms);
  }

  answer(id: string | number, ms?: number): Promise<Rpc> {
    return this.waitFor((m) => m.id === id && (m.result !== undefined || m.error !== undefined), `answer to ${JSON.stringify(id)}`, ms);
  }

  /** Errors answered with a null id (parse errors, unreadable requests), in order. */
  nullIdErrors(): { code: number; message: string }[] {
    return this.messages.filter((m) => m.id === null && m.error).map((m) => m.error as { code: number; message: string });
  }

  async close(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.child.stdin.end();
    return this.exited;
  }
}
