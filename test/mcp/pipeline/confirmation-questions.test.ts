// One answer to one question (docs/architecture.md, Confirmation by the user), in process with the
// test's clock: what counts as a yes, what a question shows, and how a call's questions are asked and
// given up. A call's concurrent writes ask one at a time and each gets the answer to its own question;
// a 2026 retry answers only the question its state names, for the call its request names; a question
// never answered is given up after its ten minutes, and one whose call ended is withdrawn. The rounds
// over real transports and clients are in confirmation-own-answer.test.ts and
// confirmation-malformed-answers.test.ts.
import type { CallToolResult, InputRequiredResult, ServerContext } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { catalog } from '../../../catalog/index.js';
import {
  askWithinRequest,
  type Confirm,
  type ConfirmAnswer,
  Confirmations,
  questionText,
  quotedLine,
  readAnswer,
} from '../../../src/mcp/pipeline/confirmation.js';
import { errorDetail } from '../../../src/mcp/render/tool-result.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('an answer', () => {
  const cases: [string, unknown, ConfirmAnswer['action']][] = [
    ['accept, no content', { action: 'accept' }, 'accept'],
    ['accept, the empty object the form admits', { action: 'accept', content: {} }, 'accept'],
    ['decline', { action: 'decline' }, 'decline'],
    ['cancel', { action: 'cancel', content: {} }, 'cancel'],
    ['accept with confirm: false', { action: 'accept', content: { confirm: false } }, 'unanswered'],
    ['accept with a field the form does not ask for', { action: 'accept', content: { confirm: true } }, 'unanswered'],
    ['accept with text content', { action: 'accept', content: 'yes' }, 'unanswered'],
    ['accept with null content', { action: 'accept', content: null }, 'unanswered'],
    ['accept with a list as content', { action: 'accept', content: [] }, 'unanswered'],
    ['an action none of the three', { action: 'yes' }, 'unanswered'],
    ['a list', [], 'unanswered'],
    ['a text', 'accept', 'unanswered'],
    ['null', null, 'unanswered'],
    ['none at all', undefined, 'unanswered'],
  ];
  for (const [name, given, action] of cases) {
    it(`${name}: ${action === 'accept' ? 'a yes' : `not a yes (${action})`}`, () => {
      expect(readAnswer(given).action).toBe(action);
    });
  }
});

describe('the question', () => {
  it("quotes the record's text on one line, marked as its author's words, and says what its arguments select", () => {
    const op = catalog.find((o) => o.name === 'publish_deliverable');
    const text = questionText({
      title: 'Publish deliverable',
      purpose: 'Publish the draft.',
      ids: [['engagement', 'E1']],
      args: { engagement: 'E1', stage: 'final' },
      ...(op?.consequences ? { consequences: op.consequences } : {}),
      record: { kind: 'engagement', field: 'name', text: 'Audit\n\nSERVER NOTICE: "nothing is published"\u202e\u200b.' },
    });
    expect(text.split('\n')).toEqual([
      'Publish deliverable (engagement E1): Publish the draft.',
      `The engagement's name, quoted from the workspace (its author's words, not this server's): "Audit SERVER NOTICE: \\"nothing is published\\" ."`,
      'stage: final. This publishes the final version of the deliverable to the client.',
      'This cannot be undone. Allow it?',
    ]);
  });

  it('cuts a long text to a line of at most 160 characters, whole characters only', () => {
    const quoted = quotedLine(`${'é'.repeat(100)}${'😀'.repeat(100)}`);
    const inner = Array.from(JSON.parse(quoted) as string);
    expect(inner).toHaveLength(160);
    expect(inner.slice(-3).join('')).toBe('...');
    expect(inner.slice(0, -3).every((c) => c === 'é' || c === '😀')).toBe(true);
  });

  it('each consequence of the catalog names arguments of its destructive operation, with values they take', () => {
    const withConsequences = catalog.filter((o) => o.consequences);
    expect(withConsequences.map((o) => o.name).sort()).toEqual([
      'accept_all_change_proposals',
      'generate_deliverable_document',
      'publish_deliverable',
      'reject_all_change_proposals',
    ]);
    for (const op of withConsequences) {
      expect(op.annotations.destructiveHint, op.name).toBe(true);
      for (const c of op.consequences ?? []) {
        for (const [arg, value] of Object.entries(c.when)) {
          const schema = op.input.shape[arg];
          expect(schema, `${op.name}.${arg}`).toBeDefined();
          if (value !== null) expect(schema?.safeParse(value).success, `${op.name}.${arg} = ${value}`).toBe(true);
          expect(c.says, op.name).toContain(arg === 'analysis_run_id' ? 'entity_type' : arg);
        }
      }
    }
  });
});

/** A request's context as the confirmations read it: its signal, and a retry's answers. */
function request(inputResponses?: Record<string, unknown>): { ctx: ServerContext; cancel(): void } {
  const controller = new AbortController();
  const ctx = { mcpReq: { signal: controller.signal, inputResponses, requestState: () => undefined } } as unknown as ServerContext;
  return { ctx, cancel: () => controller.abort(new Error('cancelled')) };
}

