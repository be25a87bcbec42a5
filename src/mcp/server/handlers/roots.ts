// The folders uploads may read from: the roots a 2025 client declares, asked lazily and refreshed on
// change, and the operator's upload folders. Only a 2025 connection is asked: 2026-07-28 has no
// server-to-client request to ask with (the SDK refuses roots/list there), so a 2026 client declaring
// roots would only earn a warning per call. Never in remote mode: a member's roots are folders of the
// member's machine, not of the replica (treating them as the server's let a client declaring file:///
// upload any file the service reads).
import { fileURLToPath } from 'node:url';
import type { HandlerContext } from './context.js';

export function registerRoots({ server, deps, factoryCtx }: HandlerContext): () => Promise<string[]> {
  const { config, logger } = deps;
  const askRoots = factoryCtx.era === 'legacy' && config.remote === undefined;
  let roots: string[] | undefined;
  server.setNotificationHandler('notifications/roots/list_changed', () => {
    roots = undefined;
  });
  return async () => {
    if (!roots) {
      roots = [];
      if (askRoots && server.getClientCapabilities()?.roots) {
        try {
          const res = await server.listRoots();
          roots = res.roots.filter((r) => r.uri.startsWith('file://')).map((r) => fileURLToPath(r.uri));
        } catch (err) {
          logger.warn({ err: String(err) }, 'could not list the client roots');
        }
      }
    }
    return [...roots, ...config.uploadDirs];
  };
}
