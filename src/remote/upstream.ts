// The workspace side of a sign-in: this server is itself an OAuth client of the workspace. It
// registers once (dynamically, as a public client, shared by every replica through the store), sends
// the member to the workspace's authorize page with PKCE and a fresh state, checks the answer's state
// and iss, exchanges the code, refreshes and revokes. Each step is the local client's (src/auth).
import { createHash } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import type { Logger } from 'pino';
import { RateLimiter } from '../api/limiter.js';
import { authorizationRequest } from '../auth/authorization-request.js';
import { type AuthorizationServer, discover } from '../auth/discovery.js';
import { fetchMember } from '../auth/member.js';
import { registerClient } from '../auth/registration.js';
import { SignInError } from '../auth/sign-in-errors.js';
import { exchangeCode, RefreshRejectedError, refreshTokens, revokeToken } from '../auth/token-requests.js';
import type { StoredMember, StoredTokens } from '../auth/token-store.js';
import type { RemoteScope } from './metadata.js';
import type { SealedRecords } from './records.js';

/** The workspace answered the sign-in with an error of its own (the member refused, ...): safe to pass on. */
export class UpstreamDenied extends Error {
  override name = 'UpstreamDenied';
  constructor(readonly error: string) {
    super(`the workspace answered ${error}`);
  }
}

/** The sign-in could not complete: a forged or mixed-up answer, an exchange refused, the workspace unreachable. */
export class UpstreamFailure extends Error {
  override name = 'UpstreamFailure';
}

interface UpstreamClient {
  client_id: string;
  issuer: string;
  redirect_uri: string;
}

/**
 * The workspace's token endpoint did not refresh a member's tokens: unreachable, an error status, an
 * unreadable answer, or no answer in time. Nothing was refused: the same call shortly after may work.
 */
export class WorkspaceUnavailableError extends Error {
  override name = 'WorkspaceUnavailableError';
  constructor(cause: unknown) {
    super(`the workspace's token endpoint did not answer the refresh (${cause instanceof Error ? cause.name : 'unknown error'})`, { cause });
  }
}

/** How long a refresh may take: a member's tool call is waiting on it. */
const REFRESH_TIMEOUT_MS = 5_000;

/** Metadata is read again after this long, so a changed workspace configuration is picked up. */
const METADATA_TTL_MS = 10 * 60 * 1000;

interface UpstreamOptions {
  workspaceUrl: string;
  /** Our callback on the public origin, registered with the workspace. */
  callbackUrl: string;
  /** Shown to members under Connected apps. */
  clientName: string;
  records: SealedRecords;
  logger: Logger;
}

export class Upstream {
  #metadata: { value: Promise<AuthorizationServer>; until: number } | undefined;

  constructor(private readonly o: UpstreamOptions) {}

  get workspaceUrl(): string {
    return this.o.workspaceUrl;
  }

  metadata(): Promise<AuthorizationServer> {
    const now = Date.now();
    if (!this.#metadata || this.#metadata.until <= now) {
      const value = discover(this.o.workspaceUrl);
      this.#metadata = { value, until: now + METADATA_TTL_MS };
      // A failed discovery is not kept: the next sign-in tries again.
      value.catch(() => {
        if (this.#metadata?.value === value) this.#metadata = undefined;
      });
    }
    return this.#metadata.value;
  }

  #registrationId(as: AuthorizationServer): string {
    return createHash('sha256').update(`${as.issuer}\n${this.o.callbackUrl}`).digest('hex').slice(0, 32);
  }

