/**
 * The working version of flatkv: one block's writes, by evm key, and the table lattices they give.
 * Hashing is deferred until a root is asked for, so only each key's final value counts, and a large
 * block is hashed on the worker pool (whose threads also read the previous values the block
 * replaces).
 */
import { BytesMap, hashBytes } from '../../../util/bytes-map.ts';
import type { ByteArena } from '../../../util/byte-arena.ts';
import type { KVPair } from '../types.ts';
import { locate, TABLES, type Table } from './layout.ts';
import { LatticePool, sumWrites, type LatticeWrite, type RowReader } from './lattice-pool.ts';
import { LtHash, LTHASH_LIMBS } from './lthash.ts';
import { tableIndex } from './meta.ts';

/**
 * One evm key written by a block; once committed, the same object is its entry in the memory layer.
 * `prev` is the committed value before this block (the lattice removes it; it is the undo record).
 * A key with no row in the memory layer has its `prev` read from the KV store while the block is
 * hashed, on the hashing threads (`prevKnown` false until then); a committed Pending always knows it.
 */
export interface Pending extends LatticeWrite {
  /** hashBytes(key): computed once, used by every map the key goes into */
  hash: number;
}

/** Below this many rows a block is hashed on the calling thread (messaging would cost more). */
const POOL_MIN_WRITES = 256;

export interface WorkingSetOptions {
  /** Worker threads hashing large blocks (0 = hash on the caller). */
  hashWorkers: number;
  /** The lmdb environment the workers read previous values from; unset: this thread reads them. */
  kvPath: string | undefined;
  /** Keys are copied here (see apply). */
  arena: ByteArena;
  /** The committed KV value of a key with no row in the memory layer, copied into the arena. */
  readPrev: (p: Pending) => Uint8Array | undefined;
  /** A KV read valid until the next one, for this thread's share of a pooled hash. */
  getView: RowReader;
}

export class WorkingSet {
  /** This block's writes. */
  pending = new BytesMap<Pending>();
  private working: Map<Table, LtHash> | undefined;
  /** Bumped by every write, so a parallel hash that raced a write is not used. */
  private generation = 0;
  private pool: LatticePool | undefined;
  private readonly opts: WorkingSetOptions;

  constructor(opts: WorkingSetOptions) {
    this.opts = opts;
  }

  get size(): number {
    return this.pending.size;
  }

  get(key: Uint8Array): Pending | undefined {
    return this.pending.size > 0 ? this.pending.get(key) : undefined;
  }

  /**
   * Applies writes. `committed` finds a key's row in the memory layer: its value is the write's
   * previous value, known without a KV read.
   */
  apply(pairs: KVPair[], committed: (key: Uint8Array, hash: number) => Pending | undefined): void {
    this.working = undefined;
    this.generation++;
    for (const { key, value } of pairs) {
      const h = hashBytes(key);
      let p = this.pending.get(key, h);
      if (!p) {
        const r = committed(key, h);
        // The key is copied into the arena: a commit passes over its keys several times (hash, log,
        // memory layer), and keys packed side by side stay in cache where the caller's, scattered
        // over the heap, cost a cache miss each time. Values are kept as given (the commit store
        // owns the pairs it is given; memiavl keeps them too).
        const own = this.opts.arena.copy(key);
        p = r
          ? { key: own, loc: locate(key), value, prevKnown: true, prev: r.value, hash: h }
          : { key: own, loc: locate(key), value, prevKnown: false, prev: undefined, hash: h };
        this.pending.set(own, p, h);
      }
      p.value = value;
    }
  }

  /** Adds a write whose previous value is known (log replay). */
  putKnown(key: Uint8Array, value: Uint8Array | undefined, prev: Uint8Array | undefined): void {
    this.working = undefined;
    const hash = hashBytes(key);
    this.pending.set(key, { key, loc: locate(key), value, prevKnown: true, prev, hash }, hash);
  }

  /** Reads the previous values still unknown, on this thread. */
  resolvePrevs(writes: Iterable<Pending> = this.pending.values()): void {
    for (const p of writes) {
      if (p.prevKnown) continue;
      p.prev = this.opts.readPrev(p);
      p.prevKnown = true;
    }
  }

  /** The lattices of `committed` plus this block, hashed on this thread. */
  lattices(committed: Map<Table, LtHash>): Map<Table, LtHash> {
    if (!this.working) {
      if (this.pending.size === 0) this.working = committed;
      else {
        const writes = [...this.pending.values()];
        this.resolvePrevs(writes);
        this.working = withSums(committed, sumWrites(writes, TABLES.length, tableIndex));
      }
    }
    return this.working;
  }

  /** Like lattices(), on the worker pool (and this thread) when the block is large. */
  async latticesAsync(committed: Map<Table, LtHash>): Promise<Map<Table, LtHash>> {
    if (this.working) return this.working;
    if (this.pending.size < POOL_MIN_WRITES || this.opts.hashWorkers === 0) return this.lattices(committed);
    const writes = [...this.pending.values()];
    this.pool ??= new LatticePool(this.opts.hashWorkers, this.opts.kvPath);
    if (!this.pool.reads) this.resolvePrevs(writes);
    const generation = this.generation;
    const sums = await this.pool.sum(writes, TABLES.length, tableIndex, this.opts.getView);
    if (generation !== this.generation) return this.latticesAsync(committed); // written meanwhile
    this.working = withSums(committed, sums);
    return this.working;
  }

  /** Hands the block's writes over (they become committed) and starts an empty one. */
  take(): BytesMap<Pending> {
    const taken = this.pending;
    this.pending = new BytesMap();
    this.working = undefined;
    return taken;
  }

  clear(): void {
    this.working = undefined;
    this.pending.clear();
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }
}

function withSums(committed: Map<Table, LtHash>, sums: Uint16Array): Map<Table, LtHash> {
  return new Map(
    TABLES.map((t, i) => {
      const lt = committed.get(t)!.clone();
      lt.addLimbs(sums.subarray(i * LTHASH_LIMBS, (i + 1) * LTHASH_LIMBS));
      return [t, lt];
    }),
  );
}
