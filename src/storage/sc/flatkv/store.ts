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
 * Without a log (unit tests on the memory engine) each block is one atomic KV write, as before.
 * Rollback, export and import first flush everything, then work on the KV store alone.
 */
import { equalBytes, sortByBytes, toHex } from '../../../primitives/bytes.ts';
import { silentLogger, type Logger } from '../../../util/logger.ts';
import type { KVOp, KVStore } from '../../kv/types.ts';
import { decodeEntry, encodeEntry } from '../changelog-codec.ts';
import { CommitStateError, ImportError, RollbackRangeError, VersionUnavailableError } from '../errors.ts';
import { Changelog, ChangelogCorruptError } from '../changelog.ts';
import type { KVPair } from '../types.ts';
import {
  decodeAccount,
  encodeAccount,
  locate,
  logicalKeys,
  physicalKey,
  physicalLength,
  writePhysical,
  metaKey,
  TABLES,
  undoKey,
  type Location,
  type Table,
} from './layout.ts';
import { LtHash, LTHASH_LIMBS } from './lthash.ts';
import { LatticePool, sumWrites, type LatticeWrite } from './lattice-pool.ts';
import { availableParallelism } from 'node:os';
import { BytesMap, hashBytes } from '../../../util/bytes-map.ts';
import { ByteArena } from '../../../util/byte-arena.ts';

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

const META_VERSION = metaKey('version');
const META_OLDEST = metaKey('oldest');
const META_IMPORTING = metaKey('importing');
const latticeKey = (t: Table): Uint8Array => metaKey(`lattice/${t}`);
/** Root of each version still in the undo window: proofs and commit infos of recent heights need it. */
const rootKey = (v: number): Uint8Array => metaKey(`root/${v}`);

const u64 = (n: number): Uint8Array => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(n));
  return b;
};
const readU64 = (b: Uint8Array | undefined): number | undefined =>
  b === undefined ? undefined : Number(new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0));

/**
 * One evm key written by a block; once committed, the same object is its entry in the memory layer.
 * `prev` is the committed value before this block (the lattice removes it; it is the undo record).
 * A key with no row in the memory layer has its `prev` read from the KV store while the block is
 * hashed, on the hashing threads (`prevKnown` false until then); a committed Pending always knows it.
 */
interface Pending extends LatticeWrite {
  /** hashBytes(key): computed once, used by every map the key goes into */
  hash: number;
}

/** A committed version not yet recorded in the KV store. */
interface VersionRecord {
  version: number;
  /** the block's writes (their `prev` is the undo record) */
  writes: Pending[];
  root: Uint8Array;
  lattices: Map<Table, LtHash>;
}

