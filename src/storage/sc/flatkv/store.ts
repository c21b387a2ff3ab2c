/**
 * flatkv: the `evm` store as flat tables in one KV database (lmdb in production), committed by the
 * lattice hash. A read is one point lookup. Each block is one atomic KV write holding the rows, the
 * metadata (version and per-table lattice hashes) and an undo record (the previous value of every
 * key the block changed), so a crash leaves the database at a whole block and rollback within the
 * undo window is exact.
 */
import { equalBytes, toHex } from '../../../primitives/bytes.ts';
import { silentLogger, type Logger } from '../../../util/logger.ts';
import type { KVOp, KVStore } from '../../kv/types.ts';
import { decodeEntry, encodeEntry } from '../changelog-codec.ts';
import { CommitStateError, ImportError, RollbackRangeError, VersionUnavailableError } from '../errors.ts';
import type { KVPair } from '../types.ts';
import {
  decodeAccount,
  encodeAccount,
  locate,
  logicalKeys,
  metaKey,
  TABLES,
  undoKey,
  type Location,
  type Table,
} from './layout.ts';
import { LtHash, LTHASH_LIMBS } from './lthash.ts';
import { LatticePool, packRows, sumPacked, type LatticeRow } from './lattice-pool.ts';
import { availableParallelism } from 'node:os';

export interface FlatKVOptions {
  /** Versions that rollback can undo (undo records kept); default 10,000. */
  undoWindow?: number;
  /** First version of a new database (genesis `initial_height`); default 1. */
  initialVersion?: number;
  /** Worker threads hashing large blocks (default: cores - 1, at most 3; 0 = hash on the caller). */
  hashWorkers?: number;
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

interface Pending {
  key: Uint8Array;
  loc: Location;
  value: Uint8Array | undefined;
  /** committed value before this block (for the undo record) */
  prev: Uint8Array | undefined;
}

export class FlatKV {
  private readonly db: KVStore;
  private readonly getSync: (k: Uint8Array) => Uint8Array | undefined;
  private readonly undoWindow: number;
  private readonly log: Logger;
  version: number;
  /** Oldest version rollback can reach. */
  oldest: number;
  private lattices: Map<Table, LtHash>;
  private working: Map<Table, LtHash> | undefined;
  private pending = new Map<string, Pending>();
  /** Bumped by every write, so a parallel hash that raced a write is not used. */
  private generation = 0;
  private readonly hashWorkers: number;
  private pool: LatticePool | undefined;

  private constructor(
    db: KVStore,
    version: number,
    oldest: number,
    lattices: Map<Table, LtHash>,
    opts: FlatKVOptions,
  ) {
    if (!db.getSync)
      throw new CommitStateError(`flatkv needs an engine with synchronous reads (${db.engine} has none)`);
    this.db = db;
    this.getSync = db.getSync.bind(db);
    this.version = version;
    this.oldest = oldest;
    this.lattices = lattices;
    this.undoWindow = opts.undoWindow ?? 10_000;
    this.hashWorkers = opts.hashWorkers ?? Math.min(3, availableParallelism() - 1);
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
    return new FlatKV(db, version, oldest, lattices, opts);
  }

  /** Committed value of an evm key: one point lookup. */
  get(key: Uint8Array): Uint8Array | undefined {
    return this.readCommitted(locate(key));
  }

  private readCommitted(loc: Location): Uint8Array | undefined {
    const row = this.getSync(loc.physical);
    if (loc.field === undefined) return row;
    return decodeAccount(row)[loc.field];
  }

  /** Value at the working version (this block's writes first). */
  getWorking(key: Uint8Array): Uint8Array | undefined {
    const p = this.pending.get(keyString(key));
    return p ? p.value : this.get(key);
  }

