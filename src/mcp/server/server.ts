// The MCP server: one factory that builds a protocol server for a connection (stdio, a 2025 HTTP
// session) or a request (2026-07-28 HTTP, stateless), serving both protocol eras from the same
// handlers. A server is cheap: what costs (the operations, the live description, each member's
// session and rate budget) lives in the caller's Session and is shared, so the factory can run per
// request. Handlers: tools (listing complete on the first call, the call pipeline), resources,
// prompts, completions, logging for the requests that ask.

import {
  type AuthInfo,
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type ClientCapabilities,
  type InputRequiredResult,
  type McpRequestContext,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { catalog } from '../../../catalog/index.js';
import type { EventSink } from '../../audit/events.js';
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';
import { SERVER_NAME, SERVER_VERSION } from '../../version.js';
import { APP_MIME_TYPE, UI_EXTENSION } from '../apps/views.js';
import { toolCallEvent } from '../pipeline/call-event.js';
import { traceCall } from '../pipeline/call-trace.js';
import { askWithinRequest, Confirmations, canConfirm, SealedConfirmations, type SealedRound } from '../pipeline/confirmation.js';
import type { SignInGate } from '../pipeline/sign-in-prompt.js';
import type { CallContext } from '../pipeline/tool-spec.js';
import { WORKSPACE_CONTENT_RULE } from '../render/index.js';
import { operationCountWords } from '../tools/find-operations.js';
import type { RequestLogRouter } from '../transport/request-log.js';
import { registerCompletion } from './handlers/completion.js';
import { type HandlerContext, registerLogging, sessionOf } from './handlers/context.js';
import { registerPrompts } from './handlers/prompts.js';
import { registerResources } from './handlers/resources.js';
import { registerRoots } from './handlers/roots.js';
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

/** The client capabilities this request declares: its envelope (2026), else the connection's (2025). */
function capabilitiesOf(server: Server, ctx: ServerContext): ClientCapabilities | undefined {
  const env = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const declared = env?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
  return declared ?? server.getClientCapabilities();
}

type ServerFactory = (ctx: McpRequestContext) => Promise<Server>;

/** The client's name a 2026 request carries in its envelope. */
function clientName(env: Record<string, unknown> | undefined): string | undefined {
  const info = env?.[CLIENT_INFO_META_KEY] as { name?: unknown } | undefined;
  return typeof info?.name === 'string' ? info.name : undefined;
}

export function createServerFactory(deps: ServerFactoryDeps): ServerFactory {
  const { config, logs } = deps;
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
    server.setRequestHandler('tools/call', async (req, ctx): Promise<CallToolResult | InputRequiredResult> => {
      if (deps.signIn) {
        const prompt = await deps.signIn.gate(ctx, Boolean(capabilitiesOf(server, ctx)?.elicitation?.url));
        if (prompt) return prompt;
      }
      const token = ctx.mcpReq._meta?.progressToken;
      const call: CallContext = { signal: ctx.mcpReq.signal, uploadDirs };
      if (token !== undefined) {
        // One stream of progress per request, and its values must increase: a job's percentage, a
        // download's bytes, and between them the waits for the rate budget, each a little further on.
        let last = -Infinity;
        const send = (progress: number, total: number | undefined, message: string | undefined) => {
          if (!(progress > last)) return;
          last = progress;
          void ctx.mcpReq
            .notify({
              method: 'notifications/progress',
              params: { progressToken: token, progress, ...(total !== undefined ? { total } : {}), ...(message ? { message } : {}) },
            })
            .catch(() => {});
        };
        call.progress = (done, total, message) => send(done, total, message);
        call.waiting = (ms) => send(Math.max(last, 0) + 0.001, undefined, `waiting for the rate budget: about ${Math.max(1, Math.ceil(ms / 1000))} s`);
      }
      const session = await current(ctx);
      /** The call itself, told to the audit trail when it ends. */
      // `round`: a sealed confirmation's round; one that stopped at its question is no call to tell of,
      // and one the state did not fit answers its refusal (nothing was sent either way).
      const execute = async (c: CallContext, round?: SealedRound): Promise<CallToolResult> => {
        const answer = () => logs.run(sinkFor(ctx), () => session.call(req.params.name, req.params.arguments, c));
        const run = async () => {
          const r = await answer();
          return round?.refusal ?? r;
        };
        if (!deps.events || round?.asked) return server.projectCallToolResult(await run(), undefined);
        const started = performance.now();
        const traced = await traceCall(run);
        const env = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
        const authInfo = ctx.http?.authInfo ?? factoryCtx.authInfo;
        deps.events.emit(
          toolCallEvent({
            tool: req.params.name,
            rpcId: ctx.mcpReq.id,
            who: deps.identify?.(authInfo) ?? { member: 'local', client: clientName(env) ?? server.getClientVersion()?.name ?? 'unknown' },
            traced,
            aborted: c.signal.aborted,
            durationMs: performance.now() - started,
          }),
        );
        if ('error' in traced) throw traced.error;
        return server.projectCallToolResult(traced.value, undefined);
      };
      // A destructive operation asks the user first where the client can show a form: a 2026 call then
      // runs across rounds, each answer handed to the question it answers (pipeline/confirmation.ts).
      const answered = Confirmations.stateOf(ctx);
      if (answered) return confirmations.resume(session, answered, ctx, req.params);
      const sealed = deps.sealedConfirmations;
      const sealedState = SealedConfirmations.stateOf(ctx);
      if (sealed && sealedState) return sealed.resume(ctx, req.params.name, sealedState, (confirm, round) => execute({ ...call, confirm }, round));
      // A 2025 connection is asked within the one request. A 2026 call waits in this process: its
      // retry must come back to it. Replicas of the remote mode share no such state (a balancer may
      // send the retry to another): there a 2026 client is asked without holding the call, for a call
      // that is one operation (its own tool or call_operation, which ask before sending anything);
      // scripts and workflows, which may have run or written before they ask, keep the client's
      // approval and allow.
      if (!canConfirm(capabilitiesOf(server, ctx))) return execute(call);
      if (factoryCtx.era === 'legacy') return execute({ ...call, confirm: askWithinRequest(ctx) });
      if (config.remote === undefined) return confirmations.start(session, ctx, req.params, (confirm, signal) => execute({ ...call, signal, confirm }));
      const oneOperation = req.params.name === 'call_operation' || !session.pipeline.ownTool(req.params.name);
      if (!sealed) return execute(call);
      if (!oneOperation) {
        return execute({
          ...call,
          unconfirmedWhy:
            "On this server a script's destructive calls are not put to the user through the client's form (a script cannot be resumed on another server replica).",
        });
      }
      return sealed.start(ctx, req.params.name, (confirm, round) => execute({ ...call, confirm }, round));
    });

    registerResources(handlers);
    registerPrompts(handlers);
    registerCompletion(handlers);

    deps.onServer?.(server, factoryCtx);
    return server;
  };
}