// Change sets of a log entry: the block's writes, their previous values, and the committed root.
const WAL_PAIRS = 'evm';
const WAL_PREV = 'prev';
const WAL_ROOT = 'root';
const ROOT_PAIR_KEY = Uint8Array.of(0x72);
/** The previous values' change set leaves its keys empty: they are the writes' keys, in order. */
const NO_KEY = new Uint8Array(0);

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
  private working: Map<Table, LtHash> | undefined;
  private pending = new BytesMap<Pending>();
  /** Bumped by every write, so a parallel hash that raced a write is not used. */
  private generation = 0;
  private readonly hashWorkers: number;
  private readonly kvPath: string | undefined;
  private pool: LatticePool | undefined;

  private readonly wal: Changelog | undefined;
  private readonly asyncBuffer: number;
  /** Log operations run one after another; these are the ones not finished yet, oldest first. */
  private walInFlight: Promise<void>[] = [];
  private walTail: Promise<void> = Promise.resolve();
  /** Log operations started and not finished. */
  private walBusy = 0;
  private walError: Error | undefined;
  private readonly flushInterval: number;
  private readonly flushChunk: number;
  /**
   * Committed values newer than the KV store, by evm key, not by physical row: a commit then
   * only links its pending writes in, and the account rows (nonce and code hash) are merged at flush.
   */
  private rows = new BytesMap<Pending>();
  private records: VersionRecord[] = [];
  /** Rows and versions of the flush in progress: readable until it has landed. */
  private flushingRows: BytesMap<Pending> | undefined;
  private flushingRecords: VersionRecord[] = [];
  private flushing: Promise<void> | undefined;
  private flushError: Error | undefined;
  /** Version and oldest version recorded in the KV store. */
  private kvVersion: number;
  private kvOldest: number;

  private constructor(
    db: KVStore,
    version: number,
    oldest: number,
    lattices: Map<Table, LtHash>,
    wal: Changelog | undefined,
    opts: FlatKVOptions,
  ) {
    if (!db.getSync)
      throw new CommitStateError(`flatkv needs an engine with synchronous reads (${db.engine} has none)`);
    this.db = db;
    this.getSync = db.getSync.bind(db);
    this.getView = db.getSyncView ? db.getSyncView.bind(db) : this.getSync;
    this.version = version;
    this.kvVersion = version;
    this.oldest = oldest;
    this.kvOldest = oldest;
    this.lattices = lattices;
    this.wal = wal;
    this.asyncBuffer = Math.max(0, opts.asyncCommitBuffer ?? 0);
    this.flushInterval = Math.max(1, opts.flushInterval ?? 20);
    this.flushChunk = Math.max(1, opts.flushChunkRows ?? 4096);
    this.undoWindow = opts.undoWindow ?? 10_000;
    this.hashWorkers = opts.hashWorkers ?? Math.min(3, availableParallelism() - 1);
    this.kvPath = opts.kvPath;
    this.log = (opts.logger ?? silentLogger).child({ module: 'flatkv' });
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
    const wal = opts.walDir ? Changelog.open(opts.walDir) : undefined;
    const fk = new FlatKV(db, version, oldest, lattices, wal, opts);
    if (wal) fk.replay();
    return fk;
  }

  /** Re-commits the log entries newer than the KV store into the in-memory layer. */
  private replay(): void {
    const wal = this.wal!;
    const last = wal.lastVersion;
    if (last === undefined || last <= this.version) return;
    const first = wal.firstVersion!;
    if (first > this.version + 1)
      throw new ChangelogCorruptError(
        wal.dir,
        `flatkv is at version ${this.version} but its log starts at ${first}`,
      );
    for (const entry of wal.read(this.version + 1, last)) {
      const pairs = entry.changeSets.find((c) => c.store === WAL_PAIRS)?.pairs ?? [];
      const prevs = entry.changeSets.find((c) => c.store === WAL_PREV)?.pairs ?? [];
      const root = entry.changeSets.find((c) => c.store === WAL_ROOT)?.pairs[0]?.value;
      if (prevs.length !== pairs.length || !root)
        throw new ChangelogCorruptError(wal.dir, `entry ${entry.version} is not a flatkv entry`);
      this.working = undefined;
      for (let i = 0; i < pairs.length; i++) {
        const key = pairs[i].key;
        const hash = hashBytes(key);
        this.pending.set(
          key,
          { key, loc: locate(key), value: pairs[i].value, prevKnown: true, prev: prevs[i].value, hash },
          hash,
        );
      }
      const working = this.workingLattices();
      if (!equalBytes(combinedRoot(working), root))
        throw new ChangelogCorruptError(wal.dir, `replaying entry ${entry.version} gives another root`);
      this.commitToMemory(entry.version, working, root);
    }
    this.log.info({ from: this.kvVersion, to: this.version }, 'flatkv replayed its log');
  }

  /** Committed value of an evm key: one point lookup. */
  get(key: Uint8Array): Uint8Array | undefined {
    if (this.rows.size > 0 || this.flushingRows) {
      const r = this.memory(key);
      if (r) return r.value;
    }
    return this.readKV(key, locate(key), false);
  }

  /** The key's entry in the memory layer (newest first). */
  private memory(key: Uint8Array, h = hashBytes(key)): Pending | undefined {
    return this.rows.get(key, h) ?? this.flushingRows?.get(key, h);
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
    if (this.pending.size > 0) {
      const p = this.pending.get(key);
      if (p) return p.value;
    }
    return this.get(key);
  }

  /**
   * Applies writes to the working version. Only the final value per key matters to the lattice, so
   * hashing is deferred to workingHash()/commit(), where the rows can be hashed in parallel.
   */
  applyPairs(pairs: KVPair[]): void {
    this.working = undefined;
    this.generation++;
    for (const { key, value } of pairs) {
      const h = hashBytes(key);
      let p = this.pending.get(key, h);
      if (!p) {
        const r = this.rows.size > 0 || this.flushingRows ? this.memory(key, h) : undefined;
        // The key is copied into the arena: a commit passes over its keys several times (hash, log,
        // memory layer), and keys packed side by side stay in cache where the caller's, scattered
        // over the heap, cost a cache miss each time. Values are kept as given (the commit store
        // owns the pairs it is given; memiavl keeps them too).
        const own = this.arena.copy(key);
        p = r
          ? { key: own, loc: locate(key), value, prevKnown: true, prev: r.value, hash: h }
          : { key: own, loc: locate(key), value, prevKnown: false, prev: undefined, hash: h };
        this.pending.set(own, p, h);
      }
      p.value = value;
    }
  }

  /** Reads the previous values still unknown, on this thread. */
  private resolvePrevs(writes: Iterable<Pending>): void {
    for (const p of writes) {
      if (p.prevKnown) continue;
      p.prev = this.readKV(p.key, p.loc, true);
      p.prevKnown = true;
    }
  }

  private withSums(sums: Uint16Array): Map<Table, LtHash> {
    return new Map(
      TABLES.map((t, i) => {
        const lt = this.lattices.get(t)!.clone();
        lt.addLimbs(sums.subarray(i * LTHASH_LIMBS, (i + 1) * LTHASH_LIMBS));
        return [t, lt];
      }),
    );
  }

  /** Working lattices, hashed on this thread. */
  private workingLattices(): Map<Table, LtHash> {
    if (!this.working) {
      if (this.pending.size === 0) this.working = this.lattices;
      else {
        const writes = [...this.pending.values()];
        this.resolvePrevs(writes);
        this.working = this.withSums(sumWrites(writes, TABLES.length, tableIndex));
      }
    }
    return this.working;
  }

  /** Working lattices, hashed on the worker pool (and this thread) when the block is large. */
  private async workingLatticesAsync(): Promise<Map<Table, LtHash>> {
    if (this.working) return this.working;
    if (this.pending.size < POOL_MIN_WRITES || this.hashWorkers === 0) return this.workingLattices();
    const writes = [...this.pending.values()];
    this.pool ??= new LatticePool(this.hashWorkers, this.kvPath);
    if (!this.pool.reads) this.resolvePrevs(writes);
    const generation = this.generation;
    const sums = await this.pool.sum(writes, TABLES.length, tableIndex, this.getView);
    if (generation !== this.generation) return this.workingLatticesAsync(); // written meanwhile
    this.working = this.withSums(sums);
    return this.working;
  }

  /** Like workingHash(), with large blocks hashed in parallel. */
  async workingHashAsync(): Promise<Uint8Array> {
    return combinedRoot(await this.workingLatticesAsync());
  }

  /** Root of the working version: BLAKE3-256 of the sum of the table lattices. */
  workingHash(): Uint8Array {
    return combinedRoot(this.workingLattices());
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
    if (this.flushError) throw this.flushError;
    const working = await this.workingLatticesAsync();
    const root = combinedRoot(working);
    if (this.wal) {
      const pairs: KVPair[] = [];
      const prevs: KVPair[] = [];
      for (const p of this.pending.values()) {
        if (!p.prevKnown) this.resolvePrevs([p]); // known after hashing; kept as a safeguard
        pairs.push({ key: p.key, value: p.value });
        prevs.push({ key: NO_KEY, value: p.prev });
      }
      const wal = this.wal;
      const entry = {
        version,
        upgrades: [],
        changeSets: [
          { store: WAL_PAIRS, pairs },
          { store: WAL_PREV, pairs: prevs },
          { store: WAL_ROOT, pairs: [{ key: ROOT_PAIR_KEY, value: root }] },
        ],
      };
      // the append encodes at once and then writes and syncs on the libuv pool, while this thread
      // links the block into the memory layer; the commit returns only once the append is durable
      this.walDo(() => wal.append(entry));
      this.commitToMemory(version, working, root);
      await this.walWait(this.asyncBuffer);
      if (this.records.length >= this.flushInterval) {
        // back-pressure: a flush that cannot keep up must not let the memory layer grow without bound
        if (this.flushing && this.records.length >= 4 * this.flushInterval) await this.flushing;
        this.startFlush(true);
      }
    } else {
      this.commitToMemory(version, working, root);
      await this.flushAll(false);
    }
    return root;
  }

  /**
   * Queues a log operation behind the others (appends and segment rolls must stay in order); with
   * none unfinished it starts at once.
   */
  private walDo(op: () => Promise<void> | void): void {
    const run = async (): Promise<void> => {
      if (!this.walError) await op();
    };
    const p = this.walBusy === 0 ? run() : this.walTail.then(run);
    this.walBusy++;
    void p.finally(() => this.walBusy--).catch(() => {});
    this.walTail = p.catch((err: Error) => {
      this.walError ??= err;
      this.log.error({ err: err.message }, 'flatkv log write failed');
    });
    this.walInFlight.push(this.walTail);
  }

  /** Waits until at most `max` log operations are unfinished; rethrows a log failure. */
  private async walWait(max: number): Promise<void> {
    while (this.walInFlight.length > max) await this.walInFlight.shift();
    if (this.walError) throw this.walError;
  }

  /** Makes the pending writes the committed version in memory (rows, record, lattices). */
  private commitToMemory(version: number, working: Map<Table, LtHash>, root: Uint8Array): void {
    const writes: Pending[] = [];
    for (const p of this.pending.values()) {
      this.rows.set(p.key, p, p.hash);
      writes.push(p);
    }
    this.records.push({ version, writes, root, lattices: working });
    this.lattices = working;
    this.working = undefined;
    this.pending = new BytesMap();
    this.version = version;
    this.oldest = Math.max(this.oldest, version - this.undoWindow);
  }

  /**
   * KV ops writing these values over the KV store's rows, in key order; an account row merges the
   * nonce and code hash written here with the field the KV row holds.
   */
  private rowOps(values: Iterable<Pending>): KVOp[] {
    const ops: KVOp[] = [];
    const accounts = new BytesMap<Pending[]>();
    for (const p of values) {
      const key = physicalKey(p.key, p.loc);
      if (p.loc.field !== undefined) {
        const list = accounts.get(key);
        if (list) list.push(p);
        else accounts.set(key, [p]);
      } else ops.push(p.value === undefined ? { type: 'del', key } : { type: 'put', key, value: p.value });
    }
    for (const [key, ps] of accounts) {
      const cur = decodeAccount(this.getSync(key));
      for (const p of ps) cur[p.loc.field!] = p.value;
      const row = encodeAccount(cur);
      ops.push(row ? { type: 'put', key, value: row } : { type: 'del', key });
    }
    // sorted, so that each chunk of a flush touches one region of the B-tree and its pages once
    return sortByBytes(ops, (op) => op.key);
  }

  /** Starts a background flush of everything committed so far (unless one is running). */
  private startFlush(chunked: boolean): void {
    if (this.flushing || this.records.length === 0) return;
    this.flushing = this.flush(chunked)
      .catch((err: Error) => {
        // the log still holds every block: the next open replays them
        this.flushError ??= err;
        this.log.error({ err }, 'flatkv flush failed');
      })
      .finally(() => {
        this.flushing = undefined;
      });
  }

  /** Writes every committed row and version record to the KV store and waits for it. */
  async flushAll(chunked = true): Promise<void> {
    while (this.flushing || this.records.length > 0) {
      if (this.flushing) await this.flushing;
      else this.startFlush(chunked);
      if (this.flushError) throw this.flushError;
    }
  }

  private async flush(chunked: boolean): Promise<void> {
    const rows = this.rows;
    const records = this.records;
    this.rows = new BytesMap();
    this.records = [];
    this.flushingRows = rows;
    this.flushingRecords = records;
    const to = records[records.length - 1];
    // later blocks go to a new segment, so that this flush can delete the old ones whole (queued:
    // appends of earlier blocks may still be in flight)
    const wal = this.wal;
    if (wal) this.walDo(() => wal.roll(to.version + 1));
    try {
      let ops = this.rowOps(rows.values());
      if (chunked) {
        while (ops.length > this.flushChunk) {
          await this.db.write(ops.slice(0, this.flushChunk));
          ops = ops.slice(this.flushChunk);
        }
      }
      // the last transaction makes the flush count: undo records, roots, version and lattices
      for (const r of records) {
        const undo = r.writes.map((p) => ({ key: p.key, value: p.prev }));
        ops.push({
          type: 'put',
          key: undoKey(r.version),
          value: encodeEntry({
            version: r.version,
            upgrades: [],
            changeSets: [{ store: 'evm', pairs: undo }],
          }),
        });
        ops.push({ type: 'put', key: rootKey(r.version), value: r.root });
      }
      const oldest = Math.max(this.kvOldest, this.oldest, to.version - this.undoWindow);
      for (let v = this.kvOldest; v < oldest; v++) {
        ops.push({ type: 'del', key: rootKey(v) });
        ops.push({ type: 'del', key: undoKey(v + 1) });
      }
      ops.push(...metaOps(to.version, oldest, to.lattices));
      await this.db.write(ops);
      this.kvVersion = to.version;
      this.kvOldest = oldest;
    } catch (err) {
      // keep the rows readable and the records queued: nothing of this flush is known to have landed
      for (const [k, r] of this.rows) rows.set(k, r);
      this.rows = rows;
      this.records = [...records, ...this.records];
      throw err;
    } finally {
      this.flushingRows = undefined;
      this.flushingRecords = [];
    }
    this.wal?.truncateBefore(to.version + 1);
  }

  /** Committed root of `version` while it is within the undo window. */
  rootAt(version: number): Uint8Array {
    if (version === this.version) return this.committedHash();
    if (version >= this.oldest && version <= this.version) {
      const rec =
        this.records.find((r) => r.version === version) ??
        this.flushingRecords.find((r) => r.version === version);
      if (rec) return rec.root;
      const r = this.getSync(rootKey(version));
      if (r) return r;
    }
    throw new VersionUnavailableError(version, this.oldest, this.version);
  }

  discardWorking(): void {
    this.working = undefined;
    this.pending.clear();
  }

  /** Undoes blocks above `target`. */
  async rollback(target: number): Promise<void> {
    if (target === this.version) return this.discardWorking();
    if (target > this.version || target < this.oldest)
      throw new RollbackRangeError(target, this.oldest, this.version, 'flatkv');
    this.discardWorking();
    await this.flushAll();
    await this.walWait(0);
    // the log must not hold the blocks being undone, or an interrupted rollback would replay them
    this.wal?.truncateAfter(target);
    for (let v = this.version; v > target; v--) {
      const raw = await this.db.get(undoKey(v));
      if (!raw) throw new VersionUnavailableError(target, this.oldest, this.version);
      const entry = decodeEntry(raw);
      this.applyPairs(entry.changeSets[0].pairs);
      const working = await this.workingLatticesAsync();
      // collapse into committed state so that the next (older) undo reads these values
      const ops = this.rowOps(this.pending.values());
      ops.push(
        { type: 'del', key: undoKey(v) },
        { type: 'del', key: rootKey(v) },
        ...metaOps(v - 1, this.kvOldest, working),
      );
      await this.db.write(ops);
      this.lattices = working;
      this.working = undefined;
      this.pending.clear();
      this.version = v - 1;
      this.kvVersion = v - 1;
    }
    this.log.info({ version: target }, 'flatkv rolled back');
  }

  /** Every (evm key, value) row of the committed version, from a consistent read view. */
  async *export(version = this.version): AsyncGenerator<[Uint8Array, Uint8Array]> {
    await this.flushAll();
    const snap = this.db.snapshot();
    try {
      // a block committed while the flush ran is not in the snapshot's rows
      if (this.version !== version || this.rows.size > 0)
        throw new VersionUnavailableError(version, this.version, this.version);
      for await (const [k, v] of snap.iterate({ gte: Uint8Array.of(0x61), lt: Uint8Array.of(0x74) })) {
        const l = logicalKeys(k);
        if (!l) continue;
        if (l.table === 'account') {
          const a = decodeAccount(v);
          for (const { key, field } of l.keys) {
            const val = a[field!];
            if (val !== undefined) yield [key, val];
          }
        } else yield [l.keys[0].key, v];
      }
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
    await this.flushAll();
    await this.walWait(0);
    this.wal?.truncateAfter(-1);
    await this.db.write([{ type: 'put', key: META_IMPORTING, value: u64(version) }]);
    const dels: KVOp[] = [];
    for await (const [k] of this.db.iterate()) if (k[0] !== T_META_BYTE) dels.push({ type: 'del', key: k });
    await this.db.write(dels);
    this.lattices = new Map(TABLES.map((t) => [t, new LtHash()]));
    let batch: KVPair[] = [];
    const flushRows = async (): Promise<void> => {
      this.applyPairs(batch);
      batch = [];
      const working = await this.workingLatticesAsync();
      await this.db.write(this.rowOps(this.pending.values()));
      this.lattices = working;
      this.working = undefined;
      this.pending.clear();
    };
    for await (const [key, value] of rows) {
      batch.push({ key, value });
      if (batch.length >= 10_000) await flushRows();
    }
    await flushRows();
    this.version = version;
    this.oldest = version;
    this.kvVersion = version;
    this.kvOldest = version;
    await this.db.write([...metaOps(version, version, this.lattices), { type: 'del', key: META_IMPORTING }]);
  }

  /** Flushes the memory layer (so that the next open has nothing to replay) and closes. */
  async close(): Promise<void> {
    try {
      await this.walWait(0).catch(() => {});
      if (!this.flushError) await this.flushAll(false);
    } finally {
      this.wal?.close();
      await this.pool?.close();
      await this.db.close();
    }
  }
}

function metaOps(version: number, oldest: number, lattices: Map<Table, LtHash>): KVOp[] {
  return [
    { type: 'put', key: META_VERSION, value: u64(version) },
    { type: 'put', key: META_OLDEST, value: u64(oldest) },
    ...TABLES.map((t): KVOp => ({ type: 'put', key: latticeKey(t), value: lattices.get(t)!.toBytes() })),
  ];
}

const T_META_BYTE = 0x4d;
/** Below this many rows a block is hashed on the calling thread (messaging would cost more). */
const POOL_MIN_WRITES = 256;

const TABLE_INDEX = Object.fromEntries(TABLES.map((t, i) => [t, i])) as Record<Table, number>;
const tableIndex = (w: LatticeWrite): number => TABLE_INDEX[w.loc.table];

function combinedRoot(lattices: Map<Table, LtHash>): Uint8Array {
  const sum = new LtHash();
  for (const t of TABLES) sum.addLimbs(lattices.get(t)!.limbs);
  return sum.root();
}
