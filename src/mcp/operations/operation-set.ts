// The operations of one workspace, shared by every session of the process: the catalog, and what the
// workspace's live description adds (generated operations). The description is loaded once, at
// start; the first tools/list of any client waits for it (bounded), so no tool arrives later for the
// sandbox or for a workspace whose description is cached, and a change reaches clients through the
// `changed` listeners (list_changed notifications, listen streams).
import type { ApiClient } from '../../api/client.js';
import type { Logger } from '../../log.js';
import type { Operation } from '../../operation.js';
import { liveOperations, loadLiveDescription } from './live-openapi.js';
import { OperationIndex } from './search.js';

/**
 * How long the first tools/list waits for a description it has to fetch: long enough for a workspace
 * that answers normally, short enough that a slow one never stalls the client (the catalog alone is
 * listed, with a warning, and the rest follows as a list change).
 */
export const LIVE_LIST_WAIT_MS = 3000;

interface OperationSetOptions {
  catalog: readonly Operation[];
  logger: Logger;
  /** The client the description is fetched with (any member's: the description is the workspace's). */
  client?: ApiClient;
  /** false: the catalog alone (offline tools, tests). Default true. */
  live?: boolean;
  /** Workspace origin: keys the description caches. Unknown: fetched, never cached. */
  origin?: string;
  /** Folder for the description kept between starts; unset: memory only. */
  cacheDir?: string;
  listWaitMs?: number;
}

export class OperationSet {
  readonly index: OperationIndex;
  readonly #byName = new Map<string, Operation>();
  #ops: Operation[];
  #live: Promise<void>;
  readonly #listWaitMs: number;
  readonly #logger: Logger;
  readonly #listeners = new Set<() => void>();
  #settled = true;
  #warned = false;

  readonly #opts: OperationSetOptions;
  #started = false;

  constructor(opts: OperationSetOptions) {
    this.#opts = opts;
    this.#ops = [...opts.catalog];
    for (const op of opts.catalog) this.#byName.set(op.name, op);
    this.index = new OperationIndex(opts.catalog);
    this.#logger = opts.logger;
    this.#listWaitMs = opts.listWaitMs ?? LIVE_LIST_WAIT_MS;
    this.#live = Promise.resolve();
    if (opts.live !== false) this.startLive();
  }

  /**
   * Loads the live description (once): at construction, or later when it could not be asked for
   * then (a member not signed in yet; the remote mode's first member, whose client asks for it).
   */
  startLive(given?: ApiClient): void {
    const { logger, catalog } = this.#opts;
    const client = given ?? this.#opts.client;
    if (this.#started || !client) return;
    this.#started = true;
    this.#settled = false;
    this.#live = loadLiveDescription({
      client,
      ...(this.#opts.origin ? { origin: this.#opts.origin } : {}),
      ...(this.#opts.cacheDir ? { cacheDir: this.#opts.cacheDir } : {}),
      logger,
    })
      .then((d) => {
        if (!d) return;
        const added = this.#add(liveOperations(d.document, catalog));
        logger.debug({ version: d.version, source: d.source, generated: added.map((o) => o.name) }, 'live API description merged');
      })
      .catch((err: unknown) => logger.warn({ err: String(err) }, 'live API description not merged'))
      .finally(() => {
        this.#settled = true;
      });
  }

  /** Operations learnt from the live description; names already taken are skipped. */
  #add(ops: readonly Operation[]): Operation[] {
    const added = ops.filter((op) => !this.#byName.has(op.name));
    if (!added.length) return added;
    for (const op of added) this.#byName.set(op.name, op);
    this.#ops = [...this.#ops, ...added];
    this.index.add(added);
    for (const l of this.#listeners) l();
    return added;
  }

  /** Every operation: the catalog in its order, then the generated ones. */
  all(): readonly Operation[] {
    return this.#ops;
  }

  get(name: string): Operation | undefined {
    return this.#byName.get(name);
  }

  /** Resolves once the live description is merged or given up on. */
  ready(): Promise<void> {
    return this.#live;
  }

  /**
   * Resolves when a first tools/list answers: once the description is merged or given up on (true),
   * or when the wait for it is over (false: the catalog alone is listed, the rest comes as a change).
   */
  async listable(): Promise<boolean> {
    if (this.#settled) return true;
    this.#logger.debug({ waitMs: this.#listWaitMs }, 'tools/list waits for the live API description');
    let timer: NodeJS.Timeout | undefined;
    const waited = await Promise.race([
      this.#live.then(() => true),
      new Promise<boolean>((r) => {
        timer = setTimeout(() => r(false), this.#listWaitMs);
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
    return waited;
  }

  /** For tools/list: the description when it comes within the wait, else the catalog alone now. */
  async listReady(): Promise<void> {
    const waited = await this.listable();
    if (!waited && !this.#warned) {
      this.#warned = true;
      this.#logger.warn(
        { waitedMs: this.#listWaitMs },
        'the live API description is slow to arrive: listing the catalog now; its extra operations follow as a list change',
      );
    }
  }

  /** Called after operations were added (the list changed). Returns the unsubscribe function. */
  onChanged(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