  /**
   * Applies writes to the working version. Only the final value per key matters to the lattice, so
   * hashing is deferred to workingHash()/commit(), where the rows can be hashed in parallel.
   */
  applyPairs(pairs: KVPair[]): void {
    this.working = undefined;
    this.generation++;
    for (const { key, value } of pairs) {
      const hex = keyString(key);
      let p = this.pending.get(hex);
      if (!p) {
        const loc = locate(key);
        const prev = this.readCommitted(loc);
        p = { key: key.slice(), loc, value: prev, prev };
        this.pending.set(hex, p);
      }
      p.value = value === undefined ? undefined : value.slice();
    }
  }

  /** The lattice rows of the pending writes: the old row out, the new row in (unchanged rows skipped). */
  private latticeRows(): LatticeRow[] {
    const rows: LatticeRow[] = [];
    for (const p of this.pending.values()) {
      if (p.prev !== undefined && p.value !== undefined && equalBytes(p.prev, p.value)) continue;
      const table = TABLES.indexOf(p.loc.table);
      if (p.prev !== undefined) rows.push({ table, remove: true, key: p.key, value: p.prev });
      if (p.value !== undefined) rows.push({ table, remove: false, key: p.key, value: p.value });
    }
    return rows;
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
      this.working = this.pending.size === 0 ? this.lattices : this.withSums(sumRows(this.latticeRows()));
    }
    return this.working;
  }

