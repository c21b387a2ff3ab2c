/**
 * flatkv: the `evm` store as flat tables in one KV database (lmdb in production), committed by the
 * lattice hash. A read is one point lookup (plus a hash-map probe of the not yet flushed rows).
 *
 * Durability. With a write-ahead log (`walDir`, what the commit store uses) a block is durable once
 * its change set (new and previous values, and the root) is appended to the log and fsynced: one
 * sequential write. The rows stay in an in-memory layer over the KV store and are flushed to it in
 * the background every `flushInterval` blocks, repeated keys coalesced, sorted, in chunks that do not
 * stall the event loop for long; the last chunk writes the undo records, roots and metadata (version,
 * lattices), which is what makes the flush count. Random-page B-tree writes with an fsync each block
 * cost about 30 us per changed key on lmdb; the log append costs well under a microsecond per key.
 * Open = KV state at its recorded version + replay of the newer log entries. Replay takes the lattice
 * update from the logged previous values, not from the KV rows, because a crash mid-flush can leave
 * rows of later versions in the KV store (they are all rewritten by the replay, so reads are right).
 *
 * Without a log (unit tests on the memory engine) each block is one atomic KV write.
 * Rollback and import first flush everything, then work on the KV store alone; export reads the KV
 * store with the memory layer's rows of its version over it.
 *
 * This file ties the parts together: working-set.ts (the block being built and its lattice),
 * block-log.ts (the log), memory-layer.ts (committed rows and their flush), undo.ts (rollback's
 * records), state-sync.ts (export/import rows), meta.ts (metadata rows, the combined root).
 */
import { equalBytes, toHex } from '../../../primitives/bytes.ts';
import { ByteArena } from '../../../util/byte-arena.ts';
import { silentLogger, type Logger } from '../../../util/logger.ts';
import type { KVStore } from '../../kv/types.ts';
import { CommitStateError, ImportError, RollbackRangeError, VersionUnavailableError } from '../errors.ts';
import type { KVPair } from '../types.ts';
import { availableParallelism } from 'node:os';
import { BlockLog } from './block-log.ts';
import {
  decodeAccount,
  locate,
  physicalLength,
  TABLES,
  undoKey,
  writePhysical,
  type Location,
  type Table,
} from './layout.ts';
import { LtHash } from './lthash.ts';
import { MemoryLayer } from './memory-layer.ts';
import {
  combinedRoot,
  latticeKey,
  META_IMPORTING,
  META_OLDEST,
  META_VERSION,
  metaOps,
  readU64,
  rootKey,
  u64,
} from './meta.ts';
import { deleteRows, rowsOf } from './state-sync.ts';
import { decodeUndo } from './undo.ts';
import { WorkingSet } from './working-set.ts';

export interface FlatKVOptions {
  /** Versions that rollback can undo (undo records kept); default 10,000. */
  undoWindow?: number;
  /** First version of a new database (genesis `initial_height`); default 1. */
  initialVersion?: number;
  /** Worker threads hashing large blocks (default: cores - 1, at most 3; 0 = hash on the caller). */
  hashWorkers?: number;
  /**
   * Directory of the write-ahead log. Set: a commit is one log append, rows reach the KV store in
   * background flushes. Unset: every commit is one KV write.
   */
  walDir?: string;
  /** fdatasync each log append (default true); false for a throwaway home. */
  walSync?: boolean;
  /**
   * `sc-async-commit-buffer`: log appends a commit may leave in flight (0 = the commit waits for its
   * fdatasync). A crash loses at most that many blocks, which the block store replays.
   */
  asyncCommitBuffer?: number;
  /**
   * Directory of the lmdb environment behind the KV store, if it is one: the hash workers then read
   * previous values themselves, in parallel with this thread. Unset: this thread reads them all.
   */
  kvPath?: string;
  /** Blocks between background flushes to the KV store (with a log); default 20. */
  flushInterval?: number;
  /**
   * Rows per KV transaction of a background flush (default 4096): lmdb applies a transaction on the
   * calling thread, so a chunk is how long a flush can hold up the next block.
   */
  flushChunkRows?: number;
  logger?: Logger;
}

