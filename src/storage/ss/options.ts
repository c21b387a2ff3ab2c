import { isAbsolute, join } from 'node:path';
import type { KVOpener } from '../kv/types.ts';

/** `ss-backend`: `pebbledb` is the name Cosmos SDK configurations use for the default engine
 * (kept so their app.toml works unchanged), served here by lmdb. */
export type StateStoreBackend = 'pebbledb' | 'rocksdb' | 'lmdb';

export interface StateStoreOptions {
  /** The node's data directory (`<home>/data`). */
  dataDir: string;
  backend?: StateStoreBackend;
  /** `ss-async-write-buffer`: change sets queued behind the changelog; 0 writes synchronously. */
  asyncWriteBuffer?: number;
  /** `ss-keep-recent`: versions kept by automatic pruning; 0 keeps everything. */
  keepRecent?: number;
  /** `ss-prune-interval`: seconds between automatic prunes. */
  pruneIntervalSeconds?: number;
  evmSplit?: boolean;
  evmSeparateDbs?: boolean;
  /** `evm-ss-db-directory`; relative paths are under `dataDir`. Default `<dataDir>/evm_ss`. */
  evmDbDirectory?: string;
  /**
   * State Commit's latest version (0 or absent: no history). A store that is missing, empty or
   * behind it after recovery is refused (see `openStateStore`): the pipeline writes a block's change
   * set to the State Store before State Commit, so a healthy store is never behind.
   */
  committedVersion?: number;
  /** fsync database commits and changelog appends (default true). Tests and benchmarks turn it off. */
  sync?: boolean;
  /** Replaces the backend's engine (unit tests use the memory engine); not a configuration key. */
  openEngine?: KVOpener;
}

export const STATE_STORE_DEFAULTS = {
  backend: 'pebbledb',
  asyncWriteBuffer: 100,
  keepRecent: 100_000,
  pruneIntervalSeconds: 600,
  evmSplit: false,
  evmSeparateDbs: false,
} as const satisfies Partial<StateStoreOptions>;

/** The directory under `dataDir` that holds the Cosmos SS of an engine. */
export function cosmosDirName(engine: 'lmdb' | 'rocksdb'): string {
  return engine === 'rocksdb' ? 'rocksdb' : 'pebbledb';
}

export interface ResolvedLayout {
  /** `pebbledb` or `rocksdb`, under dataDir. */
  cosmosDir: string;
  evmDir: string;
  engine: 'lmdb' | 'rocksdb';
}

export function resolveLayout(options: StateStoreOptions): ResolvedLayout {
  const backend = options.backend ?? STATE_STORE_DEFAULTS.backend;
  if (backend !== 'pebbledb' && backend !== 'lmdb' && backend !== 'rocksdb') {
    throw new RangeError(
      `ss-backend must be "pebbledb" or "rocksdb" ("lmdb" is an alias of the default), got "${backend}"`,
    );
  }
  const engine = backend === 'rocksdb' ? 'rocksdb' : 'lmdb';
  const evm = options.evmDbDirectory;
  return {
    cosmosDir: join(options.dataDir, cosmosDirName(engine)),
    evmDir: evm ? (isAbsolute(evm) ? evm : join(options.dataDir, evm)) : join(options.dataDir, 'evm_ss'),
    engine,
  };
}

export function checkCount(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
  return value;
}
