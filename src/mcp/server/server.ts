// The MCP server: one factory that builds a protocol server for a connection (stdio, a 2025 HTTP
// session) or a request (2026-07-28 HTTP, stateless), serving both protocol eras from the same
// handlers. A server is cheap: what costs (the operations, the live description, each member's
// session and rate budget) lives in the caller's Session and is shared, so the factory can run per
// request. Each handler registers from its own file in ./handlers: tools/list (complete on the first
// call), tools/call (the call pipeline, progress, audit, confirmation), resources, prompts,
// completions, roots, logging for the requests that ask.

import { type AuthInfo, type McpRequestContext, Server, type ServerContext } from '@modelcontextprotocol/server';
import { catalog } from '../../../catalog/index.js';
import type { EventSink } from '../../audit/events.js';
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';
import { SERVER_NAME, SERVER_VERSION } from '../../version.js';
import { APP_MIME_TYPE, UI_EXTENSION } from '../apps/views.js';
import { Confirmations, type SealedConfirmations } from '../pipeline/confirmation.js';
import type { SignInGate } from '../pipeline/sign-in-prompt.js';
import { WORKSPACE_CONTENT_RULE } from '../render/index.js';
import { operationCountWords } from '../tools/find-operations.js';
import type { RequestLogRouter } from '../transport/request-log.js';
import { registerCompletion } from './handlers/completion.js';
import { type HandlerContext, registerLogging, sessionOf } from './handlers/context.js';
import { registerPrompts } from './handlers/prompts.js';
import { registerResources } from './handlers/resources.js';
import { registerRoots } from './handlers/roots.js';
import { registerToolsCall } from './handlers/tools-call.js';
import { registerToolsList } from './handlers/tools-list.js';
import type { Session } from './session.js';

// Said once here instead of in every description: what every tool has in common.
const INSTRUCTIONS = [
  'Tools for one Workspace Consulting workspace (consulting audits: engagements, interviews, transcripts, findings, deliverables).',
  'Ids are 26-character ULIDs taken from earlier results; never invent them.',
  'Lists return 50 items by default (limit up to 200); when next_cursor is set, call again with cursor to get the next page. List tools also take fields (names to keep) to make answers smaller.',
  'Long answers are cut at a record boundary with a note saying how to get the rest.',
  WORKSPACE_CONTENT_RULE,
  'Tools marked destructive delete or irreversibly commit: confirm with the user first.',
].join(' ');
const CODE_NOTE =
  'Code mode: run_read_script and run_write_script reach every operation and tool of this server as api.<name>(args); find_operations finds operations, describe_operation shows a signature.';
const GATEWAY_NOTE = `Only a few tools are listed: find_operations searches every other operation (${operationCountWords(catalog.length)}), describe_operation shows one, call_operation runs it.`;

/**
 * Cache hints of the 2026-07-28 lists. Tools change only when the live description adds operations
 * (announced on the listen stream) and differ by member (their consent): private. Prompts and
 * templates are the same for everyone. Resource reads are live workspace data: not cached.
 */
const CACHE_HINTS = {
  'tools/list': { ttlMs: 5 * 60_000, cacheScope: 'private' },
  'prompts/list': { ttlMs: 60 * 60_000, cacheScope: 'public' },
  'resources/templates/list': { ttlMs: 60 * 60_000, cacheScope: 'public' },
  'resources/list': { ttlMs: 60_000, cacheScope: 'private' },
  'resources/read': { ttlMs: 0, cacheScope: 'private' },
  'server/discover': { ttlMs: 60 * 60_000, cacheScope: 'public' },
} as const;

export interface ServerFactoryDeps {
  config: Config;
  logger: Logger;
  logs: RequestLogRouter;
  /** The caller's session: the one member of a local server; in the remote mode, the request's member. */
  sessionFor(ctx: McpRequestContext): Session | Promise<Session>;
  /** A local server on the member's OAuth sign-in: calls prompt to sign in through input_required. */
  signIn?: SignInGate;
  /** Each server built (stdio keeps its pinned one to announce list changes to it). */
  onServer?(server: Server, ctx: McpRequestContext): void;
  /** The operator's audit trail and metrics: told of every tool call. */
  events?: EventSink;
  /**
   * The remote mode: confirmations of 2026 clients asked and answered without holding the call, so a
   * retry may reach any replica (pipeline/confirmation.ts).
   */
  sealedConfirmations?: SealedConfirmations;
  /**
   * Who a request acts for, as the audit trail names them: the remote mode's member and OAuth client.
   * Unset (a local server): the one member, `local`, and the name the client gave.
   */
  identify?(authInfo: AuthInfo | undefined): { member: string; client: string } | undefined;
}

type ServerFactory = (ctx: McpRequestContext) => Promise<Server>;

export function createServerFactory(deps: ServerFactoryDeps): ServerFactory {
  const { config } = deps;
  const instructions =
    config.toolsets === 'default' ? `${INSTRUCTIONS} ${GATEWAY_NOTE}` : config.toolsets === 'code' ? `${INSTRUCTIONS} ${CODE_NOTE}` : INSTRUCTIONS;

  // Calls waiting for their user's confirmation, shared by the servers this factory builds (a 2026
  // request's server lives for that request only; the call it started goes on across rounds).
  const confirmations = new Confirmations();
  /** A state a client sent back: a confirmation's, or else a sign-in's. */
  const verifyState = async (state: string, ctx: ServerContext): Promise<unknown> => {
    try {
      return await confirmations.verify(state, ctx);
    } catch (err) {
      if (deps.sealedConfirmations) {
        try {
          return await deps.sealedConfirmations.verify(state, ctx);
        } catch {
          // Not a sealed confirmation's either: a sign-in's, or none.
        }
      }
      if (deps.signIn) return deps.signIn.verify(state, ctx);
      throw err;
    }
  };

  return async (factoryCtx) => {
    const current = sessionOf(deps, factoryCtx);
    const server = new Server(
      { name: SERVER_NAME, title: 'Workspace Consulting', version: SERVER_VERSION },
      {
        capabilities: {
          tools: { listChanged: true },
          resources: {},
          prompts: {},
          completions: {},
          logging: {},
          // MCP Apps: three tools name a view (ui:// resources) a host that supports it renders.
          extensions: { [UI_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } },
        },
        instructions,
        cacheHints: CACHE_HINTS,
        requestState: { verify: verifyState },
      },
    );
    const sinkFor = registerLogging(server, factoryCtx);
    const handlers: HandlerContext = { server, deps, factoryCtx, current, sinkFor };
    const uploadDirs = registerRoots(handlers);
    registerToolsList(handlers);
    registerToolsCall(handlers, confirmations, uploadDirs);
    registerResources(handlers);
    registerPrompts(handlers);
    registerCompletion(handlers);

    deps.onServer?.(server, factoryCtx);
    return server;
  };
}