export class FlatKV {
  private readonly db: KVStore;
  private readonly getSync: (k: Uint8Array) => Uint8Array | undefined;
  /** A read whose bytes are valid until the next read (copied at once); getSync where unsupported. */
  private readonly getView: (k: Uint8Array) => Uint8Array | undefined;
  /** Physical-key buffers by length, reused by reads (the KV engine copies the key it is given). */
  private readonly scratch = new Map<number, Uint8Array>();
  /** Keys of the pending writes and previous values read from the KV store, until flushed. */
  private readonly arena = new ByteArena();
  private readonly undoWindow: number;
  private readonly log: Logger;
  version: number;
  /** Oldest version rollback can reach. */
  oldest: number;
  private lattices: Map<Table, LtHash>;
  private readonly work: WorkingSet;
  private readonly blockLog: BlockLog | undefined;
  private readonly asyncBuffer: number;
  private readonly flushInterval: number;
  private readonly memory: MemoryLayer;

  private constructor(
    db: KVStore,
    version: number,
    oldest: number,
    lattices: Map<Table, LtHash>,
    blockLog: BlockLog | undefined,
    opts: FlatKVOptions,
    log: Logger,
  ) {
    if (!db.getSync)
      throw new CommitStateError(`flatkv needs an engine with synchronous reads (${db.engine} has none)`);
    this.db = db;
    this.getSync = db.getSync.bind(db);
    this.getView = db.getSyncView ? db.getSyncView.bind(db) : this.getSync;
    this.version = version;
    this.oldest = oldest;
    this.lattices = lattices;
    this.blockLog = blockLog;
    this.asyncBuffer = Math.max(0, opts.asyncCommitBuffer ?? 0);
    this.flushInterval = Math.max(1, opts.flushInterval ?? 20);
    this.undoWindow = opts.undoWindow ?? 10_000;
    this.log = log;
    this.work = new WorkingSet({
      hashWorkers: opts.hashWorkers ?? Math.min(3, availableParallelism() - 1),
      kvPath: opts.kvPath,
      arena: this.arena,
      readPrev: (p) => this.readKV(p.key, p.loc, true),
      getView: this.getView,
    });
    this.memory = new MemoryLayer(
      {
        db,
        flushChunk: Math.max(1, opts.flushChunkRows ?? 4096),
        undoWindow: this.undoWindow,
        blockLog,
        oldest: () => this.oldest,
        logger: log,
      },
      version,
      oldest,
    );
  }

  static async open(db: KVStore, opts: FlatKVOptions = {}): Promise<FlatKV> {
    if (await db.get(META_IMPORTING)) {
      throw new ImportError(
        `flatkv holds an interrupted import; remove ${db.engine} data and state sync again`,
      );
    }
    // a new database starts just below the chain's first version (genesis initial_height)
    const version = readU64(await db.get(META_VERSION)) ?? Math.max(0, (opts.initialVersion ?? 1) - 1);
    const oldest = readU64(await db.get(META_OLDEST)) ?? version;
    const lattices = new Map<Table, LtHash>();
    for (const t of TABLES) {
      const bytes = await db.get(latticeKey(t));
      lattices.set(t, bytes ? LtHash.fromBytes(bytes) : new LtHash());
    }
    const log = (opts.logger ?? silentLogger).child({ module: 'flatkv' });
    const blockLog = opts.walDir ? BlockLog.open(opts.walDir, log, opts.walSync !== false) : undefined;
    const fk = new FlatKV(db, version, oldest, lattices, blockLog, opts, log);
    if (blockLog) fk.replay(blockLog);
    return fk;
  }

  /**
   * Re-commits the log entries newer than the KV store into the memory layer. Each block's lattice
   * update comes from its logged previous values, not from the KV rows: a crash mid-flush can leave
   * rows of later versions in the KV store.
   */
  private replay(blockLog: BlockLog): void {
    const from = this.version;
    for (const block of blockLog.blocksAfter(this.version)) {
      for (const w of block.writes) this.work.putKnown(w.key, w.value, w.prev);
      const working = this.work.lattices(this.lattices);
      if (!equalBytes(combinedRoot(working), block.root))
        throw blockLog.corrupt(`replaying entry ${block.version} gives another root`);
      this.commitToMemory(block.version, working, block.root);
    }
    if (this.version > from) this.log.info({ from, to: this.version }, 'flatkv replayed its log');
  }

  /** Committed value of an evm key: one point lookup. */
  get(key: Uint8Array): Uint8Array | undefined {
    const r = this.memory.find(key);
    if (r) return r.value;
    return this.readKV(key, locate(key), false);
  }

