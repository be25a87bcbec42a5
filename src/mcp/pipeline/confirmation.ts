// Confirmation by the user (docs/architecture.md, Confirmation by the user): before a destructive
// operation (one that deletes or irreversibly commits) is sent, a client that can show a form asks the
// user, quoting what will be deleted. The call proceeds only on a well-formed yes; on anything else
// nothing is sent and the call says why. A client that cannot keeps the path it had: its own approval
// of the tool call, `allow` in scripts.
//
// One answer belongs to one question, and one question to one write:
// - A call's questions are asked one at a time, in the order its writes asked them (Turns): a script
//   deleting three records at once shows the user three questions one after the other, and each write
//   waits for the answer to its own question, never another's. Calls of their own (parallel tool calls,
//   other sessions) each ask their own questions.
// - Only a well-formed yes is yes (readAnswer): `action: "accept"` with no content or the empty object
//   the form declares (FORM admits no field); any other answer (decline, cancel, a field the form does
//   not ask for, content that is no object, no answer at all) sends nothing, at once.
// - Every wait is bounded: a question never answered is given up after WAIT_SECONDS, and a call that
//   ends sooner (a script at its time limit, a cancelled request) withdraws its questions.
//
// Where the question is asked:
// - A 2025 connection is asked within the call's one request: each question is an elicitation/create
//   of its own (its own JSON-RPC id), sent by askWithinRequest. The SDK's legacy shim, which turns an
//   input_required result into elicitation/create, is not used: it reads the answer through a schema
//   that takes `content: null` for no content, answers malformed ones with its validator's dump, holds
//   a question for its own ten minutes whatever the call's limit, and leaves the call behind when it
//   gives up.
// - A 2026 client is asked by the call's round answering `input_required` (Confirmations): the form,
//   under a key of its own, and a sealed, expiring requestState naming that one question; the call
//   waits where it asked (a script mid-run keeps its state) until the client sends the request again
//   with the answer under that key. The retried request must name the same tool with the same
//   arguments as the one that started the call: a state sent with other arguments is refused, nothing
//   sent, and the question stays open for the right retry. The waiting call is held by this process; a
//   state naming a question it does not hold (answered, expired, another process's) is refused too.
// - The remote mode's replicas share no waiting call, and its balancer may send a 2026 retry to any of
//   them: there a call that is one operation (its own tool, or call_operation) is confirmed without
//   holding it (SealedConfirmations). The first round runs the call up to its question (its arguments
//   read and validated, the record's name read; nothing written) and answers the form with a state
//   signed under the replicas' shared key, expiring, bound to the member and their client, naming the
//   tool and a digest of the operation and its arguments as read. The retry, on whichever replica, runs
//   the call again; when it reaches the same question with the same digest, the answer is the user's:
//   a yes sends it (once: the state's nonce is claimed in the shared store first, so a replayed state
//   sends nothing), anything else sends nothing. A state for other arguments, another member or past
//   its time is refused with nothing sent. A script cannot be resumed elsewhere: scripts (and
//   workflows, which may write before they ask) keep the client's approval and `allow` there.
import { createHash, hkdfSync, randomUUID } from 'node:crypto';
import {
  type CallToolResult,
  type ClientCapabilities,
  createRequestStateCodec,
  type InputRequiredResult,
  inputRequired,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import sortedJson from 'safe-stable-stringify';
import { z } from 'zod';
import type { Consequence } from '../../operation.js';
import { toolError } from '../render/index.js';

/**
 * The user's answer to one question: accept (a well-formed yes), decline, cancel, or none the user gave
 * (`unanswered`: the answer was malformed, never came, or the client failed to ask; `why` says which).
 */
export type ConfirmAnswer = { action: 'accept' } | { action: 'decline' } | { action: 'cancel' } | { action: 'unanswered'; why: string };

/** What the user is asked to confirm: the words shown, the operation and its arguments as read, and the asking call's signal. */
interface ConfirmAsk {
  message: string;
  operation: string;
  args: Record<string, unknown>;
  /** The asking call's cancellation: aborted, its question is withdrawn (never asked, or no longer awaited). */
  signal: AbortSignal;
}

/** Asks the user to confirm one write; resolves with their answer to that question. */
export type Confirm = (ask: ConfirmAsk) => Promise<ConfirmAnswer>;

/** Whether the client can show the user a form (2025: a bare `elicitation` declaration means form). */
export function canConfirm(capabilities: ClientCapabilities | undefined): boolean {
  const e = capabilities?.elicitation as Record<string, unknown> | undefined;
  return e !== undefined && (e.form !== undefined || e.url === undefined);
}

/** How long one question waits for its answer before it is given up (nothing sent). */
const WAIT_SECONDS = 600;
const WAIT_MS = WAIT_SECONDS * 1000;

/**
 * The form every question shows: no field to fill, and none admitted. The answer's content must be
 * what it admits (readAnswer): absent, or an empty object.
 */
const FORM = { type: 'object', properties: {}, additionalProperties: false } as const;

const ACCEPT: ConfirmAnswer = { action: 'accept' };
/** What a withdrawn question resolves to: its call has ended and reads no answer. */
const WITHDRAWN: ConfirmAnswer = { action: 'unanswered', why: 'the call ended before the user answered' };
const unanswered = (why: string): ConfirmAnswer => ({ action: 'unanswered', why });

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** What a value is, in a few words that repeat nothing of it. */
function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'string' ? 'a text' : `a ${typeof v}`;
}

