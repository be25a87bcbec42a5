// The audit trail: each event as one JSON line in a stream of its own, apart from the server's logs,
// where the operator said (WORKSPACE_AUDIT): stderr under the logger name "audit", a file appended to
// and readable by its owner only, or a Redis stream capped in length (XADD MAXLEN ~). Writing is best
// effort and never holds a call back: a failed write is logged as a warning and counted.
import { chmodSync } from 'node:fs';
import { dirname } from 'node:path';
import { pino } from 'pino';
import type { AuditTarget } from '../config.js';
import { makeDirectorySync } from '../fs/directories.js';
import { type Logger, scrub } from '../log.js';
import type { EventSink } from './events.js';

/** The stream key of the Redis trail (under the store's prefix: `wcm:audit` by default). */
export const AUDIT_STREAM = 'audit';

/** What the Redis target needs of the store: one append to a capped stream. */
interface StreamAppender {
  appendToStream(key: string, fields: Record<string, string>, maxLen: number): Promise<void>;
}

export interface AuditTrail extends EventSink {
  close(): Promise<void>;
}

interface OpenAuditOptions {
  /** The server's own logger: where failed writes are reported. */
  logger: Logger;
  /** The shared store (Redis target only): a store being opened is waited for at the first event. */
  store?: StreamAppender | Promise<unknown>;
  /** A write to the trail failed (the metrics count Redis errors). */
  onWriteError?: (err: unknown) => void;
  /** stderr target: where lines go (tests). Default process.stderr. */
  stderr?: { write(line: string): unknown };
}

function isAppender(s: unknown): s is StreamAppender {
  return typeof s === 'object' && s !== null && typeof (s as StreamAppender).appendToStream === 'function';
}

/** The trail the operator asked for. */
export function openAuditTrail(target: AuditTarget, opts: OpenAuditOptions): AuditTrail {
  const failed = (err: unknown) => {
    opts.logger.warn({ err: err instanceof Error ? err.message : String(err), target: target.kind }, 'an audit event could not be written');
    opts.onWriteError?.(err);
  };
  if (target.kind === 'redis') {
    const store = opts.store;
    let pending = Promise.resolve();
    return {
      emit(e) {
        const line = JSON.stringify({ time: new Date().toISOString(), ...e });
        // In order, one after the other: the stream's order is the events'.
        pending = pending
          .then(async () => {
            const s = await store;
            if (!isAppender(s)) throw new Error('the audit trail in Redis needs the Redis store (REDIS_URL)');
            await s.appendToStream(AUDIT_STREAM, { event: scrub(line) }, target.maxLen);
          })
          .catch(failed);
      },
      close: () => pending,
    };
  }
  const base = { name: 'audit', base: undefined, level: 'info', timestamp: pino.stdTimeFunctions.isoTime } as const;
  let writer: pino.Logger;
  let flush: () => Promise<void> = async () => {};
  if (target.kind === 'file') {
    // Appended, owner-only: created 0600, and brought back to it if it was there with wider rights.
    makeDirectorySync(dirname(target.path));
    const dest = pino.destination({ dest: target.path, append: true, sync: true, mode: 0o600 });
    chmodSync(target.path, 0o600);
    writer = pino(base, { write: (l: string) => void dest.write(scrub(l)) });
    flush = async () => {
      dest.flushSync();
      dest.end();
    };
  } else {
    const out = opts.stderr ?? process.stderr;
    writer = pino(base, { write: (l: string) => void out.write(scrub(l)) });
  }
  return {
    emit(e) {
      try {
        writer.info(e, e.event);
      } catch (err) {
        failed(err);
      }
    },
    close: flush,
  };
}
