// Confirmation by the user: before a destructive operation (one that deletes or irreversibly
// commits) is sent, a client that can show a form asks the user, naming what will be deleted. The
// call proceeds only on accept; on decline or cancel nothing is sent and the call answers so. A client
// that cannot keeps the path it had: its own approval of the tool call, `allow` in scripts.
//
// The question can come up in the middle of a call (a script's tenth api call, say), so the call is
// not started again when the answer comes: it waits where it asked. The round that asked answers
// `input_required` (an elicitation form and a sealed, expiring requestState naming the waiting call);
// the client asks the user and sends the request again with the answer, which is handed to the call,
// and that round answers whatever comes next: the call's result, or its next question. On a 2025
// connection the SDK's legacy shim turns the same result into elicitation/create and calls the handler
// again itself. The waiting call is held by this process; a state naming a call it does not hold (an
// expired one, another process's) is answered with a tool error, and nothing was sent for it.
//
// The remote mode's replicas share no waiting call, and its balancer may send a 2026 retry to any of
// them: there a call that is one operation (its own tool, or call_operation) is confirmed without
// holding it (SealedConfirmations). The first round runs the call up to its question (its arguments
// read and validated, the record's name read; nothing written) and answers the form with a state
// signed under the replicas' shared key, expiring, bound to the member and their client, naming the
// tool and a digest of the operation and its arguments as read. The retry, on whichever replica, runs
// the call again; when it reaches the same question with the same digest, the answer is the user's:
// accept sends it (once: the state's nonce is claimed in the shared store first, so a replayed state
// sends nothing), decline or cancel answers so with nothing sent. A state for other arguments, another
// member or past its time is refused with nothing sent. A script cannot be resumed elsewhere: scripts
// (and workflows, which may write before they ask) keep the client's approval and `allow` there.
import { createHash, hkdfSync, randomUUID } from 'node:crypto';
import {
  type CallToolResult,
  type ClientCapabilities,
  createRequestStateCodec,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { toolError } from '../render/index.js';

/** The user's answer to a confirmation. */
type ConfirmAnswer = 'accept' | 'decline' | 'cancel';

/** What the user is asked to confirm: the words shown, and the operation and its arguments as read. */
interface ConfirmAsk {
  message: string;
  operation?: string;
  args?: Record<string, unknown>;
}

/** Asks the user to confirm; resolves with their answer. */
export type Confirm = (ask: ConfirmAsk) => Promise<ConfirmAnswer>;

/** Whether the client can show the user a form (2025: a bare `elicitation` declaration means form). */
export function canConfirm(capabilities: ClientCapabilities | undefined): boolean {
  const e = capabilities?.elicitation as Record<string, unknown> | undefined;
  return e !== undefined && (e.form !== undefined || e.url === undefined);
}

/** How long a call waits for its answer before it is given up (as cancelled: nothing sent). */
const WAIT_SECONDS = 600;
/** The key of the confirmation among the input requests. */
const KEY = 'confirm';

interface ConfirmState {
  confirm: string;
}

type Event = { kind: 'ask'; message: string } | { kind: 'done'; result: CallToolResult } | { kind: 'error'; error: unknown };

/** One call that may ask: the events it produced not yet read, and the answer it awaits. */
class Waiting {
  readonly controller = new AbortController();
  #events: Event[] = [];
  #wake: (() => void) | undefined;
  #answer: ((a: ConfirmAnswer) => void) | undefined;
  expiry: NodeJS.Timeout | undefined;

  constructor(readonly owner: object) {}

  #push(e: Event): void {
    this.#events.push(e);
    this.#wake?.();
  }

  ask(message: string): Promise<ConfirmAnswer> {
    return new Promise<ConfirmAnswer>((resolve) => {
      this.#answer = resolve;
      this.#push({ kind: 'ask', message });
    });
  }

  answer(a: ConfirmAnswer): void {
    const give = this.#answer;
    this.#answer = undefined;
    give?.(a);
  }

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

/** The calls of one process waiting for their user's answer, and the rounds that carry them. */
export class Confirmations {
  readonly #codec: RequestStateCodec<ConfirmState>;
  readonly #waiting = new Map<string, Waiting>();

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
   * (the member's session); only they can answer it.
   */
  start(
    owner: object,
    ctx: ServerContext,
    work: (confirm: Confirm, signal: AbortSignal) => Promise<CallToolResult>,
  ): Promise<CallToolResult | InputRequiredResult> {
    const w = new Waiting(owner);
    work(({ message }) => w.ask(message), w.controller.signal).then(
      (r) => w.finish(r),
      (err: unknown) => w.fail(err),
    );
    return this.#round(w, ctx);
  }

  /** A request sent again with the user's answer: handed to the call, which goes on. */
  resume(owner: object, state: ConfirmState, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> {
    const w = this.#waiting.get(state.confirm);
    if (!w || w.owner !== owner) {
      return Promise.resolve(
        toolError(
          'This confirmation is no longer awaited (it expired, or was asked by another server process). Nothing was sent for it: call the tool again.',
          {
            error: { code: 'confirmation_expired' },
          },
        ),
      );
    }
    this.#waiting.delete(state.confirm);
    clearTimeout(w.expiry);
    const given = inputResponse(ctx.mcpReq.inputResponses, KEY);
    w.answer(given.kind === 'elicit' ? given.action : 'cancel');
    return this.#round(w, ctx);
  }

  /** One round: waits for the call's next event; a question parks the call and asks the client. */
  async #round(w: Waiting, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> {
    const signal = ctx.mcpReq.signal;
    const onAbort = () => w.controller.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    let event: Event;
    try {
      event = await w.next();
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
    if (event.kind === 'done') return event.result;
    if (event.kind === 'error') throw event.error;
    const id = globalThis.crypto.randomUUID();
    this.#waiting.set(id, w);
    // Never answered: given up as cancelled, so the call ends having sent nothing more.
    w.expiry = setTimeout(() => {
      if (this.#waiting.get(id) !== w) return;
      this.#waiting.delete(id);
      w.answer('cancel');
      w.controller.abort(new Error('the confirmation was never answered'));
    }, WAIT_SECONDS * 1000);
    w.expiry.unref();
    return inputRequired({
      inputRequests: { [KEY]: inputRequired.elicit({ message: event.message, requestedSchema: { type: 'object', properties: {} } }) },
      requestState: await this.#codec.mint({ confirm: id }, ctx),
    });
  }

  /** Calls waiting for an answer (for tests). */
  get waiting(): number {
    return this.#waiting.size;
  }
}

/** A confirmation asked without holding the call: what its state carries (signed, not secret). */
interface SealedAsk {
  ask: 'sealed';
  /** The tool called (an operation's own, or call_operation). */
  tool: string;
  /** SHA-256 of the operation and its arguments as read. */
  digest: string;
  /** Claimed in the shared store when accepted: one state sends at most once. */
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

/** JSON with object keys sorted: the same arguments give the same digest whatever their order. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

function digestOf(ask: ConfirmAsk): string {
  return createHash('sha256')
    .update(canonical({ operation: ask.operation ?? null, args: ask.args ?? {} }))
    .digest('base64url');
}

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
   * The first round: the call runs up to its question, which is answered `cancel` there (so nothing is
   * sent) and asked of the client with a state for the retry. A call that asks nothing is answered as it is.
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
      return 'cancel';
    }, round);
    if (!asked) return result;
    const state: SealedAsk = { ask: 'sealed', tool, digest: digestOf(asked), nonce: randomUUID(), until: Date.now() + WAIT_SECONDS * 1000 };
    return inputRequired({
      inputRequests: { [KEY]: inputRequired.elicit({ message: asked.message, requestedSchema: { type: 'object', properties: {} } }) },
      requestState: await this.#codec.mint(state, ctx),
    });
  }

  /**
   * The retry, on any replica: the call runs again, and its question is answered with the user's
   * answer when the state is for this very call (tool, operation and arguments) and, on accept, was
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
    const given = inputResponse(ctx.mcpReq.inputResponses, KEY);
    const action: ConfirmAnswer = given.kind === 'elicit' ? given.action : 'cancel';
    const round: SealedRound = { asked: false };
    let reached = false;
    const result = await run(async (ask) => {
      // One question per call: a second one (none of these calls asks twice) is not the one answered.
      if (reached) {
        round.refusal ??= refusedConfirmation('This call asked for a second confirmation. Nothing more was sent: call the tool again.', 'other_call');
        return 'cancel';
      }
      reached = true;
      if (digestOf(ask) !== state.digest) {
        round.refusal = refusedConfirmation(
          'This confirmation was given for other arguments. Nothing was sent: call the tool again to be asked about these.',
          'other_call',
        );
        return 'cancel';
      }
      if (action !== 'accept') return action;
      if (!(await this.#deps.claim(state.nonce, Math.max(1000, state.until - Date.now() + 1000)))) {
        round.refusal = refusedConfirmation('This confirmation was already used. Nothing more was sent: call the tool again.', 'used');
        return 'cancel';
      }
      return 'accept';
    }, round);
    return round.refusal ?? result;
  }
}

function refusedConfirmation(message: string, reason: string): CallToolResult {
  return toolError(message, { error: { code: 'confirmation_refused', reason } });
}
