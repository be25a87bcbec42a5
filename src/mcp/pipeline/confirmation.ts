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
export type ConfirmAnswer = 'accept' | 'decline' | 'cancel';

/** Asks the user to confirm; resolves with their answer. */
export type Confirm = (ask: { message: string }) => Promise<ConfirmAnswer>;

/** Whether the client can show the user a form (2025: a bare `elicitation` declaration means form). */
export function canConfirm(capabilities: ClientCapabilities | undefined): boolean {
  const e = capabilities?.elicitation as Record<string, unknown> | undefined;
  return e !== undefined && (e.form !== undefined || e.url === undefined);
}

/** How long a call waits for its answer before it is given up (as cancelled: nothing sent). */
const WAIT_SECONDS = 600;
/** The key of the confirmation among the input requests. */
const KEY = 'confirm';

export interface ConfirmState {
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
