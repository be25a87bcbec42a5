// Sealing: everything the remote mode keeps in the state store (grants with the member's workspace
// tokens, sign-ins in progress, client registrations) is encrypted and authenticated with AES-256-GCM
// under WORKSPACE_STATE_KEY. The store key a value is kept under is its additional authenticated data,
// so a value copied to another key (one member's grant under another's name) does not open.
//
// Format: `v1.<key id>.<iv>.<ciphertext and tag>` (base64url). The key id names which key sealed it, so
// a rotation can keep older keys for reading while every new write uses the current one.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class StateKeyError extends Error {
  override name = 'StateKeyError';
}

/** WORKSPACE_STATE_KEY: exactly 32 random bytes in base64 (standard or url-safe, padding optional). */
export function parseStateKey(raw: string | Buffer, name = 'WORKSPACE_STATE_KEY'): Buffer {
  if (Buffer.isBuffer(raw)) {
    if (raw.length !== 32) throw new StateKeyError(`${name} must be exactly 32 bytes; got ${raw.length}.`);
    return Buffer.from(raw);
  }
  const text = raw.trim();
  const hint = 'make one with: openssl rand -base64 32';
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) throw new StateKeyError(`${name} must be 32 random bytes in base64 (${hint}).`);
  const key = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (key.length !== 32) throw new StateKeyError(`${name} decodes to ${key.length} bytes; it must be exactly 32 (${hint}).`);
  return key;
}

/** A short, stable name for a key that says nothing about it. */
function keyId(key: Buffer): string {
  return createHash('sha256').update('workspace-consulting-mcp state key id\0').update(key).digest('base64url').slice(0, 8);
}

export class Sealer {
  readonly #current: { id: string; key: Buffer };
  readonly #byId: Map<string, Buffer>;

  /** `current` seals; `previous` keys (a rotation in progress) still open what they sealed. */
  constructor(current: Buffer, previous: readonly Buffer[] = []) {
    this.#current = { id: keyId(current), key: Buffer.from(current) };
    this.#byId = new Map([[this.#current.id, this.#current.key]]);
    for (const k of previous) if (!this.#byId.has(keyId(k))) this.#byId.set(keyId(k), Buffer.from(k));
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#current.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${VERSION}.${this.#current.id}.${iv.toString('base64url')}.${body.toString('base64url')}`;
  }

  /** The plaintext, or undefined when the value is not ours, was sealed for another context, or was altered. */
  open(sealed: string, context: string): string | undefined {
    const parts = sealed.split('.');
    if (parts.length !== 4 || parts[0] !== VERSION) return undefined;
    const key = this.#byId.get(parts[1] as string);
    if (!key) return undefined;
    const iv = Buffer.from(parts[2] as string, 'base64url');
    const body = Buffer.from(parts[3] as string, 'base64url');
    if (iv.length !== IV_BYTES || body.length < TAG_BYTES) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
      return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}
