// A tool call as the audit trail records it: who, which tool, the operation and path ids of the
// requests it made (as published by the API client, so what was sent), how it ended and how long it
// took. Built from the call's outcome and trace only: the arguments and the result's content never
// enter it (a result is read for whether it is an error and, for a refusal, its error code).
import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ApiAnswerEvent } from '../../api/diagnostics.js';
import type { AuditedRequest, ToolCallEvent } from '../../audit/events.js';

/** Tool names are the catalog's (snake case); anything else a client sends is cut and marked. */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

interface ToolCallFacts {
  tool: string;
  rpcId: string | number | undefined;
  who: { member: string; client: string };
  traced: { value: CallToolResult; answers: ApiAnswerEvent[] } | { error: unknown; answers: ApiAnswerEvent[] };
  /** The request's signal had aborted when it ended. */
  aborted: boolean;
  durationMs: number;
}

export function toolCallEvent(f: ToolCallFacts): ToolCallEvent {
  const requests: AuditedRequest[] = f.traced.answers.map((a) => ({ operation: `${a.method} ${a.path}`, ids: a.ids, status: a.status }));
  const last = requests.at(-1);
  let outcome: ToolCallEvent['outcome'];
  if ('error' in f.traced) outcome = f.aborted ? 'cancelled' : 'failed';
  else if (!f.traced.value.isError) outcome = 'ok';
  else outcome = requests.length === 0 ? 'refused' : 'error';
  return {
    event: 'tool_call',
    request_id: randomUUID(),
    rpc_id: f.rpcId ?? null,
    member: f.who.member,
    client: f.who.client.slice(0, 200),
    tool: TOOL_NAME.test(f.tool) ? f.tool : `(unlisted name of ${f.tool.length} characters)`,
    operation: last?.operation ?? null,
    ids: last?.ids ?? {},
    outcome,
    status: last?.status ?? null,
    duration_ms: Math.round(f.durationMs),
    ...(requests.length > 1 ? { requests } : {}),
  };
}
