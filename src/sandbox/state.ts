// In-memory state of the sandbox: collections of records per workspace, and the registry of workspaces
// by host name. Records are stored and handed out BY REFERENCE: a handler that changes a record it got
// from `get`/`all` changes the stored one, as `update` does.
import { randomBytes } from 'node:crypto';
import { SEED_BASE } from './data/ids.js';
import { type Collection, notFound, type Rec, type WorkspaceState } from './types.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

function encodeTime(ms: number): string {
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

function encodeRandom(bytes: Uint8Array): string {
  // 16 characters of 5 bits each (80 bits); one byte per character is enough randomness for a sandbox.
  let out = '';
  for (let i = 0; i < 16; i++) out += CROCKFORD[(bytes[i] ?? 0) & 31];
  return out;
}

/** mulberry32: a tiny seeded PRNG, so seeded ids are identical on every start. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hashString(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** Singular, human name of a collection for 404 messages: `findings` -> `finding`. */
function singular(name: string): string {
  const base = name.endsWith('ies') ? `${name.slice(0, -3)}y` : name.endsWith('s') ? name.slice(0, -1) : name;
  return base.replace(/_/g, ' ');
}

class MemoryCollection<T extends Rec> implements Collection<T> {
  private readonly records = new Map<string, T>();

  constructor(
    readonly name: string,
    private readonly ws: MemoryWorkspace,
  ) {}

  get(id: string): T | undefined {
    return this.records.get(id);
  }

  must(id: string, what = singular(this.name)): T {
    const r = this.records.get(id);
    if (!r) throw notFound(what);
    return r;
  }

  /** Records in insertion order (seeded order, then creation order). */
  all(filter?: (r: T) => boolean): T[] {
    const out: T[] = [];
    for (const r of this.records.values()) if (!filter || filter(r)) out.push(r);
    return out;
  }

  /** First record matching, without building an array (token lookups on every request). */
  find(pred: (r: T) => boolean): T | undefined {
    for (const r of this.records.values()) if (pred(r)) return r;
    return undefined;
  }

  get size(): number {
    return this.records.size;
  }

  insert(r: Omit<T, 'id' | 'created_at' | 'updated_at'> & Partial<Rec>): T {
    const now = this.ws.nowIso();
    const id = typeof r.id === 'string' ? r.id : this.ws.newId();
    const created = typeof r.created_at === 'string' ? r.created_at : now;
    const rec = { ...r, id, created_at: created, updated_at: typeof r.updated_at === 'string' ? r.updated_at : created } as unknown as T;
    this.records.set(id, rec);
    return rec;
  }

  update(id: string, patch: Partial<T>): T {
    const rec = this.must(id);
    Object.assign(rec, patch, { updated_at: this.ws.nowIso() });
    return rec;
  }

  remove(id: string): boolean {
    return this.records.delete(id);
  }
}

/**
 * One workspace's state. While `seeding`, ids and default timestamps come from a counter on the seed
 * clock (SEED_BASE), so the demo data is byte-identical on every start; afterwards ids follow the real
 * clock, strictly increasing, so they stay unique and sort after the seeded ones created before them.
 */
export class MemoryWorkspace implements WorkspaceState {
  readonly collections = new Map<string, MemoryCollection<Rec>>();
  readonly counters: Record<string, number> = {};
  workspace: Rec;
  seeding = true;
  private lastTime = 0;
  private seedTick = 0;
  private readonly random: () => number;

  constructor(
    readonly slug: string,
    readonly hosts: string[],
    workspaceId: string,
  ) {
    this.random = prng(hashString(slug));
    this.workspace = { id: workspaceId, slug, created_at: new Date(SEED_BASE).toISOString() };
    this.workspace.updated_at = this.workspace.created_at;
  }

  c<T extends Rec = Rec>(name: string): MemoryCollection<T> {
    let col = this.collections.get(name);
    if (!col) {
      col = new MemoryCollection<Rec>(name, this);
      this.collections.set(name, col);
    }
    return col as unknown as MemoryCollection<T>;
  }

  newId(): string {
    if (this.seeding) {
      const t = SEED_BASE + this.seedTick++;
      const bytes = new Uint8Array(16);
      for (let i = 0; i < 16; i++) bytes[i] = Math.floor(this.random() * 256);
      return encodeTime(t) + encodeRandom(bytes);
    }
    const t = Math.max(Date.now(), this.lastTime + 1, SEED_BASE + this.seedTick);
    this.lastTime = t;
    return encodeTime(t) + encodeRandom(randomBytes(16));
  }

  /** Default timestamp of new records: the seed clock while seeding, real time afterwards. */
  nowIso(): string {
    return this.seeding ? new Date(SEED_BASE + this.seedTick).toISOString() : new Date().toISOString();
  }
}

export interface WorkspaceSpec {
  slug: string;
  hosts: string[];
  id: string;
  seed: (ws: WorkspaceState) => void;
}

/** The workspaces of one sandbox process, found by the request's Host header. */
export class WorkspaceRegistry {
  private byHost = new Map<string, MemoryWorkspace>();
  private list: MemoryWorkspace[] = [];

  constructor(private readonly specs: WorkspaceSpec[]) {
    this.reset();
  }

  /** Drop every change and seed all workspaces again (the admin reset). */
  reset(): void {
    this.list = this.specs.map((s) => {
      const ws = new MemoryWorkspace(s.slug, s.hosts, s.id);
      s.seed(ws);
      ws.seeding = false;
      return ws;
    });
    this.byHost = new Map();
    for (const ws of this.list) for (const h of ws.hosts) this.byHost.set(h, ws);
  }

  all(): readonly MemoryWorkspace[] {
    return this.list;
  }

  bySlug(slug: string): MemoryWorkspace | undefined {
    return this.list.find((w) => w.slug === slug);
  }

  /** `host` is the Host header's name part, lower-cased, without the port. */
  byHostName(host: string): MemoryWorkspace | undefined {
    return this.byHost.get(host);
  }
}