/**
 * The user's answer as the client gave it (a 2025 elicitation result, a 2026 input response), read
 * strictly: only `action: "accept"` with content the form admits is a yes.
 */
export function readAnswer(given: unknown): ConfirmAnswer {
  if (given === undefined) return unanswered('the request sent again carried no answer to its question');
  if (!isObject(given)) return unanswered(`the answer was ${kindOf(given)}, not an answer to the form`);
  const { action, content } = given;
  if (action === 'decline' || action === 'cancel') return { action };
  if (action !== 'accept') return unanswered('the answer said neither accept, decline nor cancel');
  if (content === undefined) return ACCEPT;
  if (!isObject(content)) return unanswered(`its content was ${kindOf(content)}, where the form admits only an empty object`);
  const fields = Object.keys(content);
  if (fields.length > 0) return unanswered(`its content had ${fields.length === 1 ? 'a field' : `${fields.length} fields`} the form does not ask for`);
  return ACCEPT;
}

/** The key of a question among a round's input requests: its own, so no answer to another question fits it. */
const keyOf = (question: string) => `confirm-${question}`;

/** One call's questions, put to the user one at a time, in the order its writes asked them. */
class Turns {
  #last: Promise<unknown> = Promise.resolve();

  /**
   * Runs `ask` once every earlier question has its answer. A question withdrawn before its turn is
   * never asked; withdrawn while asked, its caller hears at once (`ask` itself stops on the signal).
   */
  take(signal: AbortSignal, ask: () => Promise<ConfirmAnswer>): Promise<ConfirmAnswer> {
    const mine = this.#last.then(() => (signal.aborted ? WITHDRAWN : ask()));
    this.#last = mine.catch(() => {});
    if (signal.aborted) return Promise.resolve(WITHDRAWN);
    return new Promise<ConfirmAnswer>((resolve, reject) => {
      const onAbort = () => resolve(WITHDRAWN);
      signal.addEventListener('abort', onAbort, { once: true });
      mine.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }
}

/** Any answer: read by readAnswer, not by the SDK's schema (which takes `content: null` for none). */
const ANY_ANSWER = z.unknown();

/**
 * The confirm function of one call on a 2025 connection: each question is an elicitation/create of its
 * own, sent within the call's request, one at a time; given up after WAIT_SECONDS (the client is told
 * with a cancellation), withdrawn when the call ends.
 */
export function askWithinRequest(ctx: ServerContext): Confirm {
  const turns = new Turns();
  return (ask) =>
    turns.take(ask.signal, async () => {
      const bound = new AbortController();
      const timer = setTimeout(() => bound.abort(new Error('no answer came in time')), WAIT_MS);
      timer.unref?.();
      try {
        const given = await ctx.mcpReq.send(
          { method: 'elicitation/create', params: { mode: 'form', message: ask.message, requestedSchema: FORM } },
          ANY_ANSWER,
          // The SDK's own timeout past ours: the question's bound is the timer above.
          { signal: AbortSignal.any([ask.signal, bound.signal]), timeout: WAIT_MS + 60_000 },
        );
        return readAnswer(given);
      } catch {
        if (ask.signal.aborted) return WITHDRAWN;
        if (bound.signal.aborted) return unanswered(`no answer came within ${WAIT_SECONDS / 60} minutes`);
        return unanswered("the client answered the question with an error, not the user's answer");
      } finally {
        clearTimeout(timer);
      }
    });
}

/** What a 2026 confirmation's state carries: the question it answers (sealed by this process, expiring). */
interface ConfirmState {
  confirm: string;
}

/** A question of a held call, asked or waiting for its answer. */
interface Question {
  message: string;
  /** Settles it (the first answer only: a withdrawn question keeps its withdrawal). */
  answer(a: ConfirmAnswer): void;
  readonly settled: boolean;
}

type Event = { kind: 'ask'; question: Question } | { kind: 'done'; result: CallToolResult } | { kind: 'error'; error: unknown };

/** The tool and arguments of a request as sent: a retry must name the same to answer its call's question. */
interface CallNamed {
  name: string;
  arguments?: Record<string, unknown> | undefined;
}

/** Keys sorted: the same arguments give the same digest whatever their order. */
const digest = (v: unknown) =>
  createHash('sha256')
    .update(sortedJson(v) ?? 'null')
    .digest('base64url');

/** One call that may ask (2026): the events it produced not yet read, its questions one at a time. */
class HeldCall {
  readonly controller = new AbortController();
  readonly #turns = new Turns();
  #events: Event[] = [];
  #wake: (() => void) | undefined;

  constructor(
    readonly owner: object,
    /** The digest of the tool and arguments the request that started it named. */
    readonly call: string,
  ) {}

  #push(e: Event): void {
    this.#events.push(e);
    this.#wake?.();
  }

  readonly confirm: Confirm = (ask) =>
    this.#turns.take(
      ask.signal,
      () =>
        new Promise<ConfirmAnswer>((resolve) => {
          let settled = false;
          const question: Question = {
            message: ask.message,
            get settled() {
              return settled;
            },
            answer: (a) => {
              if (settled) return;
              settled = true;
              ask.signal.removeEventListener('abort', withdraw);
              resolve(a);
            },
          };
          const withdraw = () => question.answer(WITHDRAWN);
          ask.signal.addEventListener('abort', withdraw, { once: true });
          this.#push({ kind: 'ask', question });
        }),
    );

