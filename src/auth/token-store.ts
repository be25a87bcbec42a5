// The token store: one JSON file per workspace (mode 0600, directory 0700), replaced atomically, shared
// by every server process of the member. Updates that depend on what is stored (refresh, sign-in)
// run under the store's lock and re-read the file first.
import { chmod, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { makeDirectory } from '../fs/directories.js';
import { type LockOptions, withFileLock } from '../fs/file-lock.js';
import { configDir, storeFileName } from './paths.js';

export type GrantedScope = 'read' | 'write';

/** What the authorization server handed out; times in epoch milliseconds. */
export interface StoredTokens {
  access_token: string;
  refresh_token?: string;
  scope: GrantedScope;
  issued_at: number;
  expires_at: number;
}

interface StoredClient {
  client_id: string;
  /** The issuer that registered it: a registration is only reused with the same server. */
  issuer: string;
  registered_at: string;
}

export interface StoredMember {
  id?: string;
  name?: string;
  email?: string;
}

export interface StoredSignIn {
  version: 1;
  workspace: string;
  issuer?: string;
  client?: StoredClient;
  tokens?: StoredTokens;
  member?: StoredMember;
}

export class TokenStore {
  readonly dir: string;
  readonly file: string;
  readonly lockFile: string;

  constructor(
    readonly workspaceUrl: string,
    dir: string = configDir(),
    private readonly lockOptions: LockOptions = {},
  ) {
    this.dir = dir;
    this.file = join(dir, storeFileName(workspaceUrl));
    this.lockFile = `${this.file}.lock`;
  }

  /** The stored sign-in, or undefined when there is none (or the file is unreadable). */
  async read(): Promise<StoredSignIn | undefined> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    try {
      const rec = JSON.parse(text) as StoredSignIn;
      return rec && rec.version === 1 && rec.workspace === this.workspaceUrl ? rec : undefined;
    } catch {
      // Writes are atomic, so this is a hand-edited or foreign file: treat as not signed in.
      return undefined;
    }
  }

  async write(rec: StoredSignIn): Promise<void> {
    await this.ensureDir();
    await writeFileAtomic(this.file, `${JSON.stringify(rec, null, 2)}\n`, 0o600);
  }

  async remove(): Promise<boolean> {
    try {
      await unlink(this.file);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  }

  /** Run `fn` holding the cross-process lock of this workspace's file. */
  async withLock<T>(fn: () => Promise<T>): Promise<T> {
    await this.ensureDir();
    return withFileLock(this.lockFile, fn, this.lockOptions);
  }

  /** Read, change and write under the lock; `fn` returning undefined deletes the file. */
  async update(fn: (rec: StoredSignIn | undefined) => StoredSignIn | undefined | Promise<StoredSignIn | undefined>): Promise<StoredSignIn | undefined> {
    return this.withLock(async () => {
      const next = await fn(await this.read());
      if (next) await this.write(next);
      else await this.remove();
      return next;
    });
  }

  private async ensureDir(): Promise<void> {
    await makeDirectory(this.dir, 0o700);
    // mkdir leaves an existing directory's mode alone; tighten ours, but never fail on a shared one.
    await chmod(this.dir, 0o700).catch(() => {});
  }
}
