// Typed, sealed records over the state store. Every remote-mode value goes through here: JSON, sealed
// under the state key with its store key as context, under the `remote:` namespace. Reads hand back
// the raw sealed text too, so an update can be a compare-and-set against exactly what was read.
import type { StateStore } from '../store/state-store.js';
import type { Sealer } from './sealing.js';

/** What the remote mode keeps, by kind; the id is random or a hash, never a token itself. */
export type RecordKind =
  | 'client' // a registered MCP client (RFC 7591)
  | 'txn' // an authorization request waiting for the member's approval on our page
  | 'flow' // a sign-in sent to the workspace, keyed by the state sent there
  | 'code' // one of our authorization codes, by hash
  | 'code-used' // a redeemed code, by hash: a second use ends what the first bought
  | 'grant' // a member's authorization of one MCP client, with the sealed workspace tokens
  | 'access' // one of our access tokens, by hash
  | 'lease' // which replica refreshes a grant's workspace tokens right now
  | 'upstream-client'; // this server's registration with the workspace

export interface Read<T> {
  value: T;
  /** The stored text, for compareAndSet. */
  raw: string;
}

export class SealedRecords {
  constructor(
    readonly store: StateStore,
    private readonly sealer: Sealer,
    private readonly onUnreadable: (kind: RecordKind) => void = () => {},
  ) {}

  key(kind: RecordKind, id: string): string {
    return `remote:${kind}:${id}`;
  }

  seal(kind: RecordKind, id: string, value: unknown): string {
    return this.sealer.seal(JSON.stringify(value), this.key(kind, id));
  }

  #open<T>(kind: RecordKind, id: string, raw: string | undefined): Read<T> | undefined {
    if (raw === undefined) return undefined;
    const text = this.sealer.open(raw, this.key(kind, id));
    if (text === undefined) {
      // Sealed under a key this replica no longer has, or altered: as good as absent.
      this.onUnreadable(kind);
      return undefined;
    }
    return { value: JSON.parse(text) as T, raw };
  }

  async read<T>(kind: RecordKind, id: string): Promise<Read<T> | undefined> {
    return this.#open<T>(kind, id, await this.store.get(this.key(kind, id)));
  }

  async write(kind: RecordKind, id: string, value: unknown, ttlMs?: number): Promise<void> {
    await this.store.set(this.key(kind, id), this.seal(kind, id, value), ttlMs !== undefined ? { ttlMs } : undefined);
  }

  /** Write only when nothing is there yet (atomic). The stored text when this call wrote it. */
  async create(kind: RecordKind, id: string, value: unknown, ttlMs?: number): Promise<string | undefined> {
    const raw = this.seal(kind, id, value);
    return (await this.store.setIfAbsent(this.key(kind, id), raw, ttlMs !== undefined ? { ttlMs } : undefined)) ? raw : undefined;
  }

  /** Read and delete in one step: a one-time record is used once, whichever replica gets there first. */
  async take<T>(kind: RecordKind, id: string): Promise<T | undefined> {
    return this.#open<T>(kind, id, await this.store.take(this.key(kind, id)))?.value;
  }

  /** Replace only if the stored text is still `expected`: the new stored text, or undefined when it changed. */
  async replace(kind: RecordKind, id: string, expected: string, value: unknown, ttlMs?: number): Promise<string | undefined> {
    const next = this.seal(kind, id, value);
    return (await this.store.compareAndSet(this.key(kind, id), expected, next, ttlMs !== undefined ? { ttlMs } : undefined)) ? next : undefined;
  }

  /** Delete only if the stored text is still `expected`. */
  async remove(kind: RecordKind, id: string, expected: string): Promise<boolean> {
    return this.store.compareAndSet(this.key(kind, id), expected, undefined);
  }

  async delete(kind: RecordKind, id: string): Promise<void> {
    await this.store.delete(this.key(kind, id));
  }
}