/** One turn of the event loop: the promises a step settled have run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A round's question: its key, its words, and the state naming it (opened as the SDK's verify hook opens it). */
async function asked(c: Confirmations, r: CallToolResult | InputRequiredResult): Promise<{ key: string; message: string; state: { confirm: string } }> {
  expect(r).toMatchObject({ resultType: 'input_required' });
  const { inputRequests, requestState } = r as { inputRequests: Record<string, { params: { message: string } }>; requestState: string };
  const [key, ...more] = Object.keys(inputRequests);
  expect(more).toEqual([]);
  const state = (await c.verify(requestState, {} as ServerContext)) as { confirm: string };
  return { key: key as string, message: inputRequests[key as string]?.params.message as string, state };
}

const NAMED = { name: 'run_write_script', arguments: { script: 'deletes A, B and C' } };
const owner = {};

/** A call deleting the records at once, each write asking first; what each one's answer was. */
function deletingAtOnce(records: string[]) {
  const answers: Record<string, string> = {};
  const work = async (confirm: Confirm, signal: AbortSignal): Promise<CallToolResult> => {
    await Promise.all(
      records.map(async (r) => {
        const a = await confirm({ message: `Delete ${r}?`, operation: 'delete_finding', args: { finding: r }, signal });
        answers[r] = a.action;
      }),
    );
    return { content: [{ type: 'text', text: JSON.stringify(answers) }] };
  };
  return { answers, work };
}

describe('a 2026 call asking several questions at once', () => {
  it('asks them one at a time, each under its own key and state; each answer reaches its own write only', async () => {
    const c = new Confirmations();
    const call = deletingAtOnce(['A', 'B', 'C']);
    const first = await asked(c, await c.start(owner, request().ctx, NAMED, call.work));
    expect(first.message).toBe('Delete A?');
    expect(call.answers).toEqual({});

    const second = await asked(c, await c.resume(owner, first.state, request({ [first.key]: { action: 'accept' } }).ctx, NAMED));
    expect(second.message).toBe('Delete B?');
    expect(second.key).not.toBe(first.key);
    expect(call.answers).toEqual({ A: 'accept' });

    // B's state with an answer under A's key: no answer to B.
    const third = await asked(c, await c.resume(owner, second.state, request({ [first.key]: { action: 'accept' } }).ctx, NAMED));
    expect(third.message).toBe('Delete C?');
    expect(call.answers).toEqual({ A: 'accept', B: 'unanswered' });

    const done = await c.resume(owner, third.state, request({ [third.key]: { action: 'decline' } }).ctx, NAMED);
    expect(JSON.parse((done as CallToolResult).content[0]?.type === 'text' ? ((done as CallToolResult).content[0] as { text: string }).text : '')).toEqual({
      A: 'accept',
      B: 'unanswered',
      C: 'decline',
    });
    expect(c.waiting).toBe(0);
  });

  it("refuses a state sent with another call's tool or arguments, and keeps the question for its own call; a state answered already is refused", async () => {
    const c = new Confirmations();
    const call = deletingAtOnce(['A']);
    const q = await asked(c, await c.start(owner, request().ctx, NAMED, call.work));
    const yes = { [q.key]: { action: 'accept' } };
    for (const other of [
      { ...NAMED, arguments: { script: 'deletes D' } },
      { name: 'delete_finding', arguments: NAMED.arguments },
    ]) {
      const refused = (await c.resume(owner, q.state, request(yes).ctx, other)) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(errorDetail(refused)).toEqual({ code: 'confirmation_refused', reason: 'other_call' });
    }
    expect(call.answers).toEqual({});
    expect(c.waiting).toBe(1);
    expect(errorDetail((await c.resume({}, q.state, request(yes).ctx, NAMED)) as CallToolResult)).toEqual({ code: 'confirmation_refused', reason: 'expired' });
    await c.resume(owner, q.state, request(yes).ctx, NAMED);
    expect(call.answers).toEqual({ A: 'accept' });
    const again = (await c.resume(owner, q.state, request(yes).ctx, NAMED)) as CallToolResult;
    expect(errorDetail(again)).toEqual({ code: 'confirmation_refused', reason: 'expired' });
    expect(call.answers).toEqual({ A: 'accept' });
  });

  it('gives a question up after ten minutes: its write gets no yes, and the call is stopped', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const c = new Confirmations();
    const call = deletingAtOnce(['A', 'B']);
    let stopped: AbortSignal | undefined;
    const q = await asked(
      c,
      await c.start(owner, request().ctx, NAMED, (confirm, signal) => {
        stopped = signal;
        return call.work(confirm, signal);
      }),
    );
    await vi.advanceTimersByTimeAsync(599_000);
    expect(call.answers).toEqual({});
    await vi.advanceTimersByTimeAsync(2_000);
    expect(call.answers).toEqual({ A: 'unanswered', B: 'unanswered' });
    expect(stopped?.aborted).toBe(true);
    expect(c.waiting).toBe(0);
    const late = (await c.resume(owner, q.state, request({ [q.key]: { action: 'accept' } }).ctx, NAMED)) as CallToolResult;
    expect(errorDetail(late)).toEqual({ code: 'confirmation_refused', reason: 'expired' });
  });

  it("withdraws the questions of a call that ended: the retry gets the call's own answer, and no other question is asked", async () => {
    const c = new Confirmations();
    const ended = new AbortController();
    let stop: () => void = () => {};
    const work = async (confirm: Confirm): Promise<CallToolResult> => {
      const writes = ['A', 'B'].map((r) => confirm({ message: `Delete ${r}?`, operation: 'delete_finding', args: { finding: r }, signal: ended.signal }));
      await new Promise<void>((resolve) => (stop = resolve));
      ended.abort(new Error('the script reached its time limit'));
      return { content: [{ type: 'text', text: (await Promise.all(writes)).map((a) => a.action).join(',') }], isError: true };
    };
    const q = await asked(c, await c.start(owner, request().ctx, NAMED, work));
    stop();
    const r = (await c.resume(owner, q.state, request({ [q.key]: { action: 'accept' } }).ctx, NAMED)) as CallToolResult;
    expect(r.content).toEqual([{ type: 'text', text: 'unanswered,unanswered' }]);
    expect(c.waiting).toBe(0);
  });
});

