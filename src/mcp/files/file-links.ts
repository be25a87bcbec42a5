// Links to files for one member of a shared (remote) server. A file answer too large to embed in
// the tool result is not saved anywhere: the member gets a link on the public URL that names what to
// fetch (the operation and its arguments), kept in the state store so any replica can serve it, and
// the file is streamed from the workspace when the link is opened, with that member's own token and
// rate budget. The link is short-lived and opens for its member only: anyone else (another member,
// no token) is answered as if it did not exist.
//
// Stored: `file-link:<sha256 of the link id>` -> the member, the operation, its arguments (ids), the
// file's name and type, the expiry, sealed (AES-256-GCM) under a key derived from the link id. The
// link id itself (32 random bytes) is never stored, so the store holds nothing that opens a file, and
// a copy of the store (a backup, a dump) reads no file name, id or member from it: a file's name is
// the member's client data.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { StateStore } from '../../store/state-store.js';

interface FileLinkTarget {
  /** The operation that answers the file, by name, and its validated arguments. */
  op: string;
  args: Record<string, unknown>;
  name: string;
  contentType: string;
  /** Bytes, when the workspace said (Content-Length). */
  size?: number;
}

interface FileLinkRecord extends FileLinkTarget {
  /** The member it opens for (the principal's memberKey). */
  member: string;
  /** Epoch milliseconds after which it opens for nobody. */
  expiresAt: number;
}

/** Issues links for one member: what the pipeline holds in remote mode instead of a download folder. */
export interface MemberFileLinks {
  /** Seconds a link stays valid. */
  readonly ttlSeconds: number;
  issue(target: FileLinkTarget): Promise<{ url: string; expiresAt: number }>;
}

const ID = /^[A-Za-z0-9_-]{43}$/;

const keyOf = (id: string) => `file-link:${createHash('sha256').update(id).digest('base64url')}`;
/** The record's key: from the link id too, under a label of its own (so it is not the store key). */
const sealKeyOf = (id: string) => createHash('sha256').update('workspace-consulting-mcp file link\0').update(id).digest();

function seal(id: string, text: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealKeyOf(id), iv);
  const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

function unseal(id: string, sealed: string): string | undefined {
  try {
    const raw = Buffer.from(sealed, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', sealKeyOf(id), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

export class FileLinks {
  readonly #store: StateStore;
  readonly #base: string;
  readonly #ttlMs: number;
  readonly #now: () => number;

  /** `base`: the public URL links start with, the id appended (e.g. `https://mcp.acme.example/files/`). */
  constructor(opts: { store: StateStore; base: string; ttlSeconds: number; now?: () => number }) {
    this.#store = opts.store;
    this.#base = opts.base;
    this.#ttlMs = opts.ttlSeconds * 1000;
    this.#now = opts.now ?? Date.now;
  }

  /** The issuer of one member's links. */
  forMember(member: string): MemberFileLinks {
    return { ttlSeconds: this.#ttlMs / 1000, issue: (target) => this.issue(member, target) };
  }

  async issue(member: string, target: FileLinkTarget): Promise<{ url: string; expiresAt: number }> {
    const id = randomBytes(32).toString('base64url');
    const expiresAt = this.#now() + this.#ttlMs;
    const record: FileLinkRecord = { ...target, member, expiresAt };
    await this.#store.set(keyOf(id), seal(id, JSON.stringify(record)), { ttlMs: this.#ttlMs });
    return { url: `${this.#base}${id}`, expiresAt };
  }

  /** The link's target when it is alive and `member`'s; undefined otherwise (unknown, expired, another's). */
  async open(id: string, member: string): Promise<FileLinkRecord | undefined> {
    if (!ID.test(id)) return undefined;
    const sealed = await this.#store.get(keyOf(id));
    const raw = sealed === undefined ? undefined : unseal(id, sealed);
    if (!raw) return undefined;
    let record: FileLinkRecord;
    try {
      record = JSON.parse(raw) as FileLinkRecord;
    } catch {
      return undefined;
    }
    // The store's own expiry may lag (a memory store sweeps lazily): the record's is the rule.
    if (record.member !== member || !(record.expiresAt > this.#now())) return undefined;
    return record;
  }
}
