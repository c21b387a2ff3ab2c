/**
 * Parallel lattice hashing for flatkv commits. A changed key costs one or two 2048-byte BLAKE3
 * expansions (its previous row out, its new row in) and, when its previous value is not in memory,
 * one KV point read: together the whole per-key cost of a flatkv commit. The lattice is a sum, so a
 * block's writes can be hashed by several threads, each reading the previous values of its writes
 * from its own read transaction and keeping partial sums per table (added up in any order with the
 * same result).
 *
 * The block is packed once into shared memory in chunks of CHUNK writes, and the calling thread and
 * the workers claim chunks from one atomic counter until none are left: a worker that the scheduler
 * keeps off the CPU (this machine's cores are shared) costs the commit at most the chunk it holds,
 * not a fixed share of the block.
 *
 * Reading in a worker is safe because a previous value is only left unknown for a key with no row
 * in flatkv's memory layer: the KV store's row for such a key is the committed value, and no flush
 * touches it, whichever read transaction sees it.
 */
import { Worker } from 'node:worker_threads';
import { equalBytes } from '../../../primitives/bytes.ts';
import { LtHash, LTHASH_LIMBS } from './lthash.ts';
import { latticeSimd } from './lattice-simd.ts';
import { decodeAccount, locate, physicalLength, writePhysical, type Location } from './layout.ts';

/** One key written by a block, as the lattice sees it. */
export interface LatticeWrite {
  key: Uint8Array;
  loc: Location;
  /** undefined: deleted */
  value: Uint8Array | undefined;
  /** false: the committed value before this block is still to be read from the KV store */
  prevKnown: boolean;
  prev: Uint8Array | undefined;
}

/** Physical row reader: the bytes may be a view that is valid until the next read. */
export type RowReader = (physical: Uint8Array) => Uint8Array | undefined;

/** Writes per claimable chunk. */
export const CHUNK = 64;

const F_PREV_KNOWN = 1;
const F_PREV_SET = 2;
const F_VALUE_SET = 4;

/**
 * A block's writes packed for hashing: per write u8 table ‖ u8 flags ‖ u32le klen ‖ key ‖
 * [u32le vlen ‖ value] ‖ [u32le plen ‖ prev] (the value when set, the previous value when known and
 * set); `chunkStarts[c]` is the byte offset of write c·CHUNK (one more entry: the end).
 */
export interface PackedWrites {
  bytes: Uint8Array;
  chunkStarts: Int32Array;
}

export function packWrites(
  writes: LatticeWrite[],
  tableIndex: (w: LatticeWrite) => number,
  shared = false,
): PackedWrites {
  let size = 0;
  for (const w of writes) {
    size += 6 + w.key.length;
    if (w.value !== undefined) size += 4 + w.value.length;
    if (w.prevKnown && w.prev !== undefined) size += 4 + w.prev.length;
  }
  const chunks = Math.ceil(writes.length / CHUNK);
  const bytes = new Uint8Array(shared ? new SharedArrayBuffer(size) : new ArrayBuffer(size));
  const chunkStarts = new Int32Array(
    shared ? new SharedArrayBuffer(4 * (chunks + 1)) : new ArrayBuffer(4 * (chunks + 1)),
  );
  const dv = new DataView(bytes.buffer);
  let o = 0;
  const put = (b: Uint8Array): void => {
    dv.setUint32(o, b.length, true);
    bytes.set(b, o + 4);
    o += 4 + b.length;
  };
  writes.forEach((w, i) => {
    if (i % CHUNK === 0) chunkStarts[i / CHUNK] = o;
    const prevSet = w.prevKnown && w.prev !== undefined;
    bytes[o] = tableIndex(w);
    bytes[o + 1] =
      (w.prevKnown ? F_PREV_KNOWN : 0) |
      (prevSet ? F_PREV_SET : 0) |
      (w.value !== undefined ? F_VALUE_SET : 0);
    o += 2;
    put(w.key);
    if (w.value !== undefined) put(w.value);
    if (prevSet) put(w.prev!);
  });
  chunkStarts[chunks] = o;
  return { bytes, chunkStarts };
}

/**
 * One thread's partial lattices over the chunks it hashes. `read` fills in unknown previous values;
 * the values read are returned per chunk: u32le length (0xffffffff: no row) ‖ bytes, in write order.
 */
export class LatticeSummer {
  private readonly simd = latticeSimd();
  private readonly parts: LtHash[] | undefined;
  private readonly scratch = new Map<number, Uint8Array>();
  private readonly tables: number;

  constructor(tables: number) {
    this.tables = tables;
    if (this.simd && tables <= 8) this.simd.reset(tables);
    else this.parts = Array.from({ length: tables }, () => new LtHash());
  }

  private mix(t: number, key: Uint8Array, value: Uint8Array, remove: boolean): void {
    if (this.parts) {
      if (remove) this.parts[t].remove(key, value);
      else this.parts[t].add(key, value);
    } else this.simd!.mix(t, key, value, remove);
  }

