// Signing a member in from inside a tool call, when the server uses the member's OAuth sign-in and has
// none yet. The call answers `input_required` with a URL elicitation (the workspace's sign-in page,
// served through this process's loopback listener) and a sealed, expiring `requestState` naming the
// sign-in under way; the client shows the page, then retries the call, which goes on once the sign-in
// has completed. 2025 clients get the same through the SDK's legacy shim (elicitation/create). A
// client that cannot open a URL gets the login command instead.
import {
  type CallToolResult,
  createRequestStateCodec,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { toolError } from '../render/index.js';

/** One interactive sign-in under way: its page, and its end. */
export interface SignInFlow {
  id: string;
  /** The sign-in page, once the listener is up and the request is built. */
  url: Promise<string>;
  /** Resolves when the member has signed in, rejects when the sign-in fails or is abandoned. */
  done: Promise<void>;
  cancel(why: string): void;
}

interface SignInDeps {
  workspaceUrl: string;
  /** Whether a sign-in is stored (checked before every call). */
  signedIn(): boolean;
  /** Starts an interactive sign-in. */
  start(): SignInFlow;
  /** The command that signs in outside the assistant. */
  loginCommand: string;
}

/** How long one round of a call waits for a sign-in under way before asking the client again. */
const ROUND_WAIT_MS = 20_000;

interface FlowState {
  flow: string;
}

export class SignInGate {
  readonly #deps: SignInDeps;
  readonly #codec: RequestStateCodec<FlowState>;
  #current: SignInFlow | undefined;
  #failed = new Map<string, string>();

  constructor(deps: SignInDeps) {
    this.#deps = deps;
    // The state travels through the client: sealed with a key of this process, and expiring with the
    // sign-in page (a state from another process or an hour ago is refused by the SDK with -32602).
    this.#codec = createRequestStateCodec<FlowState>({ key: globalThis.crypto.getRandomValues(new Uint8Array(32)), ttlSeconds: 600 });
  }

  /** For ServerOptions.requestState.verify. */
  get verify(): RequestStateCodec<FlowState>['verify'] {
    return this.#codec.verify;
  }

  #flow(): SignInFlow {
    if (!this.#current) {
      const flow = this.#deps.start();
      this.#current = flow;
      flow.done.then(
        () => {
          if (this.#current === flow) this.#current = undefined;
        },
        (err: unknown) => {
          this.#failed.set(flow.id, err instanceof Error ? err.message : String(err));
          if (this.#current === flow) this.#current = undefined;
        },
      );
    }
    return this.#current;
  }

  #notSignedIn(why: string): CallToolResult {
    return toolError(`Not signed in to ${this.#deps.workspaceUrl}: ${why} To sign in outside the assistant, run: ${this.#deps.loginCommand}`, {
      code: 'auth.not_signed_in',
    });
  }

  /**
   * Before a call: undefined when the member is signed in (go on); otherwise what the call answers
   * instead: the sign-in page to open, or why it cannot be asked for.
   */
  async gate(ctx: ServerContext, canOpenUrl: boolean): Promise<CallToolResult | InputRequiredResult | undefined> {
    if (this.#deps.signedIn()) return undefined;
    const state = ctx.mcpReq.requestState<FlowState>();
    if (state?.flow) {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'signin');
      if (answer.kind === 'elicit' && answer.action !== 'accept') {
        this.#current?.cancel(`the member chose ${answer.action} instead of signing in`);
        return this.#notSignedIn(`the member chose ${answer.action} instead of signing in.`);
      }
      const failed = this.#failed.get(state.flow);
      if (failed) return this.#notSignedIn(failed);
      const flow = this.#current?.id === state.flow ? this.#current : undefined;
      if (flow) {
        // The member is on the page: give the browser a moment before asking the client again.
        const finished = await Promise.race([
          flow.done.then(
            () => true,
            () => false,
          ),
          new Promise<false>((r) => setTimeout(() => r(false), ROUND_WAIT_MS).unref()),
        ]);
        if (this.#deps.signedIn()) return undefined;
        if (!finished) return inputRequired({ requestState: await this.#codec.mint({ flow: flow.id }, ctx) });
        return this.#notSignedIn(this.#failed.get(flow.id) ?? 'the sign-in did not complete.');
      }
      if (this.#deps.signedIn()) return undefined;
    }
    if (!canOpenUrl) return this.#notSignedIn('this client cannot open the sign-in page for the member.');
    const flow = this.#flow();
    let url: string;
    try {
      url = await flow.url;
    } catch (err) {
      return this.#notSignedIn(err instanceof Error ? err.message : String(err));
    }
    return inputRequired({
      inputRequests: {
        signin: inputRequired.elicitUrl({
          message: `Sign in to the Workspace Consulting workspace ${this.#deps.workspaceUrl} to let the assistant use it (two-step verification, then choose read only or read and write).`,
          url,
        }),
      },
      requestState: await this.#codec.mint({ flow: flow.id }, ctx),
    });
  }
}
