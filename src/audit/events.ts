// What the operator is told of: the audit trail's events (one per tool call, sign-in, grant change
// and revocation) and the sinks that take them (the trail itself, the metrics). Each event names who
// (member, client), what (tool, operation as method and path template, the ids from the path), how it
// ended (outcome, HTTP status) and how long it took; never an argument value or a result: what a
// member asked and what the workspace answered stay between them.

/** One API request a tool call made: the operation and the ids in its path, never the query or body. */
export interface AuditedRequest {
  /** `GET /engagements/{engagement}/findings`: the method and the path template. */
  operation: string;
  ids: Record<string, string>;
  status: number;
}

export interface ToolCallEvent {
  event: 'tool_call';
  /** A fresh id per call, for correlating the trail with logs. */
  request_id: string;
  /** The JSON-RPC id the client gave the request (unique only within its connection). */
  rpc_id: string | number | null;
  /** `member:<id>` in the remote mode; `local` for the one member of a local server. */
  member: string;
  /** The MCP client: its OAuth client_id (remote), or the name it gave at connection. */
  client: string;
  tool: string;
  /** The operation of the last request it made (`METHOD /path/{template}`), or null when it made none. */
  operation: string | null;
  /** The ids from that request's path. */
  ids: Record<string, string>;
  /** ok; error (the workspace refused or failed); refused (nothing sent: bad input, policy, rate budget); cancelled; failed (a bug). */
  outcome: 'ok' | 'error' | 'refused' | 'cancelled' | 'failed';
  /** The HTTP status of the last request, or null when none was made. */
  status: number | null;
  duration_ms: number;
  /** Every request when there were several (workflows, jobs followed). */
  requests?: AuditedRequest[];
}

interface SignInEvent {
  event: 'sign_in';
  member: string | null;
  client: string;
  outcome: 'ok' | 'denied' | 'failed';
  scope?: 'read' | 'write';
}

/** A grant started (its code redeemed: the client holds tokens) or changed (a refresh that narrowed its scope). */
interface GrantChangeEvent {
  event: 'grant_change';
  member: string;
  client: string;
  change: 'activated' | 'narrowed';
  scope: 'read' | 'write';
  /** A short, non-secret prefix of the grant's id. */
  grant: string;
}

/** A grant ended (by the client, by reuse of a spent code or refresh token, by the workspace), or an access token revoked. */
interface RevocationEvent {
  event: 'revocation';
  member: string | null;
  client: string;
  what: 'grant' | 'access_token';
  reason: string;
  grant?: string;
}

export type AuditEvent = ToolCallEvent | SignInEvent | GrantChangeEvent | RevocationEvent;

/** Takes operator events: the audit trail writes them, the metrics count them. Never throws, never blocks. */
export interface EventSink {
  emit(e: AuditEvent): void;
}

/** Every sink given, in order (an absent one skipped); undefined when none. */
export function fanOut(...sinks: Array<EventSink | undefined>): EventSink | undefined {
  const all = sinks.filter((s): s is EventSink => s !== undefined);
  if (all.length === 0) return undefined;
  if (all.length === 1) return all[0];
  return {
    emit(e) {
      for (const s of all) s.emit(e);
    },
  };
}
