// A stored sign-in in use: hands the API client a valid access token, refreshing it shortly before
// it expires and after a 401. Several processes share the store, so a refresh runs under the
// store's lock and re-reads the file first: if another process already refreshed, its tokens are
// used, and a refresh token refused because another process rotated it is replaced, not dropped.

import type { Client } from 'oauth4webapi';
import type { Logger } from 'pino';
import { type AuthorizationServer, discover } from './discovery.js';
import { NotSignedInError } from './sign-in-errors.js';
import { RefreshRejectedError, refreshTokens } from './token-requests.js';
import { type GrantedScope, type StoredMember, type StoredTokens, TokenStore } from './token-store.js';

interface OAuthSessionOptions {
  store?: TokenStore;
  logger?: Logger;
  /** Refresh this long before expiry, at most; never more than a tenth of the token's life. Default 60 s. */
  marginMs?: number;
}

export class OAuthSession {
  readonly store: TokenStore;
  readonly #log: Logger | undefined;
  readonly #margin: number;
  #tokens: StoredTokens | undefined;
  #member: StoredMember | undefined;
  /** The token last handed out: a 401 refers to it. */
  #handedOut: string | undefined;
  #as: AuthorizationServer | undefined;
  #refreshing: Promise<StoredTokens> | undefined;

  constructor(
    readonly workspaceUrl: string,
    opts: OAuthSessionOptions = {},
  ) {
    this.store = opts.store ?? new TokenStore(workspaceUrl);
    this.#log = opts.logger;
    this.#margin = opts.marginMs ?? 60_000;
  }

  /** Load what is stored; a session with nothing stored is valid and answers NotSignedInError. */
  static async open(workspaceUrl: string, opts: OAuthSessionOptions = {}): Promise<OAuthSession> {
    const s = new OAuthSession(workspaceUrl, opts);
    await s.reload();
    return s;
  }

  async reload(): Promise<void> {
    const rec = await this.store.read();
    this.#tokens = rec?.tokens;
    this.#member = rec?.member;
  }

  get signedIn(): boolean {
    return this.#tokens !== undefined;
  }

  /** The scope the member granted, when signed in. */
  get scope(): GrantedScope | undefined {
    return this.#tokens?.scope;
  }

  get member(): StoredMember | undefined {
    return this.#member;
  }

  fresh(t: StoredTokens, now = Date.now()): boolean {
    const margin = Math.min(this.#margin, (t.expires_at - t.issued_at) / 10);
    return now < t.expires_at - margin;
  }

  /** A valid access token, refreshed first when it is about to expire. */
  async accessToken(): Promise<string> {
    let t = this.#tokens;
    if (!t || !this.fresh(t)) {
      // Another process may have refreshed (or signed in) since: the file is the truth.
      await this.reload();
      t = this.#tokens;
    }
    if (!t) throw new NotSignedInError(this.workspaceUrl);
    if (!this.fresh(t)) t = await this.refresh(t.access_token);
    this.#handedOut = t.access_token;
    return t.access_token;
  }

  /** For the API client's 401: true when a different, valid token is now available. */
  async onUnauthorized(): Promise<boolean> {
    try {
      const t = await this.refresh(this.#handedOut);
      return t.access_token !== this.#handedOut;
    } catch (err) {
      this.#log?.warn(
        { workspace: this.workspaceUrl, err: err instanceof Error ? err.message : String(err) },
        'could not refresh the access token after a 401',
      );
      return false;
    }
  }

  /**
   * Replace `failed` (the access token that expired or was refused). Single flight in this process;
   * across processes, the store's lock makes one refresh and the others read its result.
   */
  refresh(failed: string | undefined): Promise<StoredTokens> {
    this.#refreshing ??= this.store
      .withLock(() => this.#refreshLocked(failed))
      .then((t) => {
        this.#tokens = t;
        return t;
      })
      .finally(() => {
        this.#refreshing = undefined;
      });
    return this.#refreshing;
  }

  async #refreshLocked(failed: string | undefined): Promise<StoredTokens> {
    const rec = await this.store.read();
    const current = rec?.tokens;
    if (!rec || !current) {
      this.#tokens = undefined;
      throw new NotSignedInError(this.workspaceUrl, 'signed out');
    }
    if (current.access_token !== failed && this.fresh(current)) {
      this.#log?.debug({ workspace: this.workspaceUrl }, 'another process already refreshed the access token');
      return current;
    }
    if (!rec.client) throw new NotSignedInError(this.workspaceUrl, 'the application registration is missing');
    const client: Client = { client_id: rec.client.client_id, token_endpoint_auth_method: 'none' };
    try {
      const next = await refreshTokens(await this.#server(), client, current);
      await this.store.write({ ...rec, tokens: next });
      this.#log?.info({ workspace: this.workspaceUrl, expires_at: new Date(next.expires_at).toISOString() }, 'access token refreshed');
      return next;
    } catch (err) {
      if (!(err instanceof RefreshRejectedError)) throw err;
      // Someone may have replaced the tokens without the lock (a new login): use theirs.
      const again = await this.store.read();
      if (again?.tokens && again.tokens.refresh_token !== current.refresh_token) return again.tokens;
      // Still the refresh token that failed: this sign-in is over. Keep the registration.
      const { tokens: _dropped, ...rest } = again ?? rec;
      await this.store.write(rest);
      this.#tokens = undefined;
      this.#log?.warn({ workspace: this.workspaceUrl, reason: err.message }, 'the workspace refused the refresh token; sign in again');
      throw new NotSignedInError(this.workspaceUrl, `the workspace refused the refresh: ${err.message}`);
    }
  }

  async #server(): Promise<AuthorizationServer> {
    this.#as ??= await discover(this.workspaceUrl);
    return this.#as;
  }
}
