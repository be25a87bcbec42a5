// The in-memory store: one process, nothing to run. It is the SQLite store on a private in-memory
// database: the same rules and code as the local store, exact for this process alone.
import { SqliteStore } from './sqlite.js';

export class MemoryStore extends SqliteStore {
  constructor(opts: { now?: () => number } = {}) {
    super(':memory:', opts);
  }
}
