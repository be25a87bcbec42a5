// resources/templates/list, resources/list and resources/read. Workspace records read through the
// session's pipeline, like every tool call; the apps' views are files of this server, the same for
// every member, read with no workspace request.
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError, type ServerContext } from '@modelcontextprotocol/server';
import { WorkspaceApiError } from '../../../api/errors.js';
import { isViewUri, readView, ViewNotFoundError } from '../../apps/views.js';
import { shownName } from '../../operations/registry.js';
import { listResources, ResourceError, readResource, resourceTemplates } from '../../operations/resources.js';
import { InvocationRefused } from '../../pipeline/invocation-refused.js';
import type { HandlerContext } from './context.js';

/** What resources and completions read with: the session's pipeline. */
export const resourceDeps = async (current: HandlerContext['current'], ctx: ServerContext) => ({ pipeline: (await current(ctx)).pipeline });

export function registerResources({ server, deps, current, sinkFor }: HandlerContext): void {
  const { logger, logs } = deps;
  server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: resourceTemplates() }));
  server.setRequestHandler('resources/list', async (_req, ctx) => {
    try {
      const rd = await resourceDeps(current, ctx);
      return { resources: await logs.run(sinkFor(ctx), () => listResources(rd, ctx.mcpReq.signal)) };
    } catch (err) {
      logger.info({ err: String(err) }, 'could not list engagements as resources');
      return { resources: [] };
    }
  });
  server.setRequestHandler('resources/read', async (req, ctx) => {
    // Hosts find the views from the tools' _meta.ui.resourceUri; resources/list keeps to the
    // workspace's records, as the extension allows.
    if (isViewUri(req.params.uri)) {
      try {
        return readView(req.params.uri);
      } catch (err) {
        if (err instanceof ViewNotFoundError) throw new ResourceNotFoundError(shownName(req.params.uri, 200), err.message);
        throw err;
      }
    }
    try {
      const rd = await resourceDeps(current, ctx);
      return await logs.run(sinkFor(ctx), () => readResource(rd, req.params.uri, ctx.mcpReq.signal));
    } catch (err) {
      if (err instanceof ResourceError && err.notFound) throw new ResourceNotFoundError(shownName(req.params.uri, 200), err.message);
      if (err instanceof ResourceError || err instanceof InvocationRefused) throw new ProtocolError(ProtocolErrorCode.InvalidParams, err.message);
      if (err instanceof WorkspaceApiError && err.status === 404)
        throw new ResourceNotFoundError(shownName(req.params.uri, 200), `HTTP 404 ${err.code}: ${err.message}`);
      if (err instanceof WorkspaceApiError) throw new ProtocolError(ProtocolErrorCode.InternalError, `HTTP ${err.status} ${err.code}: ${err.message}`);
      throw err;
    }
  });
}