  finish(result: CallToolResult): void {
    this.#push({ kind: 'done', result });
  }

  fail(error: unknown): void {
    this.#push({ kind: 'error', error });
  }

  async next(): Promise<Event> {
    while (!this.#events.length) await new Promise<void>((r) => (this.#wake = r));
    this.#wake = undefined;
    return this.#events.shift() as Event;
  }
}

/** A question waiting for the client to send the request again with its answer. */
interface Parked {
  held: HeldCall;
  question: Question;
  expiry: NodeJS.Timeout;
}

/** The calls of one process waiting for their user's answer (2026), and the rounds that carry them. */
export class Confirmations {
  readonly #codec: RequestStateCodec<ConfirmState>;
  readonly #parked = new Map<string, Parked>();

  constructor() {
    // The state travels through the client: sealed with a key of this process, expiring with the wait.
    this.#codec = createRequestStateCodec<ConfirmState>({ key: globalThis.crypto.getRandomValues(new Uint8Array(32)), ttlSeconds: WAIT_SECONDS });
  }

  /** For ServerOptions.requestState.verify. */
  get verify(): RequestStateCodec<ConfirmState>['verify'] {
    return this.#codec.verify;
  }

  /** The state a retried request carries, when it is a confirmation's. */
  static stateOf(ctx: ServerContext): ConfirmState | undefined {
    const state = ctx.mcpReq.requestState<unknown>();
    return state && typeof state === 'object' && typeof (state as ConfirmState).confirm === 'string' ? (state as ConfirmState) : undefined;
  }

