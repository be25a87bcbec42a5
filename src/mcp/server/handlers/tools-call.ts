// tools/call: a call through the session's pipeline, with progress for a client that asked for it, the
// audit trail told of it when it ends, and the user's confirmation of a destructive write where the
// client can show a form (docs/architecture.md, Confirmation by the user).
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type ClientCapabilities,
  type InputRequiredResult,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { toolCallEvent } from '../../pipeline/call-event.js';
import { traceCall } from '../../pipeline/call-trace.js';
import { askWithinRequest, Confirmations, canConfirm, SealedConfirmations, type SealedRound } from '../../pipeline/confirmation.js';
import type { CallContext } from '../../pipeline/tool-spec.js';
import type { HandlerContext } from './context.js';

/** The client capabilities this request declares: its envelope (2026), else the connection's (2025). */
function capabilitiesOf(server: Server, ctx: ServerContext): ClientCapabilities | undefined {
  const env = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const declared = env?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
  return declared ?? server.getClientCapabilities();
}

/** The client's name a 2026 request carries in its envelope. */
function clientName(env: Record<string, unknown> | undefined): string | undefined {
  const info = env?.[CLIENT_INFO_META_KEY] as { name?: unknown } | undefined;
  return typeof info?.name === 'string' ? info.name : undefined;
}

/**
 * Progress for a request that sent a progress token: one stream per request, and its values must
 * increase: a job's percentage, a download's bytes, and between them the waits for the rate budget,
 * each a little further on.
 */
function progressOf(ctx: ServerContext): Pick<CallContext, 'progress' | 'waiting'> {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return {};
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
  return {
    progress: (done, total, message) => send(done, total, message),
    waiting: (ms) => send(Math.max(last, 0) + 0.001, undefined, `waiting for the rate budget: about ${Math.max(1, Math.ceil(ms / 1000))} s`),
  };
}

export function registerToolsCall(h: HandlerContext, confirmations: Confirmations, uploadDirs: () => Promise<string[]>): void {
  const { server, deps, factoryCtx, current, sinkFor } = h;
  server.setRequestHandler('tools/call', async (req, ctx): Promise<CallToolResult | InputRequiredResult> => {
    if (deps.signIn) {
      const prompt = await deps.signIn.gate(ctx, Boolean(capabilitiesOf(server, ctx)?.elicitation?.url));
      if (prompt) return prompt;
    }
    const call: CallContext = { signal: ctx.mcpReq.signal, uploadDirs, ...progressOf(ctx) };
    const session = await current(ctx);
    /**
     * The call itself, told to the audit trail when it ends. `round`: a sealed confirmation's round;
     * one that stopped at its question is no call to tell of, and one the state did not fit answers
     * its refusal (nothing was sent either way).
     */
    const execute = async (c: CallContext, round?: SealedRound): Promise<CallToolResult> => {
      const run = async () => {
        const r = await deps.logs.run(sinkFor(ctx), () => session.call(req.params.name, req.params.arguments, c));
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
    if (deps.config.remote === undefined) return confirmations.start(session, ctx, req.params, (confirm, signal) => execute({ ...call, signal, confirm }));
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
}
