/**
 * The key-value engine interface every database of the node is built on. Keys are compared as
 * unsigned bytes (memcmp order) by every engine, so encodings that rely on ordering behave the same on
 * lmdb, RocksDB and the in-memory engine.
 */
export type KVOp = { type: 'put'; key: Uint8Array; value: Uint8Array } | { type: 'del'; key: Uint8Array };

export interface KVRange {
  /** inclusive lower bound */
  gte?: Uint8Array;
  /** exclusive upper bound */
  lt?: Uint8Array;
  reverse?: boolean;
  limit?: number;
}

export type KVEntry = [key: Uint8Array, value: Uint8Array];

/** A consistent read view: later writes to the store are not visible through it. */
export interface KVReader {
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
  /** Engines that can read without I/O waits (lmdb's memory map, memory) answer synchronously too. */
  getSync?(key: Uint8Array): Uint8Array | undefined;
  /**
   * Like getSync, without the copy: the bytes are only valid until the next read on this store (lmdb
   * answers from a buffer it reuses). For hot paths that copy or consume the value at once.
   */
  getSyncView?(key: Uint8Array): Uint8Array | undefined;
  has(key: Uint8Array): Promise<boolean>;
  /** Entries in key order (or reverse) within the range; bounded by `limit` when given. */
  iterate(range?: KVRange): AsyncIterable<KVEntry>;
  /** Synchronous iteration, offered by engines that read from memory or a memory map (lmdb, memory). */
  iterateSync?(range?: KVRange): Iterable<KVEntry>;
}

export interface KVSnapshot extends KVReader {
  release(): void;
}

export interface KVStore extends KVReader {
  /** Engine name for logs and errors: `lmdb`, `rocksdb`, `memory`. */
  readonly engine: string;
  /** Applies all ops atomically and durably (per the engine's sync setting) or none of them. */
  write(ops: KVOp[]): Promise<void>;
  /**
   * A consistent read view holding every write committed before it was taken (by any thread or
   * process sharing the database) and none made after, until released.
   */
  snapshot(): KVSnapshot;
  /**
   * Plain reads from now on see every write committed so far, by any thread of the process (lmdb
   * keeps reading one snapshot until its thread's event loop turns): for a thread that only reads
   * what another writes. Engines whose reads are always current leave it out.
   */
  renewReads?(): void;
  close(): Promise<void>;
}

export interface KVOpenOptions {
  /** fsync on every write batch (default true); benchmarks and tests may turn it off. */
  sync?: boolean;
}

/** Opens (creating if missing) the engine's database in a directory. */
export type KVOpener = (path: string, options?: KVOpenOptions) => Promise<KVStore>;