  /** This server's client_id at the workspace: registered by the first replica that needs it. */
  async clientId(): Promise<string> {
    const as = await this.metadata();
    const id = this.#registrationId(as);
    const known = await this.o.records.read<UpstreamClient>('upstream-client', id);
    if (known) return known.value.client_id;
    const registered = await registerClient(as, this.o.callbackUrl, this.o.clientName);
    const rec: UpstreamClient = { client_id: registered.client_id, issuer: as.issuer, redirect_uri: this.o.callbackUrl };
    if (await this.o.records.create('upstream-client', id, rec)) {
      this.o.logger.info({ event: 'remote.upstream_registered', issuer: as.issuer, client_id: rec.client_id }, 'registered this server with the workspace');
      return rec.client_id;
    }
    // Another replica registered at the same moment: use its registration (ours is never used).
    const winner = await this.o.records.read<UpstreamClient>('upstream-client', id);
    return winner?.value.client_id ?? rec.client_id;
  }

  /** The workspace no longer knows `clientId` (invalid_client): the next sign-in registers again. */
  async forgetClient(clientId: string): Promise<void> {
    const as = await this.metadata();
    const id = this.#registrationId(as);
    const known = await this.o.records.read<UpstreamClient>('upstream-client', id);
    if (known?.value.client_id === clientId) await this.o.records.remove('upstream-client', id, known.raw);
  }

  /** Where to send the member, and what to keep to check the answer. */
  async start(scope: RemoteScope): Promise<{ url: string; state: string; codeVerifier: string; clientId: string }> {
    const as = await this.metadata();
    const clientId = await this.clientId();
    const req = await authorizationRequest(as, clientId, this.o.callbackUrl, scope);
    return { url: req.url.href, state: req.state, codeVerifier: req.codeVerifier, clientId };
  }

  /** Check the workspace's answer (state, iss: RFC 9207) and exchange its code. */
  async finish(flow: { state: string; codeVerifier: string; clientId: string; scope: RemoteScope }, params: URLSearchParams): Promise<StoredTokens> {
    const as = await this.metadata();
    const client: oauth.Client = { client_id: flow.clientId, token_endpoint_auth_method: 'none' };
    try {
      oauth.validateAuthResponse(as, client, params, flow.state);
    } catch (e) {
      // oauth4webapi checks iss and state before it reads `error`: an error here is the workspace's own.
      if (e instanceof oauth.AuthorizationResponseError) throw new UpstreamDenied(e.error);
      throw new UpstreamFailure(`the workspace's answer was refused: ${e instanceof Error ? e.message : String(e)}`);
    }
    try {
      return await exchangeCode(as, client, params, { state: flow.state, codeVerifier: flow.codeVerifier, redirectUri: this.o.callbackUrl, scope: flow.scope });
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      if (e instanceof SignInError && /invalid_client/.test(msg)) await this.forgetClient(flow.clientId);
      throw new UpstreamFailure(msg);
    }
  }

  /**
   * New workspace tokens; RefreshRejectedError when the workspace refuses the refresh token,
   * WorkspaceUnavailableError when it does not answer usably in time (down, 5xx, hanging): a member's
   * tool call waits on this, so it gives up well before the member would.
   */
  async refresh(clientId: string, tokens: StoredTokens): Promise<StoredTokens> {
    let as: AuthorizationServer;
    try {
      as = await this.metadata();
    } catch (e) {
      throw new WorkspaceUnavailableError(e);
    }
    try {
      return await refreshTokens(as, { client_id: clientId, token_endpoint_auth_method: 'none' }, tokens, REFRESH_TIMEOUT_MS);
    } catch (e) {
      if (e instanceof RefreshRejectedError) throw e;
      throw new WorkspaceUnavailableError(e);
    }
  }

  /** End the workspace authorization behind a grant (best effort: false when not confirmed). */
  async revoke(clientId: string, refreshToken: string): Promise<boolean> {
    const as = await this.metadata();
    return revokeToken(as, { client_id: clientId, token_endpoint_auth_method: 'none' }, refreshToken, 'refresh_token');
  }

  /**
   * Who just signed in. Whose budget the request draws on is what it asks: it counts on a limiter of
   * its own, kept for this one request (docs/architecture.md, Rate budget).
   */
  member(accessToken: string): Promise<StoredMember | undefined> {
    return fetchMember(this.o.workspaceUrl, accessToken, new RateLimiter());
  }
}
