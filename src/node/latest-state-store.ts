/**
 * The State Store of a node with `state-store.ss-enable = false`: no history database at all. Every
 * read comes from State Commit, which holds the latest state. The last few versions stay readable
 * from memory, so that a read resolved at the latest height still answers right when the next block
 * commits while it runs (memiavl keeps recent versions as immutable views; for the EVM state on
 * flatkv, which holds only the latest values, each block's overwritten values are kept here). Any
 * older height answers an error naming ss-enable: a wrong or empty answer is never served instead.
 */
import type { KVEntry } from '../storage/kv/types.ts';
import type { CommitStore } from '../storage/sc/commit-store.ts';
import { SSVersionTooHighError } from '../storage/ss/index.ts';
import { type KeyRange, StateStoreReads } from '../storage/ss/store-reads.ts';
import type { ImportEntry, StateStore, StoreChange, SyncStateRead } from '../storage/ss/types.ts';
import { ChainError } from '../util/errors.ts';

/** Why state below the earliest height is missing, for the errors of every read path. */
export const NO_STATE_HISTORY = 'this node keeps no state history (state-store.ss-enable = false)';

/** Versions kept readable: memiavl retains as many committed views by default. */
export const LATEST_ONLY_WINDOW = 16;

export class StateHistoryDisabledError extends ChainError {
  constructor(message: string) {
    super('SS_DISABLED', message);
  }
}

export class LatestOnlyStateStore extends StateStoreReads implements StateStore {
  readonly unavailableReason = NO_STATE_HISTORY;
  private readonly sc: CommitStore;
  private readonly window: number;
  /**
   * Version v → the value at version v - 1 of every key that version v wrote (undefined: absent),
   * recorded when the change set arrives, before State Commit commits it (chain.ts: SS before SC).
   */
  private readonly undo = new Map<number, Map<string, Uint8Array | undefined>>();

  constructor(sc: CommitStore, window = LATEST_ONLY_WINDOW) {
    super();
    this.sc = sc;
    this.window = Math.max(1, window);
  }

  latestVersion(): number {
    return this.sc.version;
  }

  /** The oldest version whose later writes are all recorded (after a restart: the latest only). */
  earliestVersion(): number {
    const latest = this.sc.version;
    let v = latest;
    while (v > 1 && latest - v + 1 < this.window && this.undo.has(v)) v--;
    return v;
  }

  protected entries(store: string, range: KeyRange, version: number): AsyncIterable<KVEntry> {
    this.check(version);
    return this.sc.iterate(store, range.start, range.end, version, range.reverse);
  }

  async syncReaderAt(version: number): Promise<SyncStateRead | undefined> {
    this.check(version);
    return (store, key) => this.valueAt(store, key, version);
  }

  async applyChangeSet(version: number, changes: readonly StoreChange[]): Promise<void> {
    const prev = new Map<string, Uint8Array | undefined>();
    for (const c of changes) {
      const id = idOf(c.store, c.key);
      if (!prev.has(id)) prev.set(id, this.sc.get(c.store, c.key));
    }
    this.undo.set(version, prev);
    for (const v of this.undo.keys()) if (v <= version - this.window) this.undo.delete(v);
  }

  async prune(): Promise<void> {}

  /**
   * A state-sync restore: State Commit already holds the imported state, which is all this store
   * reads, so the entries are not even read; nothing from before the snapshot is kept.
   */
  async import(): Promise<void> {
    this.undo.clear();
  }

  async rollback(): Promise<void> {
    this.undo.clear();
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {}

  protected valueAt(store: string, key: Uint8Array, version: number): Uint8Array | undefined {
    // while State Commit commits the next version, its stores may already answer at that version
    const latest = this.check(version) + (this.sc.committing ? 1 : 0);
    if (version < latest) {
      const id = idOf(store, key);
      // the value at `version` is the one the first later write replaced, if any
      for (let v = version + 1; v <= latest; v++) {
        const prev = this.undo.get(v)!;
        if (prev.has(id)) return prev.get(id);
      }
    }
    return this.sc.get(store, key);
  }

  /** Throws unless `version` is readable; returns the latest version. */
  private check(version: number): number {
    const latest = this.sc.version;
    if (version > latest) throw new SSVersionTooHighError(version, latest);
    const earliest = this.earliestVersion();
    if (version < earliest) {
      // Version v is the state after block v - 1 (chain.ts); messages speak in heights.
      throw new StateHistoryDisabledError(
        `state at height ${version - 1} is not available: ${NO_STATE_HISTORY}; ` +
          `it serves the latest state and the few blocks before it (heights ${earliest - 1} to ${latest - 1})`,
      );
    }
    return latest;
  }
}

function idOf(store: string, key: Uint8Array): string {
  return `${store}\0${Buffer.from(key).toString('latin1')}`;
}