  /**
   * Starts a call that may ask its user (`work` gets the confirm function and the call's signal,
   * which the request's cancellation aborts while a round waits on it). `owner`: whose call it is
   * (the member's session); only they can answer it. `named`: the tool and arguments the request
   * names, which every retry must name too.
   */
  start(
    owner: object,
    ctx: ServerContext,
    named: CallNamed,
    work: (confirm: Confirm, signal: AbortSignal) => Promise<CallToolResult>,
  ): Promise<CallToolResult | InputRequiredResult> {
    const held = new HeldCall(owner, digest({ tool: named.name, args: named.arguments ?? {} }));
    work(held.confirm, held.controller.signal).then(
      (r) => held.finish(r),
      (err: unknown) => held.fail(err),
    );
    return this.#round(held, ctx);
  }

  /**
   * A request sent again with the user's answer: handed to the question its state names, when the
   * request names the same call; the call goes on, and this round answers what comes next.
   */
  resume(owner: object, state: ConfirmState, ctx: ServerContext, named: CallNamed): Promise<CallToolResult | InputRequiredResult> {
    const parked = this.#parked.get(state.confirm);
    if (!parked || parked.held.owner !== owner) {
      return Promise.resolve(
        refusedConfirmation(
          'This confirmation is no longer awaited (it was answered already, expired, or was asked by another server process). Nothing was sent for it: call the tool again.',
          'expired',
        ),
      );
    }
    if (parked.held.call !== digest({ tool: named.name, args: named.arguments ?? {} })) {
      // Left waiting: the retry that names its own call may still answer it.
      return Promise.resolve(
        refusedConfirmation(
          `This answer is for a question asked about another call (another tool or other arguments than this ${named.name}). Nothing was sent: call ${named.name} again to be asked about these arguments.`,
          'other_call',
        ),
      );
    }
    this.#parked.delete(state.confirm);
    clearTimeout(parked.expiry);
    parked.question.answer(readAnswer(ctx.mcpReq.inputResponses?.[keyOf(state.confirm)]));
    return this.#round(parked.held, ctx);
  }

  /** One round: waits for the call's next event; a question parks the call and asks the client. */
  async #round(held: HeldCall, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> {
    const signal = ctx.mcpReq.signal;
    const onAbort = () => held.controller.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    let event: Event;
    try {
      // A question withdrawn before this round read it (its call ended) is asked of no one.
      do event = await held.next();
      while (event.kind === 'ask' && event.question.settled);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
    if (event.kind === 'done') return event.result;
    if (event.kind === 'error') throw event.error;
    const { question } = event;
    const id = randomUUID();
    // Never answered: given up, and the call stopped (no client will come back for what it answers).
    const expiry = setTimeout(() => {
      if (this.#parked.get(id)?.question !== question) return;
      this.#parked.delete(id);
      question.answer(unanswered(`no answer came within ${WAIT_SECONDS / 60} minutes`));
      held.controller.abort(new Error('the confirmation was never answered'));
    }, WAIT_MS);
    expiry.unref();
    this.#parked.set(id, { held, question, expiry });
    return inputRequired({
      inputRequests: { [keyOf(id)]: inputRequired.elicit({ message: question.message, requestedSchema: FORM }) },
      requestState: await this.#codec.mint({ confirm: id }, ctx),
    });
  }

  /** Questions waiting for an answer (for tests). */
  get waiting(): number {
    return this.#parked.size;
  }
}

/** A confirmation asked without holding the call: what its state carries (signed, not secret). */
interface SealedAsk {
  ask: 'sealed';
  /** The tool called (an operation's own, or call_operation). */
  tool: string;
  /** SHA-256 of the operation and its arguments as read. */
  digest: string;
  /** Claimed in the shared store when accepted: one state sends at most once. Also names the question's key. */
  nonce: string;
  /** When it expires (ms since the epoch), as the store keeps its claim. */
  until: number;
}

/** A state of ours that cannot be used (past its time, or another member's): refused in words. */
interface SealedRefusal {
  ask: 'refused';
  why: 'expired' | 'member';
}

interface SealedConfirmationDeps {
  /** The key every replica shares (WORKSPACE_STATE_KEY); the states' own key is derived from it. */
  key: Uint8Array;
  /** Marks a state used, in the store every replica shares, until `ttlMs` from now: true the first time only. */
  claim(nonce: string, ttlMs: number): Promise<boolean>;
  /** Whom a request acts for (member and client): only they can answer a confirmation asked of them. */
  memberOf(ctx: ServerContext): string;
}

const digestOf = (ask: Pick<ConfirmAsk, 'operation' | 'args'>) => digest({ operation: ask.operation, args: ask.args });

function isSealedAsk(p: unknown): p is SealedAsk {
  const s = p as Partial<SealedAsk> | undefined;
  return !!s && s.ask === 'sealed' && typeof s.tool === 'string' && typeof s.digest === 'string' && typeof s.nonce === 'string' && typeof s.until === 'number';
}

/** One round of a call confirmed without holding it: whether it stopped to ask, or was refused. */
export interface SealedRound {
  /** The call reached its question and stopped there (nothing sent): the round answers the form. */
  asked: boolean;
  /** The state did not fit the call (nothing sent): what the round answers instead of the call's result. */
  refusal?: CallToolResult;
}

/** Confirmations asked and answered across replicas: nothing held between rounds but the client's state. */
export class SealedConfirmations {
  readonly #codec: RequestStateCodec<SealedAsk>;
  readonly #deps: SealedConfirmationDeps;

