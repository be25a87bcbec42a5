// tools/list: the session's whole listing, complete on the first call (it waits, bounded, for the
// live description), and the mark that this connection's client may now hold a list to be told of.
import { markListed } from '../../transport/list-changes.js';
import type { HandlerContext } from './context.js';

export function registerToolsList({ server, factoryCtx, current }: HandlerContext): void {
  if (factoryCtx.era === 'modern') {
    // Asked after this request is built (a session that cannot be had fails the request, not this).
    void Promise.resolve()
      .then(() => current())
      .then((session) => session.operations.listable())
      .then(
        () => markListed(server),
        () => {},
      );
  }
  server.setRequestHandler('tools/list', async (_req, ctx) => {
    const session = await current(ctx);
    await session.operations.listReady();
    markListed(server);
    return { tools: session.tools() };
  });
}
