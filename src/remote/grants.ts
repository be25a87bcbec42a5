// Grants: one member's authorization of one MCP client, holding the workspace tokens that sign-in
// bought (sealed at rest with the rest of the record). The workspace tokens are refreshed here, once
// across every replica: a lease in the store says who refreshes; the others wait for the result. A
// refresh the workspace refuses ends the grant only if the stored refresh token is still the one that
// failed (another replica may have replaced it meanwhile); every write is a compare-and-set.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { EventSink } from '../audit/events.js';
import { RefreshRejectedError } from '../auth/token-requests.js';
import type { StoredTokens } from '../auth/token-store.js';
import type { RemoteScope } from './metadata.js';
import type { Read, SealedRecords } from './records.js';
import { type Upstream, WorkspaceUnavailableError } from './upstream.js';

/** The member's authorization is gone (revoked at the workspace, signed out, or expired): sign in again. */
export class GrantEndedError extends Error {
  override name = 'GrantEndedError';
  constructor() {
    super("The member's authorization ended (revoked in the workspace's Connected apps, or expired): sign in again.");
  }
}

export interface GrantRecord {
  /** The workspace member (GET /me). */
  memberId: string;
  /** This server's client_id at the workspace that obtained the tokens. */
  upstreamClientId: string;
  /** The MCP client it was granted to. */
  clientId: string;
  /** What the member consented to at the workspace: the ceiling of the session. */
  scope: RemoteScope;
  resource: string;
  workspace: StoredTokens;
  createdAt: number;
  /** The client's current refresh token (its hash), set when the code is redeemed and at each rotation. */
  refresh?: { hash: string; scope: RemoteScope; expiresAt: number };
  /** Hashes of the last refresh tokens it replaced: one of them used again means a copy is in use. */
  replacedRefresh?: string[];
}

/** The outcome of `update`: the record written, or why nothing was. */
type GrantUpdate = { written: Read<GrantRecord> } | { declined: Read<GrantRecord> } | { absent: true };

interface GrantsOptions {
  records: SealedRecords;
  upstream: Upstream;
  logger: Logger;
  now: () => number;
  /** How long a grant is kept after its last use (the refresh token's life). */
  ttlMs: number;
  /** The audit trail and metrics: told of each grant that ends. */
  events?: EventSink;
}

/** How long one replica may hold the right to refresh a grant (the refresh request times out at 5 s). */
const LEASE_MS = 20_000;

/** Refresh a little before expiry: a minute, or a quarter of the token's life if that is shorter. */
function refreshDue(t: StoredTokens, now: number): boolean {
  return t.expires_at - now <= Math.min(60_000, (t.expires_at - t.issued_at) / 4);
}

const shortId = (id: string) => id.slice(0, 8);

export class Grants {
  readonly #inflight = new Map<string, Promise<Read<GrantRecord>>>();

  constructor(private readonly o: GrantsOptions) {}

  async create(rec: GrantRecord, ttlMs: number): Promise<string> {
    const id = randomBytes(18).toString('base64url');
    await this.o.records.write('grant', id, rec, ttlMs);
    return id;
  }

  read(id: string): Promise<Read<GrantRecord> | undefined> {
    return this.o.records.read<GrantRecord>('grant', id);
  }

  /**
   * Change a grant with compare-and-set, reading again when another write came first. `change`
   * returns the new record, or undefined to leave it (it sees the latest record each time). The
   * grant is then kept for another full term.
   */
  async update(id: string, change: (g: GrantRecord) => GrantRecord | undefined): Promise<GrantUpdate> {
    for (let attempt = 0; attempt < 20; attempt++) {
      const g = await this.read(id);
      if (!g) return { absent: true };
      const next = change(g.value);
      if (!next) return { declined: g };
      const raw = await this.o.records.replace('grant', id, g.raw, next, this.o.ttlMs);
      if (raw) return { written: { value: next, raw } };
    }
    throw new Error('A grant kept changing under 20 attempts to update it.');
  }

  /** A workspace access token valid now, refreshed first when it is about to expire. */
  async workspaceToken(id: string): Promise<string> {
    const g = await this.read(id);
    if (!g) throw new GrantEndedError();
    if (!refreshDue(g.value.workspace, this.o.now())) return g.value.workspace.access_token;
    return (await this.refresh(id, g)).value.workspace.access_token;
  }

  /**
   * The workspace answered 401 to `failedToken`. If another replica has already replaced it, the new
   * one is used; otherwise one refresh is tried. A refused refresh ends the grant.
   */
  async onWorkspaceUnauthorized(id: string, failedToken: string | undefined): Promise<'refreshed' | 'ended'> {
    const g = await this.read(id);
    if (!g) return 'ended';
    if (failedToken !== undefined && g.value.workspace.access_token !== failedToken) return 'refreshed';
    try {
      await this.refresh(id, g, true);
      return 'refreshed';
    } catch (e) {
      if (e instanceof GrantEndedError) return 'ended';
      throw e;
    }
  }

