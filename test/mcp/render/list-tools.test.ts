// Every list tool answers in the concise form by default: one table (its name, the row count and the
// columns once, then a row per record), no audit columns, each record's id in it, fewer tokens than
// the detailed form, and the full records in structuredContent. Walked over every paginated
// operation the demo workspace can answer, through the MCP client.
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, demoAnswers, sandboxGetter } from '../../../bench/corpus.js';
import { listNameOf } from '../../../src/mcp/render/index.js';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { type Stack, startStack, textOf } from '../../helpers/stack.js';

let sandbox: SandboxHandle;
let stack: Stack;
let lists: Answer[];
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  stack = await startStack({ sandboxHandle: sandbox, liveOpenApi: false, env: { WORKSPACE_RESPONSE_BUDGET: '100000' } });
  lists = (await demoAnswers(sandboxGetter(sandbox.api, sandbox.tokens.read))).filter((a) => a.op.paginated);
});
afterAll(async () => {
  await stack.close();
  await sandbox.close();
});

const AUDIT = /^(created_at|updated_at|deleted_at|\w+_by|\w*run_id)$/;

describe('each list tool in the concise form', () => {
  it('covers the list tools of the three jobs and most of the catalog', () => {
    const names = lists.map((a) => a.op.name);
    expect(names).toEqual(
      expect.arrayContaining(['list_interviews', 'list_findings', 'list_contradictions', 'list_deliverable_documents', 'list_analysis_runs', 'list_exports']),
    );
    expect(lists.length).toBeGreaterThanOrEqual(30);
  });

  it('is one table with a row per record and no audit column but those its render facet keeps, cheaper than the detailed form, full in structuredContent', async () => {
    const problems: string[] = [];
    for (const a of lists) {
      const items = a.data as Record<string, unknown>[];
      const r = await stack.call(a.op.name, a.args);
      const text = textOf(r);
      const sc = r.structuredContent as { items: unknown[] };
      const name = a.op.name;
      if (r.isError) {
        problems.push(`${name}: ${text.slice(0, 200)}`);
        continue;
      }
      // The full records, as the API answered them.
      if (JSON.stringify(sc.items) !== JSON.stringify(items)) problems.push(`${name}: structuredContent differs from the API's records`);
      const lines = text.split('\n');
      const head = new RegExp(`^${listNameOf(name)}\\[${items.length}\\](\\{([^}]*)\\})?( all with .*)?:$`).exec(lines[0] ?? '');
      if (!head) {
        problems.push(`${name}: head is ${lines[0]}`);
        continue;
      }
      const columns = head[2]?.split('|') ?? [];
      // A facet's kept field is the operation's say: a comment's created_at is when it was said.
      const audit = columns.filter((c) => AUDIT.test(c) && !a.op.render?.keep?.includes(c));
      if (audit.length) problems.push(`${name}: audit columns ${audit.join(', ')}`);
      if (head[1] && lines.slice(1, 1 + items.length).some((l) => l.startsWith('Concise form') || /^\d+ records?/.test(l)))
        problems.push(`${name}: fewer rows than records`);
      for (const it of items) if (typeof it.id === 'string' && !text.includes(it.id)) problems.push(`${name}: record ${it.id} missing`);
      // A head costs a few tokens: a table pays for itself from three rows.
      if (items.length >= 3) {
        const detailed = textOf(await stack.call(name, { ...a.args, response_format: 'detailed' }));
        const [c, d] = [encode(text).length, encode(detailed).length];
        if (c >= d) problems.push(`${name}: concise ${c} tokens, detailed ${d}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
