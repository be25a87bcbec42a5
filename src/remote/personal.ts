// Unattended agents (a scheduled job drafting deliverables, a CI step) have no browser to sign in
// with. When the operator turns it on, such an agent sends a member's personal token in the
// X-Workspace-Token header, over TLS to the public origin. It is used for that request only: checked
// against the workspace (GET /me through the API client, src/api/me.ts; remembered for a minute by its hash, in this process's memory),
// never written to the store or a log line. Off by default: a server that accepts personal tokens
// makes every holder of one a caller, with no consent step of its own.
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { WorkspaceApiError } from '../api/errors.js';
import type { RateLimiter } from '../api/limiter.js';
import { type CurrentMember, memberOfToken } from '../api/me.js';
import type { RemoteScope } from './metadata.js';

export const PERSONAL_TOKEN_HEADER = 'x-workspace-token';
/** `pat_` then letters, digits, `_` or `-`: anything else never reaches the workspace. */
const SHAPE = /^pat_[A-Za-z0-9_-]{8,200}$/;
const REMEMBER_MS = 60_000;

interface PersonalIdentity {
  memberId: string;
  scope: RemoteScope;
}

type PersonalCheck = PersonalIdentity | 'malformed' | 'refused' | 'unavailable';

export class PersonalTokens {
  readonly #known = new LRUCache<string, PersonalIdentity>({ max: 1000, ttl: REMEMBER_MS });

  /**
   * `budget(name)`: the rate budget of that name (RemotePrincipal.budgetKey), as the token's sessions
   * draw on it. A check draws on its token's own (the workspace counts per token): one budget for
   * all checks would let a flood of made-up tokens hold up the real ones.
   */
  constructor(
    private readonly workspaceUrl: string,
    private readonly budget: (name: string) => RateLimiter,
  ) {}

  static hash(token: string): string {
    return createHash('sha256').update(token).digest('hex');
  }

  /** The name of the rate budget a personal token draws on, from its hash. */
  static budgetName(hash: string): string {
    return `pat:${hash.slice(0, 32)}`;
  }

  async check(token: string): Promise<PersonalCheck> {
    if (!SHAPE.test(token)) return 'malformed';
    const key = PersonalTokens.hash(token);
    const hit = this.#known.get(key);
    if (hit) return hit;
    let me: CurrentMember;
    try {
      me = await memberOfToken(`${new URL(this.workspaceUrl).origin}/api/v1`, token, { limiter: this.budget(PersonalTokens.budgetName(key)) });
    } catch (err) {
      return err instanceof WorkspaceApiError && (err.status === 401 || err.status === 403) ? 'refused' : 'unavailable';
    }
    const id = me.id;
    if (typeof id !== 'string' || id === '') return 'unavailable';
    // The workspace describes the token it was sent (GET /me `token.scope`); when it does not, read
    // only: the narrowest scope is the safe guess, and a write then fails with the workspace's 403.
    const scope: RemoteScope = me.token?.scope === 'write' ? 'write' : 'read';
    const identity = { memberId: id, scope };
    this.#known.set(key, identity);
    return identity;
  }

  /** The workspace refused it after all (revoked since): check again next time. */
  forget(token: string): void {
    this.#known.delete(PersonalTokens.hash(token));
  }
}