  /**
   * Refresh the grant whose stored record was `snapshot`: at most one refresh at a time per grant in
   * this process, and one across replicas (the lease). Resolves with the record to use.
   */
  refresh(id: string, snapshot: Read<GrantRecord>, force = false): Promise<Read<GrantRecord>> {
    let p = this.#inflight.get(id);
    if (!p) {
      p = this.#refreshAcrossReplicas(id, snapshot, force).finally(() => this.#inflight.delete(id));
      this.#inflight.set(id, p);
    }
    return p;
  }

  async #refreshAcrossReplicas(id: string, snapshot: Read<GrantRecord>, force: boolean): Promise<Read<GrantRecord>> {
    const replaced = (cur: Read<GrantRecord>) =>
      cur.value.workspace.refresh_token !== snapshot.value.workspace.refresh_token ||
      cur.value.workspace.access_token !== snapshot.value.workspace.access_token;
    const owner = randomBytes(12).toString('base64url');
    const deadline = Date.now() + LEASE_MS;
    let lease: string | undefined;
    for (let wait = 25; ; wait = Math.min(wait * 2, 400)) {
      lease = await this.o.records.create('lease', id, { owner }, LEASE_MS);
      if (lease) break;
      // Another replica is refreshing this grant: its result lands in the store.
      await sleep(wait);
      const cur = await this.read(id);
      if (!cur) throw new GrantEndedError();
      if (replaced(cur)) return cur;
      if (Date.now() > deadline) throw new WorkspaceUnavailableError(new Error('Timed out waiting for another replica to refresh the workspace tokens.'));
    }
    try {
      const cur = await this.read(id);
      if (!cur) throw new GrantEndedError();
      // Refreshed by someone else between our read and the lease.
      if (replaced(cur)) return cur;
      if (!force && !refreshDue(cur.value.workspace, this.o.now())) return cur;
      return await this.#refreshNow(id, cur);
    } finally {
      await this.o.records.remove('lease', id, lease).catch(() => {});
    }
  }

  async #refreshNow(id: string, cur: Read<GrantRecord>): Promise<Read<GrantRecord>> {
    const failed = cur.value.workspace.refresh_token;
    let tokens: StoredTokens;
    try {
      tokens = await this.o.upstream.refresh(cur.value.upstreamClientId, cur.value.workspace);
    } catch (e) {
      if (!(e instanceof RefreshRejectedError)) throw e;
      // End the grant only if the stored refresh token is still the one refused: another replica
      // (whose lease outlived it) may have replaced it meanwhile, and the new tokens stand.
      for (;;) {
        const again = await this.read(id);
        if (!again) throw new GrantEndedError();
        if (again.value.workspace.refresh_token !== failed) return again;
        if (await this.o.records.remove('grant', id, again.raw)) {
          this.#ended(id, again.value, 'workspace refused the refresh');
          this.o.logger.warn(
            { event: 'remote.grant_ended', grant: shortId(id), reason: 'workspace refused the refresh', cause: e.message },
            "a member's authorization ended at the workspace",
          );
          throw new GrantEndedError();
        }
      }
    }
    // Other fields may have changed meanwhile (the client rotated its refresh token): keep them, and
    // write the new workspace tokens unless someone else has already replaced the old ones.
    const outcome = await this.update(id, (g) => (g.workspace.refresh_token === failed ? { ...g, workspace: tokens } : undefined));
    if ('written' in outcome) {
      this.o.logger.debug({ event: 'remote.workspace_refreshed', grant: shortId(id) }, 'workspace tokens refreshed');
      return outcome.written;
    }
    if ('declined' in outcome) return outcome.declined;
    // The grant ended while the workspace answered: what it just issued is not kept anywhere.
    if (tokens.refresh_token) await this.o.upstream.revoke(cur.value.upstreamClientId, tokens.refresh_token).catch(() => false);
    throw new GrantEndedError();
  }

  #ended(id: string, g: GrantRecord, reason: string): void {
    this.o.events?.emit({ event: 'revocation', what: 'grant', member: `member:${g.memberId}`, client: g.clientId, reason, grant: shortId(id) });
  }

  /** End a grant here and, best effort, at the workspace. */
  async end(id: string, reason: string): Promise<void> {
    const g = await this.read(id);
    await this.o.records.delete('grant', id);
    if (!g) return;
    this.#ended(id, g.value, reason);
    this.o.logger.info({ event: 'remote.grant_ended', grant: shortId(id), reason }, "a member's authorization ended");
    const rt = g.value.workspace.refresh_token;
    if (rt) await this.o.upstream.revoke(g.value.upstreamClientId, rt).catch(() => false);
  }
}
