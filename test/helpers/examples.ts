// An entry's example arguments (its `example` facet) with the demo ids filled in: what the tests that
// call every operation send, so a new entry is called without a line written for it there.
import type { Operation } from '../../src/operation.js';
import { ENGAGEMENT_AP, INTERVIEW_AP_CLERK, METHOD_P2P, SESSION_AP_CLERK, VERSION_AP_1 } from '../../src/sandbox/data/ids.js';

const DEMO: Record<string, string> = {
  engagement: ENGAGEMENT_AP,
  interview: INTERVIEW_AP_CLERK,
  method: METHOD_P2P,
  session: SESSION_AP_CLERK,
  version: VERSION_AP_1,
};

/** The example's arguments, `$demo.NAME` replaced by that demo id; undefined for an entry without one. */
export function exampleArguments(op: Pick<Operation, 'name' | 'example'>): Record<string, unknown> | undefined {
  if (!op.example) return undefined;
  return Object.fromEntries(
    Object.entries(op.example).map(([k, v]) => {
      if (typeof v !== 'string' || !v.startsWith('$demo.')) return [k, v];
      const id = DEMO[v.slice('$demo.'.length)];
      if (!id) throw new Error(`${op.name}: example ${k} names ${v}, which is not a demo id (${Object.keys(DEMO).join(', ')})`);
      return [k, id];
    }),
  );
}