  /**
   * `inArena`: the copy is only kept by this store until its rows are flushed, so it may share an
   * arena chunk; a value handed to callers gets its own buffer (it must not pin a chunk for as long
   * as some cache holds it).
   */
  private readKV(key: Uint8Array, loc: Location, inArena: boolean): Uint8Array | undefined {
    const len = physicalLength(key, loc);
    let physical = this.scratch.get(len);
    if (!physical) this.scratch.set(len, (physical = new Uint8Array(len)));
    writePhysical(key, loc, physical);
    // a whole row for a caller: the engine's own copy (one allocation)
    if (!inArena && loc.field === undefined) return this.getSync(physical);
    const row = this.getView(physical);
    const value = loc.field === undefined ? row : decodeAccount(row)[loc.field];
    if (value === undefined) return undefined;
    return inArena ? this.arena.copy(value) : value.slice();
  }

  /** Value at the working version (this block's writes first). */
  getWorking(key: Uint8Array): Uint8Array | undefined {
    const p = this.work.get(key);
    if (p) return p.value;
    return this.get(key);
  }

  /**
   * Applies writes to the working version. Only the final value per key matters to the lattice, so
   * hashing is deferred to workingHash()/commit(), where the rows can be hashed in parallel.
   */
  applyPairs(pairs: KVPair[]): void {
    this.work.apply(pairs, (key, h) => this.memory.find(key, h));
  }

  /** Like workingHash(), with large blocks hashed in parallel. */
  async workingHashAsync(): Promise<Uint8Array> {
    return combinedRoot(await this.work.latticesAsync(this.lattices));
  }

  /** Root of the working version: BLAKE3-256 of the sum of the table lattices. */
  workingHash(): Uint8Array {
    return combinedRoot(this.work.lattices(this.lattices));
  }

  committedHash(): Uint8Array {
    return combinedRoot(this.lattices);
  }

  /** Per-table lattice roots of the committed version (diagnostics, metadata). */
  tableHashes(): Record<Table, string> {
    return Object.fromEntries(TABLES.map((t) => [t, toHex(this.lattices.get(t)!.root())])) as Record<
      Table,
      string
    >;
  }

  /** Commits the working version as `version`: a log append, or (without a log) one atomic KV write. */
  async commit(version: number): Promise<Uint8Array> {
    if (version !== this.version + 1)
      throw new CommitStateError(`flatkv is at version ${this.version}; cannot commit ${version}`);
    if (this.memory.failure) throw this.memory.failure;
    const working = await this.work.latticesAsync(this.lattices);
    const root = combinedRoot(working);
    if (this.blockLog) {
      this.work.resolvePrevs(); // known after hashing; kept as a safeguard
      // the append writes and syncs on the libuv pool while this thread links the block into the
      // memory layer; the commit returns only once the append is durable
      this.blockLog.append(version, this.work.pending.values(), root);
      this.commitToMemory(version, working, root);
      await this.blockLog.wait(this.asyncBuffer);
      await this.memory.flushEvery(this.flushInterval);
    } else {
      this.commitToMemory(version, working, root);
      await this.memory.flushAll(false);
    }
    return root;
  }

  /** Writes every committed row and version record to the KV store and waits for it. */
  async flushAll(chunked = true): Promise<void> {
    await this.memory.flushAll(chunked);
  }

  /** Makes the pending writes the committed version in memory (rows, record, lattices). */
  private commitToMemory(version: number, working: Map<Table, LtHash>, root: Uint8Array): void {
    this.memory.add(version, this.work.take().values(), root, working);
    this.lattices = working;
    this.version = version;
    this.oldest = Math.max(this.oldest, version - this.undoWindow);
  }

  /** Committed root of `version` while it is within the undo window. */
  rootAt(version: number): Uint8Array {
    if (version === this.version) return this.committedHash();
    if (version >= this.oldest && version <= this.version) {
      const r = this.memory.rootOf(version) ?? this.getSync(rootKey(version));
      if (r) return r;
    }
    throw new VersionUnavailableError(version, this.oldest, this.version);
  }

  discardWorking(): void {
    this.work.clear();
  }

  /** Undoes blocks above `target`. */
  async rollback(target: number): Promise<void> {
    if (target === this.version) return this.discardWorking();
    if (target > this.version || target < this.oldest)
      throw new RollbackRangeError(target, this.oldest, this.version, 'flatkv');
    if (await this.rewindInMemory(target)) return;
    await this.memory.flushAll();
    await this.blockLog?.wait(0);
    // the log must not hold the blocks being undone, or an interrupted rollback would replay them
    this.blockLog?.truncateAfter(target);
    for (let v = this.version; v > target; v--) {
      const raw = await this.db.get(undoKey(v));
      if (!raw) throw new VersionUnavailableError(target, this.oldest, this.version);
      this.applyPairs(decodeUndo(raw));
      const working = await this.work.latticesAsync(this.lattices);
      // collapse into committed state so that the next (older) undo reads these values
      const ops = this.memory.rowOps(this.work.pending.values());
      ops.push(
        { type: 'del', key: undoKey(v) },
        { type: 'del', key: rootKey(v) },
        ...metaOps(v - 1, this.memory.kvOldest, working),
      );
      await this.db.write(ops);
      this.lattices = working;
      this.work.clear();
      this.version = v - 1;
      this.memory.kvVersion = v - 1;
    }
    this.log.info({ version: target }, 'flatkv rolled back');
  }

