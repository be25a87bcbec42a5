// Which connections hear that the tool list changed. The server marks a connection once its client
// may hold a list; the transports announce a change to the ones marked.
import type { Server } from '@modelcontextprotocol/server';

/**
 * Servers whose client may hold a tool list, the only ones told it changed: a 2025 connection once
 * it has listed (before, it has nothing stale); a 2026 one also without listing, since its list may
 * come from its response cache, kept across connections (it hears of changes only on a listen
 * stream it opened), from the moment a first listing would answer. The live description merged
 * within the first listing's wait is no change: every listing waited for it.
 */
const listedBy = new WeakSet<Server>();

/** Tell a connection's client the tool list changed, if it may hold one. */
export function announceToolsChanged(server: Server | undefined): void {
  if (server && listedBy.has(server)) void server.sendToolListChanged().catch(() => {});
}

/** A connection's client may now hold a tool list (see listedBy). */
export function markListed(server: Server): void {
  listedBy.add(server);
}
