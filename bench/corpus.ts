// Every readable answer of the demo workspace: each catalog read that answers JSON, called on the
// sandbox with ids of the demo data (the accounts-payable engagement, its first finding, run, ...).
// The corpus the token estimate is measured on (bench/token-estimate.ts), and the list tools the
// rendering tests walk.

import { catalog } from '../catalog/index.js';
import { type Operation, pathParams } from '../src/operation.js';
import * as ids from '../src/sandbox/data/ids.js';

export interface Answer {
  op: Operation;
  /** The arguments it was called with (path parameters, and `limit: 200` for lists). */
  args: Record<string, string | number>;
  /** The answer's `data`. */
  data: unknown;
}

type Get = (path: string) => Promise<{ data?: unknown } | undefined>;

/** A GET on the sandbox's API root with a bearer token: the body, or undefined on an error status. */
export function sandboxGetter(api: string, token: string): Get {
  return async (path) => {
    const res = await fetch(`${api}${path}`, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
    return res.ok ? ((await res.json()) as { data?: unknown }) : undefined;
  };
}

async function firstId(get: Get, path: string): Promise<string | undefined> {
  const body = await get(path);
  const first = Array.isArray(body?.data) ? (body.data[0] as { id?: unknown } | undefined) : undefined;
  return typeof first?.id === 'string' ? first.id : undefined;
}

/** Path parameter values from the demo data; operations needing any other are left out. */
async function demoValues(get: Get): Promise<Record<string, string | undefined>> {
  const E = ids.ENGAGEMENT_AP;
  return {
    engagement: E,
    session: ids.SESSION_AP_CLERK,
    method: ids.METHOD_P2P,
    interview: ids.INTERVIEW_AP_CLERK,
    version: ids.VERSION_AP_1,
    member: ids.MEMBER_CLAIRE,
    kind: 'executive_summary',
    finding: await firstId(get, `/engagements/${E}/findings`),
    contradiction: await firstId(get, `/engagements/${E}/contradictions`),
    proposal: await firstId(get, `/engagements/${E}/change-proposals`),
    run: await firstId(get, `/engagements/${E}/analysis/runs`),
    chapter: await firstId(get, `/interviews/${ids.INTERVIEW_AP_CLERK}/chapters`),
  };
}

/** Each catalog read answering JSON that the demo data can fill, with its answer. */
export async function demoAnswers(get: Get, operations: readonly Operation[] = catalog): Promise<Answer[]> {
  const values = await demoValues(get);
  const out: Answer[] = [];
  for (const op of operations) {
    if (op.method !== 'GET' || op.response !== 'json') continue;
    const params = pathParams(op.path);
    if (params.some((p) => !values[p])) continue;
    const args: Record<string, string | number> = {};
    let path = op.path;
    for (const p of params) {
      args[p] = values[p]!;
      path = path.replace(`{${p}}`, encodeURIComponent(values[p]!));
    }
    if (op.paginated) args.limit = 200;
    const body = await get(op.paginated ? `${path}?limit=200` : path);
    if (body?.data === undefined) continue;
    out.push({ op, args, data: body.data });
  }
  return out;
}