  /**
   * rollback(target) without touching the KV store, when every version above `target` is still in
   * the memory layer (not flushed): those versions are dropped from it and the log is cut above
   * `target`, durably (a crash before the cut reopens the old version by replaying the log; after
   * it, `target`). Declines (false, nothing changed) when a flush has reached past `target`.
   */
  async rewindInMemory(target: number): Promise<boolean> {
    if (target > this.version || target < this.oldest) return false;
    this.discardWorking();
    if (target === this.version) return true;
    await this.memory.idle();
    if (this.memory.failure || this.memory.kvVersion > target) return false;
    await this.blockLog?.wait(0);
    const kept = this.memory.dropAbove(target);
    if (!kept) return false;
    this.blockLog?.truncateAfter(target);
    let lattices = kept.lattices;
    if (!lattices) {
      lattices = new Map<Table, LtHash>();
      for (const t of TABLES) {
        const bytes = this.getSync(latticeKey(t));
        lattices.set(t, bytes ? LtHash.fromBytes(bytes) : new LtHash());
      }
    }
    this.lattices = lattices;
    this.version = target;
    this.log.debug({ version: target }, 'flatkv rewound in memory');
    return true;
  }

  /**
   * Every (evm key, value) row of a committed version: a KV read view with the memory layer's rows
   * of that version over it, both taken at once (no await between), so blocks committed while the
   * export runs do not show. Reaches back to the oldest version no flush has gone past (the memory
   * layer holds the rows of everything newer than the KV store), which is what lets an export
   * start after its version and run beside later commits.
   */
  async *export(version = this.version): AsyncGenerator<[Uint8Array, Uint8Array]> {
    if (this.memory.failure) throw this.memory.failure;
    const overlay = version <= this.version ? this.memory.rowsAt(version) : undefined;
    if (!overlay) throw new VersionUnavailableError(version, this.memory.kvVersion, this.version);
    const snap = this.db.snapshot();
    try {
      for await (const row of rowsOf(snap)) if (!overlay.has(row[0])) yield row;
      for (const p of overlay.values()) if (p.value !== undefined) yield [p.key, p.value];
    } finally {
      snap.release();
    }
  }

  /** Replaces all rows with `rows` at `version` (state sync). */
  async import(
    version: number,
    rows: AsyncIterable<[Uint8Array, Uint8Array]> | Iterable<[Uint8Array, Uint8Array]>,
  ): Promise<void> {
    this.discardWorking();
    await this.memory.flushAll();
    await this.blockLog?.wait(0);
    this.blockLog?.truncateAfter(-1);
    await this.db.write([{ type: 'put', key: META_IMPORTING, value: u64(version) }]);
    await deleteRows(this.db);
    this.lattices = new Map(TABLES.map((t) => [t, new LtHash()]));
    let batch: KVPair[] = [];
    const flushRows = async (): Promise<void> => {
      this.applyPairs(batch);
      batch = [];
      const working = await this.work.latticesAsync(this.lattices);
      await this.db.write(this.memory.rowOps(this.work.pending.values()));
      this.lattices = working;
      this.work.clear();
    };
    for await (const [key, value] of rows) {
      batch.push({ key, value });
      if (batch.length >= 10_000) await flushRows();
    }
    await flushRows();
    this.version = version;
    this.oldest = version;
    this.memory.kvVersion = version;
    this.memory.kvOldest = version;
    await this.db.write([...metaOps(version, version, this.lattices), { type: 'del', key: META_IMPORTING }]);
  }

  /** Flushes the memory layer (so that the next open has nothing to replay) and closes. */
  async close(): Promise<void> {
    try {
      await this.blockLog?.wait(0).catch(() => {});
      if (!this.memory.failure) await this.memory.flushAll(false);
    } finally {
      this.blockLog?.close();
      await this.work.close();
      await this.db.close();
    }
  }
}
