// What the handlers of one protocol server share: the factory's dependencies, the request context
// the server was built for, the caller's session for a request, and where a request's log lines go.
import { LOG_LEVEL_META_KEY, type McpRequestContext, type Server, type ServerContext } from '@modelcontextprotocol/server';
import { SERVER_NAME } from '../../../version.js';
import { isLoggingLevel, type LogSink } from '../../transport/request-log.js';
import type { ServerFactoryDeps } from '../server.js';
import type { Session } from '../session.js';

export interface HandlerContext {
  server: Server;
  deps: ServerFactoryDeps;
  /** The context the server was built for: its era, and a 2025 session's credentials. */
  factoryCtx: McpRequestContext;
  /** The session a request acts for, asked with that request's own credentials. */
  current(ctx?: ServerContext): Promise<Session>;
  /** Where the log lines of a request go, when its client asked for them. */
  sinkFor(ctx: ServerContext): LogSink | undefined;
}

/**
 * The caller's session, asked on each request with that request's own credentials: a sign-in inside
 * a call can change the member's consent, and in the remote mode the principal is the one each
 * request authenticated as, never the one that opened a 2025 session (which would act for whoever
 * sent its id).
 */
export function sessionOf(deps: ServerFactoryDeps, factoryCtx: McpRequestContext): HandlerContext['current'] {
  return (ctx) => {
    const authInfo = ctx?.http?.authInfo ?? factoryCtx.authInfo;
    return Promise.resolve(deps.sessionFor(authInfo ? { ...factoryCtx, authInfo } : factoryCtx));
  };
}

/**
 * Logging: a 2025 connection asks with logging/setLevel, for its own requests from then on; a 2026
 * request names its level in its `_meta`. The era decides, not whether the request has an envelope: a
 * 2025 request may carry a reserved `_meta` key (a client sending its clientInfo, or a logLevel) and
 * still asks for lines the 2025 way, with logging/setLevel. Returns where a request's lines go.
 */
export function registerLogging(server: Server, factoryCtx: McpRequestContext): HandlerContext['sinkFor'] {
  let connectionLevel: LogSink['level'] | undefined;
  server.setRequestHandler('logging/setLevel', (req) => {
    connectionLevel = req.params.level;
    return {};
  });
  return (ctx) => {
    const env = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
    const level = factoryCtx.era === 'modern' ? env?.[LOG_LEVEL_META_KEY] : connectionLevel;
    if (!isLoggingLevel(level)) return undefined;
    return {
      level,
      send: (lv, data) => void ctx.mcpReq.notify({ method: 'notifications/message', params: { level: lv, logger: SERVER_NAME, data } }).catch(() => {}),
    };
  };
}