  constructor(deps: SealedConfirmationDeps) {
    this.#deps = deps;
    // A key of its own, derived from the shared one: the state key also seals the store's records.
    const key = new Uint8Array(hkdfSync('sha256', deps.key, new Uint8Array(0), 'workspace-consulting-mcp confirmation state', 32));
    this.#codec = createRequestStateCodec<SealedAsk>({ key, ttlSeconds: WAIT_SECONDS, bind: (ctx) => deps.memberOf(ctx as ServerContext) });
  }

  /**
   * For ServerOptions.requestState.verify: a state of ours, or why ours cannot be used (the handler
   * says so); throws for a state that is not ours or was altered (the SDK answers -32602).
   */
  async verify(state: string, ctx: ServerContext): Promise<SealedAsk | SealedRefusal> {
    let payload: unknown;
    try {
      payload = await this.#codec.verify(state, ctx);
    } catch (err) {
      // The codec checks its signature before the expiry and the member: these two are ours.
      const why = err instanceof Error ? err.message : '';
      if (why === 'expired') return { ask: 'refused', why: 'expired' };
      if (why === 'bind') return { ask: 'refused', why: 'member' };
      throw err;
    }
    if (!isSealedAsk(payload)) throw new Error('malformed');
    return payload;
  }

  /** The state a retried request carries, when it is one of these. */
  static stateOf(ctx: ServerContext): SealedAsk | SealedRefusal | undefined {
    const state = ctx.mcpReq.requestState<unknown>();
    const s = state as Partial<SealedAsk | SealedRefusal> | undefined;
    return s && typeof s === 'object' && (s.ask === 'sealed' || s.ask === 'refused') ? (s as SealedAsk | SealedRefusal) : undefined;
  }

  /**
   * The first round: the call runs up to its question, which is answered there as not confirmed (so
   * nothing is sent) and asked of the client with a state for the retry. A call that asks nothing is
   * answered as it is.
   */
  async start(
    ctx: ServerContext,
    tool: string,
    run: (confirm: Confirm, round: SealedRound) => Promise<CallToolResult>,
  ): Promise<CallToolResult | InputRequiredResult> {
    const round: SealedRound = { asked: false };
    let asked: ConfirmAsk | undefined;
    const result = await run(async (ask) => {
      asked ??= ask;
      round.asked = true;
      return unanswered('asked of the client, whose answer comes with the request sent again');
    }, round);
    if (!asked) return result;
    const state: SealedAsk = { ask: 'sealed', tool, digest: digestOf(asked), nonce: randomUUID(), until: Date.now() + WAIT_MS };
    return inputRequired({
      inputRequests: { [keyOf(state.nonce)]: inputRequired.elicit({ message: asked.message, requestedSchema: FORM }) },
      requestState: await this.#codec.mint(state, ctx),
    });
  }

