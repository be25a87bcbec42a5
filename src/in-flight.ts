// Requests a transport has received and not yet answered, so a shutdown can let them finish before
// it closes the server (which cancels whatever is left). Watched at the transport, where every
// request and every answer passes, whatever the handler: the same for stdio and for HTTP sessions.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

export interface InFlight {
  readonly size: number;
  /** Resolves true once nothing is in flight, or false when `timeoutMs` passes first. */
  drained(timeoutMs: number): Promise<boolean>;
}

type Message = { id?: unknown; method?: unknown; params?: { requestId?: unknown }; result?: unknown; error?: unknown };

/** Call after `server.connect(transport)`: it wraps the handlers the server installed. */
export function trackInFlight(transport: Transport): InFlight {
  const pending = new Set<unknown>();
  let waiters: (() => void)[] = [];
  const settle = () => {
    if (pending.size > 0) return;
    for (const w of waiters.splice(0)) w();
  };

  const onmessage = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const m = message as Message;
    if (m.method !== undefined && m.id !== undefined) pending.add(m.id);
    onmessage?.(message, extra);
    // A request the client cancelled gets no answer at all.
    if (m.method === 'notifications/cancelled' && pending.delete(m.params?.requestId)) settle();
  };
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    const m = message as Message;
    try {
      return await send(message, options);
    } finally {
      if (m.method === undefined && m.id !== undefined && (m.result !== undefined || m.error !== undefined)) {
        pending.delete(m.id);
        settle();
      }
    }
  };

  return {
    get size() {
      return pending.size;
    },
    drained(timeoutMs) {
      if (pending.size === 0) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          waiters = waiters.filter((w) => w !== done);
          resolve(false);
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          resolve(true);
        };
        waiters.push(done);
      });
    },
  };
}
