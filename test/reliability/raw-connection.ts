// One raw MCP connection over either transport, for tests that send whole messages and read their
// answers the same way over stdio (a spawned server) and over HTTP (a `serve --http` child): each
// message gets the answer bearing its id.
import { HttpPeer } from '../helpers/spawn-http.js';
import { type Era, type Rpc, StdioPeer } from './stdio-peer.js';

export type Transport = 'stdio' | 'HTTP';

export interface RawConnection {
  /** Sends one request and resolves with the message answering its id (undefined when none came). */
  exchange(msg: Record<string, unknown>): Promise<Rpc | undefined>;
  /** A 2025 client's initialize answer (undefined in 2026, which has none). */
  initialized: Rpc | undefined;
  /** The stdio server, to check its exit; undefined over HTTP. */
  peer?: StdioPeer;
}

/** A stdio server of its own, spawned with `env`, opened in the era. */
export async function stdioConnection(env: Record<string, string>, era: Era): Promise<RawConnection> {
  const peer = new StdioPeer('source', env);
  await peer.open(era);
  return {
    peer,
    initialized: peer.messages.find((m) => m.id === 'init'),
    async exchange(msg) {
      peer.send(msg);
      return peer.answer(msg.id as string);
    },
  };
}

/** A client of the `serve --http` child listening on `port`, in the era. */
export async function httpConnection(port: number, era: Era): Promise<RawConnection> {
  const peer = await HttpPeer.open(port, era);
  return {
    initialized: peer.initialized,
    exchange: async (msg) => (await peer.send(msg)).messages.find((m) => m.id === msg.id),
  };
}