  /** Hashes the writes in bytes[from, to); returns the previous values it read. */
  add(packed: Uint8Array, from: number, to: number, read: RowReader | undefined): ArrayBuffer {
    const dv = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
    let reads: Uint8Array<ArrayBuffer> | undefined;
    let readsLen = 0;
    let o = from;
    const take = (): Uint8Array => {
      const n = dv.getUint32(o, true);
      const b = packed.subarray(o + 4, o + 4 + n);
      o += 4 + n;
      return b;
    };
    while (o < to) {
      const t = packed[o];
      const flags = packed[o + 1];
      o += 2;
      const key = take();
      const value = flags & F_VALUE_SET ? take() : undefined;
      let prev: Uint8Array | undefined;
      if (flags & F_PREV_KNOWN) prev = flags & F_PREV_SET ? take() : undefined;
      else {
        if (!read) throw new Error('a previous value is unknown and this thread has no KV reader');
        prev = readPrevious(key, read, this.scratch);
        const need = 4 + (prev?.length ?? 0);
        if (!reads || readsLen + need > reads.length) {
          const grown = new Uint8Array(Math.max(1024, 2 * (reads?.length ?? 0), readsLen + need));
          if (reads) grown.set(reads.subarray(0, readsLen));
          reads = grown;
        }
        new DataView(reads.buffer).setUint32(readsLen, prev ? prev.length : 0xffffffff, true);
        if (prev) reads.set(prev, readsLen + 4);
        readsLen += need;
      }
      if (prev !== undefined && value !== undefined && equalBytes(prev, value)) continue;
      if (prev !== undefined) this.mix(t, key, prev, true);
      if (value !== undefined) this.mix(t, key, value, false);
    }
    return reads ? reads.buffer.slice(0, readsLen) : new ArrayBuffer(0);
  }

  /** tables × LTHASH_LIMBS limbs, back to back. */
  sums(): Uint16Array {
    if (!this.parts) return this.simd!.sums(this.tables).slice();
    const out = new Uint16Array(this.tables * LTHASH_LIMBS);
    this.parts.forEach((p, i) => out.set(p.limbs, i * LTHASH_LIMBS));
    return out;
  }
}

/** Sums all `writes` on this thread (previous values must be known, or `read` given). */
export function sumWrites(
  writes: LatticeWrite[],
  tables: number,
  tableIndex: (w: LatticeWrite) => number,
  read?: RowReader,
): Uint16Array {
  const { bytes } = packWrites(writes, tableIndex);
  const summer = new LatticeSummer(tables);
  applyReads(writes, 0, writes.length, summer.add(bytes, 0, bytes.length, read));
  return summer.sums();
}

/** The committed value of an evm key from its physical row (a view valid until the next read). */
function readPrevious(
  key: Uint8Array,
  read: RowReader,
  scratch: Map<number, Uint8Array>,
): Uint8Array | undefined {
  const loc = locate(key);
  const len = physicalLength(key, loc);
  let physical = scratch.get(len);
  if (!physical) scratch.set(len, (physical = new Uint8Array(len)));
  const row = read(writePhysical(key, loc, physical));
  return loc.field === undefined ? row : decodeAccount(row)[loc.field];
}

/** Fills in the previous values read for writes[from, to) (`reads` of LatticeSummer.add). */
export function applyReads(writes: LatticeWrite[], from: number, to: number, reads: ArrayBuffer): void {
  if (reads.byteLength === 0) return;
  const buf = new Uint8Array(reads);
  const dv = new DataView(reads);
  let o = 0;
  for (let i = from; i < to; i++) {
    const w = writes[i];
    if (w.prevKnown) continue;
    const n = dv.getUint32(o, true);
    o += 4;
    if (n === 0xffffffff) w.prev = undefined;
    else {
      w.prev = buf.subarray(o, o + n); // one buffer backs a chunk's values, like an arena
      o += n;
    }
    w.prevKnown = true;
  }
}

/** A worker's task: claim chunks of `bytes` from `next` until there are none. */
export interface WorkerRequest {
  id: number;
  bytes: Uint8Array;
  chunkStarts: Int32Array;
  /** Int32Array over shared memory: [0] is the next chunk to claim */
  next: Int32Array;
  tables: number;
  /** lmdb directory the worker reads unknown previous values from */
  kvPath: string | undefined;
}

/** Asks a worker to close its lmdb handle and end, after answering every earlier request. */
export interface WorkerClose {
  close: true;
}

export interface WorkerReply {
  id: number;
  error?: string;
  sums?: ArrayBuffer;
  /** the chunks this worker hashed and, for each, the previous values it read */
  chunks?: number[];
  reads?: ArrayBuffer[];
}