  /** Working lattices, hashed on the worker pool (and this thread) when the block is large. */
  private async workingLatticesAsync(): Promise<Map<Table, LtHash>> {
    if (this.working) return this.working;
    const rows = this.latticeRows();
    if (rows.length < POOL_MIN_ROWS || this.hashWorkers === 0) return this.workingLattices();
    this.pool ??= new LatticePool(this.hashWorkers);
    const generation = this.generation;
    const sums = await this.pool.sum(rows, TABLES.length);
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

  /** Writes the working version as `version` in one atomic KV write. */
  async commit(version: number): Promise<Uint8Array> {
    if (version !== this.version + 1)
      throw new CommitStateError(`flatkv is at version ${this.version}; cannot commit ${version}`);
    const working = await this.workingLatticesAsync();
    const ops = this.rowOps();
    const undo: KVPair[] = [...this.pending.values()].map((p) => ({ key: p.key, value: p.prev }));
    ops.push({
      type: 'put',
      key: undoKey(version),
      value: encodeEntry({ version, upgrades: [], changeSets: [{ store: 'evm', pairs: undo }] }),
    });
    let oldest = this.oldest;
    while (version - oldest > this.undoWindow) {
      ops.push({ type: 'del', key: rootKey(oldest) });
      ops.push({ type: 'del', key: undoKey(++oldest) });
    }
    ops.push(...this.metaOps(version, oldest, working));
    ops.push({ type: 'put', key: rootKey(version), value: combinedRoot(working) });
    await this.db.write(ops);
    this.lattices = working;
    this.working = undefined;
    this.pending.clear();
    this.version = version;
    this.oldest = oldest;
    return this.committedHash();
  }

  private metaOps(version: number, oldest: number, lattices: Map<Table, LtHash>): KVOp[] {
    return [
      { type: 'put', key: META_VERSION, value: u64(version) },
      { type: 'put', key: META_OLDEST, value: u64(oldest) },
      ...TABLES.map((t): KVOp => ({ type: 'put', key: latticeKey(t), value: lattices.get(t)!.toBytes() })),
    ];
  }

  /** Committed root of `version` while it is within the undo window. */
  rootAt(version: number): Uint8Array {
    if (version === this.version) return this.committedHash();
    const r = version >= this.oldest && version <= this.version ? this.getSync(rootKey(version)) : undefined;
    if (!r) throw new VersionUnavailableError(version, this.oldest, this.version);
    return r;
  }

  discardWorking(): void {
    this.working = undefined;
    this.pending.clear();
  }

  /** Undoes blocks above `target` (one atomic write). */
  async rollback(target: number): Promise<void> {
    if (target === this.version) return this.discardWorking();
    if (target > this.version || target < this.oldest)
      throw new RollbackRangeError(target, this.oldest, this.version, 'flatkv');
    this.discardWorking();
    for (let v = this.version; v > target; v--) {
      const raw = await this.db.get(undoKey(v));
      if (!raw) throw new VersionUnavailableError(target, this.oldest, this.version);
      const entry = decodeEntry(raw);
      this.applyPairs(entry.changeSets[0].pairs);
      const working = await this.workingLatticesAsync();
      // collapse into committed state so that the next (older) undo reads these values
      const ops = this.rowOps();
      ops.push(
        { type: 'del', key: undoKey(v) },
        { type: 'del', key: rootKey(v) },
        ...this.metaOps(v - 1, this.oldest, working),
      );
      await this.db.write(ops);
      this.lattices = working;
      this.working = undefined;
      this.pending.clear();
      this.version = v - 1;
    }
    this.log.info({ version: target }, 'flatkv rolled back');
  }

  /** KV ops writing the pending values; account rows merge the nonce and code hash of one address. */
  private rowOps(): KVOp[] {
    const ops: KVOp[] = [];
    const accounts = new Map<string, Pending[]>();
    for (const p of this.pending.values()) {
      if (p.loc.field !== undefined) {
        const hex = toHex(p.loc.physical);
        accounts.set(hex, [...(accounts.get(hex) ?? []), p]);
      } else
        ops.push(
          p.value === undefined
            ? { type: 'del', key: p.loc.physical }
            : { type: 'put', key: p.loc.physical, value: p.value },
        );
    }
    for (const ps of accounts.values()) {
      const cur = decodeAccount(this.getSync(ps[0].loc.physical));
      for (const p of ps) cur[p.loc.field!] = p.value;
      const row = encodeAccount(cur);
      ops.push(
        row ? { type: 'put', key: ps[0].loc.physical, value: row } : { type: 'del', key: ps[0].loc.physical },
      );
    }
    return ops;
  }

  /** Every (evm key, value) row of the committed version, from a consistent read view. */
  async *export(): AsyncGenerator<[Uint8Array, Uint8Array]> {
    const snap = this.db.snapshot();
    try {
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
    await this.db.write([{ type: 'put', key: META_IMPORTING, value: u64(version) }]);
    const dels: KVOp[] = [];
    for await (const [k] of this.db.iterate()) if (k[0] !== T_META_BYTE) dels.push({ type: 'del', key: k });
    await this.db.write(dels);
    this.lattices = new Map(TABLES.map((t) => [t, new LtHash()]));
    this.version = version - 1; // applyPairs/commit machinery builds the rows; commit lands at `version`
    let batch: KVPair[] = [];
    const flushRows = async (): Promise<void> => {
      this.applyPairs(batch);
      batch = [];
      const working = await this.workingLatticesAsync();
      await this.db.write(this.rowOps());
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
    await this.db.write([
      ...this.metaOps(version, version, this.lattices),
      { type: 'del', key: META_IMPORTING },
    ]);
  }

  async close(): Promise<void> {
    await this.pool?.close();
    await this.db.close();
  }
}

const T_META_BYTE = 0x4d;
/** Below this many rows a block is hashed on the calling thread (messaging would cost more). */
const POOL_MIN_ROWS = 512;

function sumRows(rows: LatticeRow[]): Uint16Array {
  return sumPacked(packRows(rows, 0, rows.length), TABLES.length);
}

/** A Map key for bytes: latin1 decoding is native and one char per byte (cheaper than hex). */
function keyString(key: Uint8Array): string {
  return Buffer.from(key.buffer, key.byteOffset, key.length).toString('latin1');
}

function combinedRoot(lattices: Map<Table, LtHash>): Uint8Array {
  const sum = new LtHash();
  for (const t of TABLES) sum.addLimbs(lattices.get(t)!.limbs);
  return sum.root();
}