  /**
   * The retry, on any replica: the call runs again, and its question is answered with the user's
   * answer when the state is for this very call (tool, operation and arguments) and, on a yes, was
   * never used before; otherwise the call is refused at its question, nothing sent.
   */
  async resume(
    ctx: ServerContext,
    tool: string,
    state: SealedAsk | SealedRefusal,
    run: (confirm: Confirm, round: SealedRound) => Promise<CallToolResult>,
  ): Promise<CallToolResult> {
    if (state.ask === 'refused') {
      return refusedConfirmation(
        state.why === 'expired'
          ? 'This confirmation has expired. Nothing was sent for it: call the tool again.'
          : 'This confirmation was asked of another member. Nothing was sent for it: call the tool again.',
        state.why,
      );
    }
    if (state.tool !== tool)
      return refusedConfirmation(`This confirmation is for ${state.tool}, not ${tool}. Nothing was sent: call the tool again.`, 'other_call');
    const answer = readAnswer(ctx.mcpReq.inputResponses?.[keyOf(state.nonce)]);
    const round: SealedRound = { asked: false };
    let reached = false;
    const result = await run(async (ask) => {
      // One question per call: a second one (none of these calls asks twice) is not the one answered.
      if (reached) {
        round.refusal ??= refusedConfirmation('This call asked for a second confirmation. Nothing more was sent: call the tool again.', 'other_call');
        return WITHDRAWN;
      }
      reached = true;
      if (digestOf(ask) !== state.digest) {
        round.refusal = refusedConfirmation(
          'This confirmation was given for other arguments. Nothing was sent: call the tool again to be asked about these.',
          'other_call',
        );
        return WITHDRAWN;
      }
      if (answer.action !== 'accept') return answer;
      if (!(await this.#deps.claim(state.nonce, Math.max(1000, state.until - Date.now() + 1000)))) {
        round.refusal = refusedConfirmation('This confirmation was already used. Nothing more was sent: call the tool again.', 'used');
        return WITHDRAWN;
      }
      return ACCEPT;
    }, round);
    return round.refusal ?? result;
  }
}

function refusedConfirmation(message: string, reason: string): CallToolResult {
  return toolError(message, { code: 'confirmation_refused', reason });
}

/** Longest record text a question quotes, in characters. */
const MAX_QUOTED = 160;

/**
 * A record's text as a question quotes it: one line (line breaks, tabs and invisible formatting
 * characters, bidirectional overrides among them, become single spaces), cut to MAX_QUOTED characters,
 * in JSON quotes (a quote inside is escaped), so nothing in it can pass for the server's own words.
 */
export function quotedLine(text: string): string {
  const line = text.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\s]+/gu, ' ').trim();
  const chars = Array.from(line);
  return JSON.stringify(chars.length > MAX_QUOTED ? `${chars.slice(0, MAX_QUOTED - 3).join('')}...` : line);
}

/** The record a question is about: its kind, the field its text comes from, and that text. */
interface QuotedRecord {
  kind: string;
  field: string;
  text: string;
}

/** What a destructive call's question says, from its operation and arguments as read. */
interface QuestionOf {
  title: string;
  /** The operation's purpose, in its catalog's words. */
  purpose: string;
  /** The path parameters and their values: the ids of what it acts on. */
  ids: readonly (readonly [string, unknown])[];
  args: Record<string, unknown>;
  consequences?: readonly Consequence[];
  record?: QuotedRecord;
}

/** Whether a consequence's arguments are the call's (`null`: the argument left out). */
function selects(c: Consequence, args: Record<string, unknown>): boolean {
  return Object.entries(c.when).every(([k, v]) => (v === null ? args[k] === undefined || args[k] === null : args[k] === v));
}

/**
 * The question a user is asked: the operation and the ids it acts on, the record's own text quoted
 * on a line of its own (marked as the record's words, not this server's), what its arguments make of
 * it (a final stage, edits replaced), and that it cannot be undone.
 */
export function questionText(q: QuestionOf): string {
  const ids = q.ids.map(([p, v]) => `${p} ${String(v)}`).join(', ');
  const lines = [`${q.title}${ids ? ` (${ids})` : ''}: ${q.purpose}`];
  if (q.record)
    lines.push(`The ${q.record.kind}'s ${q.record.field}, quoted from the workspace (its author's words, not this server's): ${quotedLine(q.record.text)}`);
  for (const c of q.consequences ?? []) if (selects(c, q.args)) lines.push(c.says);
  lines.push('This cannot be undone. Allow it?');
  return lines.join('\n');
}