/** Claims and hashes chunks until none are left; returns the chunks and their reads. */
export function claimChunks(
  summer: LatticeSummer,
  req: Pick<WorkerRequest, 'bytes' | 'chunkStarts' | 'next'>,
  read: RowReader | undefined,
): { chunks: number[]; reads: ArrayBuffer[] } {
  const total = req.chunkStarts.length - 1;
  const chunks: number[] = [];
  const reads: ArrayBuffer[] = [];
  for (;;) {
    const c = Atomics.add(req.next, 0, 1);
    if (c >= total) break;
    chunks.push(c);
    reads.push(summer.add(req.bytes, req.chunkStarts[c], req.chunkStarts[c + 1], read));
  }
  return { chunks, reads };
}

export class LatticePool {
  private readonly workers: Worker[] = [];
  private seq = 0;
  private readonly waiting = new Map<number, (reply: WorkerReply) => void>();
  private readonly kvPath: string | undefined;
  private closing = false;

  /** `kvPath`: the lmdb directory workers may read previous values from (none: all must be known). */
  constructor(size: number, kvPath?: string) {
    this.kvPath = kvPath;
    for (let i = 0; i < size; i++) {
      const w = new Worker(new URL('./lattice-worker.ts', import.meta.url));
      w.unref(); // an idle pool must not keep the process alive
      w.on('message', (m: WorkerReply) => {
        const done = this.waiting.get(m.id);
        this.waiting.delete(m.id);
        done?.(m);
      });
      // a thread that fails or ends fails whatever waits for it, instead of leaving it waiting
      const fail = (error: string) => {
        for (const done of this.waiting.values()) done({ id: -1, error });
        this.waiting.clear();
      };
      w.on('error', (err) => fail(err.message));
      w.on('exit', (code) => {
        if (!this.closing) fail(`lattice worker exited with code ${code}`);
      });
      // an empty task: the worker opens its lmdb handle and compiles its kernel now, not while
      // the first block waits for it
      const bytes = new Uint8Array(new SharedArrayBuffer(0));
      const chunkStarts = new Int32Array(new SharedArrayBuffer(4));
      const next = new Int32Array(new SharedArrayBuffer(4));
      w.postMessage({ id: 0, bytes, chunkStarts, next, tables: 1, kvPath } satisfies WorkerRequest);
      this.workers.push(w);
    }
  }

  get size(): number {
    return this.workers.length;
  }

  /** Can the workers read unknown previous values themselves? */
  get reads(): boolean {
    return this.kvPath !== undefined;
  }

  /**
   * Per-table sums of `writes` (tables × 1024 limbs), hashed by the workers and this thread (with
   * `read`); afterwards every write's previous value is known. `callerHashes: false` leaves every
   * chunk to the workers (tests of the workers' own reads).
   */
  async sum(
    writes: LatticeWrite[],
    tables: number,
    tableIndex: (w: LatticeWrite) => number,
    read: RowReader | undefined,
    callerHashes = true,
  ): Promise<Uint16Array> {
    const { bytes, chunkStarts } = packWrites(writes, tableIndex, true);
    const next = new Int32Array(new SharedArrayBuffer(4));
    const replies = this.workers.map((w) => {
      const id = ++this.seq;
      const reply = new Promise<WorkerReply>((resolve) => this.waiting.set(id, resolve));
      const req: WorkerRequest = { id, bytes, chunkStarts, next, tables, kvPath: this.kvPath };
      w.postMessage(req);
      return reply;
    });
    const summer = new LatticeSummer(tables);
    const mine = callerHashes
      ? claimChunks(summer, { bytes, chunkStarts, next }, read)
      : { chunks: [], reads: [] };
    const total = summer.sums();
    const apply = (chunks: number[], reads: ArrayBuffer[]): void =>
      chunks.forEach((c, i) =>
        applyReads(writes, c * CHUNK, Math.min(writes.length, (c + 1) * CHUNK), reads[i]),
      );
    apply(mine.chunks, mine.reads);
    // the workers' chunks: wait only while some are still being hashed (a worker that claimed
    // none answers later, and its answer adds nothing)
    let others = chunkStarts.length - 1 - mine.chunks.length;
    const pending = new Set(replies);
    while (others > 0) {
      const m = await Promise.race([...pending].map((p) => p.then((r) => ({ p, r }))));
      pending.delete(m.p);
      if (m.r.error !== undefined) throw new Error(`lattice worker failed: ${m.r.error}`);
      const part = new Uint16Array(m.r.sums!);
      for (let j = 0; j < total.length; j++) total[j] += part[j];
      apply(m.r.chunks!, m.r.reads!);
      others -= m.r.chunks!.length;
    }
    return total;
  }

  /**
   * Ends the workers once they have answered every request sent to them (a sum returns before a
   * worker that claimed no chunk has answered); resolves with their exit codes (0: each closed its
   * lmdb handle and ended by itself).
   */
  async close(): Promise<number[]> {
    this.closing = true;
    const workers = this.workers.splice(0);
    return Promise.all(
      workers.map((w) => {
        const exited = new Promise<number>((resolve) => w.once('exit', resolve));
        w.postMessage({ close: true } satisfies WorkerClose);
        return exited;
      }),
    );
  }
}