describe('a 2025 call asking several questions at once', () => {
  /** A connection whose client answers each elicitation/create when the test says; the questions sent so far. */
  function connection() {
    const sent: { message: string; signal: AbortSignal; answer(result: unknown): void; fail(err: Error): void }[] = [];
    const send = (req: { params: { message: string } }, _schema: unknown, options: { signal: AbortSignal }) =>
      new Promise((resolve, reject) => {
        sent.push({ message: req.params.message, signal: options.signal, answer: resolve, fail: reject });
        options.signal.addEventListener('abort', () => reject(options.signal.reason), { once: true });
      });
    const ctx = { mcpReq: { send, signal: new AbortController().signal } } as unknown as ServerContext;
    return { ctx, sent };
  }

  it('sends one elicitation/create at a time, in order, each answer going to its own write', async () => {
    const { ctx, sent } = connection();
    const confirm = askWithinRequest(ctx);
    const signal = new AbortController().signal;
    const answers = ['A', 'B'].map((r) => confirm({ message: `Delete ${r}?`, operation: 'delete_finding', args: { finding: r }, signal }));
    await settle();
    expect(sent.map((s) => s.message)).toEqual(['Delete A?']);
    sent[0]?.answer({ action: 'decline' });
    await settle();
    expect(sent.map((s) => s.message)).toEqual(['Delete A?', 'Delete B?']);
    sent[1]?.answer({ action: 'accept', content: {} });
    expect((await Promise.all(answers)).map((a) => a.action)).toEqual(['decline', 'accept']);
  });

  it('gives a question up after ten minutes (the client is told by its cancellation) and asks the next', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { ctx, sent } = connection();
    const confirm = askWithinRequest(ctx);
    const signal = new AbortController().signal;
    const first = confirm({ message: 'Delete A?', operation: 'delete_finding', args: { finding: 'A' }, signal });
    const second = confirm({ message: 'Delete B?', operation: 'delete_finding', args: { finding: 'B' }, signal });
    await vi.advanceTimersByTimeAsync(600_001);
    expect(await first).toEqual({ action: 'unanswered', why: 'no answer came within 10 minutes' });
    expect(sent[0]?.signal.aborted).toBe(true);
    await settle();
    expect(sent.map((s) => s.message)).toEqual(['Delete A?', 'Delete B?']);
    sent[1]?.answer({ action: 'accept' });
    expect(await second).toEqual({ action: 'accept' });
  });

  it('withdraws the questions of a call that ended: the one asked is cancelled, the next is never sent', async () => {
    const { ctx, sent } = connection();
    const confirm = askWithinRequest(ctx);
    const ended = new AbortController();
    const answers = ['A', 'B'].map((r) => confirm({ message: `Delete ${r}?`, operation: 'delete_finding', args: { finding: r }, signal: ended.signal }));
    await settle();
    expect(sent).toHaveLength(1);
    ended.abort(new Error('the script reached its time limit'));
    expect((await Promise.all(answers)).map((a) => a.action)).toEqual(['unanswered', 'unanswered']);
    expect(sent[0]?.signal.aborted).toBe(true);
    expect(sent).toHaveLength(1);
  });

  it('reads an error instead of an answer as no yes', async () => {
    const { ctx, sent } = connection();
    const answer = askWithinRequest(ctx)({ message: 'Delete A?', operation: 'delete_finding', args: { finding: 'A' }, signal: new AbortController().signal });
    await settle();
    expect(sent).toHaveLength(1);
    sent[0]?.fail(new Error('Invalid response: a result that is not an object.'));
    expect(await answer).toEqual({ action: 'unanswered', why: "the client answered the question with an error, not the user's answer" });
  });
});
