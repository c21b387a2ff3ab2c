/** Types shared by the State Commit backends and the composite commit store. */

/** One write of a block: `value === undefined` deletes the key. */
export interface KVPair {
  key: Uint8Array;
  value: Uint8Array | undefined;
}

/** A block's writes to one store. */
export interface ChangeSet {
  store: string;
  pairs: KVPair[];
}

/** A store added, renamed or deleted at a version (Cosmos store upgrades). */
export interface StoreUpgrade {
  name: string;
  /** rename: the store's previous name */
  renameFrom?: string;
  delete?: boolean;
}

/** One changelog entry: everything a block changed. */
export interface ChangelogEntry {
  version: number;
  upgrades: StoreUpgrade[];
  changeSets: ChangeSet[];
}
