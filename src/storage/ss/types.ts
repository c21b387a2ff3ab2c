import type { KVEntry } from '../kv/types.ts';

/** One write of a block's change set: `value` null deletes the key at this version. */
export interface StoreChange {
  store: string;
  key: Uint8Array;
  value: Uint8Array | null;
}

/** One entry of a state-sync snapshot stream (all at the imported height). */
export interface ImportEntry {
  store: string;
  key: Uint8Array;
  value: Uint8Array;
}

/**
 * "Value of key K of store S at version V" for every version the store keeps. Versions are block
 * heights (safe integers); 0 means "no version yet".
 */
export interface StateStore {
  /** Value at `version`, or undefined if absent or deleted; absent below `earliestVersion()`. */
  get(store: string, key: Uint8Array, version: number): Promise<Uint8Array | undefined>;
  has(store: string, key: Uint8Array, version: number): Promise<boolean>;
  /** Live keys of `store` in [start, end) with their values at `version`, in key order or reverse. */
  iterator(
    store: string,
    start: Uint8Array | undefined,
    end: Uint8Array | undefined,
    version: number,
    reverse?: boolean,
  ): AsyncIterable<KVEntry>;
  /**
   * Synchronous reads at `version` once it is applied (see CompositeStateStore.syncReaderAt);
   * undefined (or absent) when the engines cannot read synchronously.
   */
  syncReaderAt?(version: number): Promise<SyncStateRead | undefined>;
  /** Records one block's writes; versions strictly increase. */
  applyChangeSet(version: number, changes: readonly StoreChange[]): Promise<void>;
  /** The newest version readable now (with async writes, the newest one applied). */
  latestVersion(): number;
  earliestVersion(): number;
  /** Why versions below earliestVersion() are missing when it is not pruning (for errors); optional. */
  readonly unavailableReason?: string;
  /** Drops history below `version`, keeping each key's newest version at or below it. */
  prune(version: number): Promise<void>;
  /** Bulk-loads a snapshot taken at `version`; afterwards earliest = latest = `version`. */
  import(version: number, entries: AsyncIterable<ImportEntry> | Iterable<ImportEntry>): Promise<void>;
  /**
   * Discards every version above `version` (an operator's rollback, node stopped; a dev chain's
   * evm_revert, in process).
   */
  rollback(version: number): Promise<void>;
  /**
   * From now on, remembers which entries the recent versions wrote (up to `maxKeys` per database), so
   * that a rollback within them removes those entries instead of scanning the whole store: for a dev
   * chain, which rolls back a few blocks again and again (evm_revert). Absent: nothing to remember.
   */
  keepRecentWrites?(maxKeys: number): void;
  /** Resolves when every accepted change set is in the database. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** A synchronous point read at a fixed version: the value, or undefined if absent or deleted. */
export type SyncStateRead = (store: string, key: Uint8Array) => Uint8Array | undefined;
