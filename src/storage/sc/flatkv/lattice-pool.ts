/**
 * Parallel lattice hashing for flatkv commits. A changed key costs one or two 2048-byte BLAKE3
 * expansions (its previous row out, its new row in) and, when its previous value is not in memory,
 * one KV point read: together the whole per-key cost of a flatkv commit. The lattice is a sum, so a
 * block's writes can be split across worker threads, each reading the previous values of its share
 * from its own read transaction and returning partial sums per table (added up in any order with
 * the same result) and the values it read. The calling thread does its own share meanwhile.
 *
 * Reading in a worker is safe because a previous value is only left unknown for a key with no row
 * in flatkv's memory layer: the KV store's row for such a key is the committed value, and no flush
 * touches it, whichever read transaction sees it.
 */
import { Worker } from 'node:worker_threads';
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

const F_PREV_KNOWN = 1;
const F_PREV_SET = 2;
const F_VALUE_SET = 4;

/**
 * writes -> one buffer, per write: u8 table ‖ u8 flags ‖ u32le klen ‖ key ‖ [u32le vlen ‖ value]
 * ‖ [u32le plen ‖ prev] (the value when set, the previous value when known and set).
 */
export function packWrites(
  writes: LatticeWrite[],
  from: number,
  to: number,
  tableIndex: (w: LatticeWrite) => number,
): ArrayBuffer {
  let size = 0;
  for (let i = from; i < to; i++) {
    const w = writes[i];
    size += 6 + w.key.length;
    if (w.value !== undefined) size += 4 + w.value.length;
    if (w.prevKnown && w.prev !== undefined) size += 4 + w.prev.length;
  }
  const buf = new Uint8Array(size);
  const dv = new DataView(buf.buffer);
  let o = 0;
  const put = (b: Uint8Array): void => {
    dv.setUint32(o, b.length, true);
    buf.set(b, o + 4);
    o += 4 + b.length;
  };
  for (let i = from; i < to; i++) {
    const w = writes[i];
    const prevSet = w.prevKnown && w.prev !== undefined;
    buf[o] = tableIndex(w);
    buf[o + 1] =
      (w.prevKnown ? F_PREV_KNOWN : 0) |
      (prevSet ? F_PREV_SET : 0) |
      (w.value !== undefined ? F_VALUE_SET : 0);
    o += 2;
    put(w.key);
    if (w.value !== undefined) put(w.value);
    if (prevSet) put(w.prev!);
  }
  return buf.buffer;
}

export interface PartialSums {
  /** tables × LTHASH_LIMBS limbs, back to back */
  sums: Uint16Array;
  /**
   * The previous values this share read, in write order: u32le length (0xffffffff: no row) ‖ bytes.
   * Empty when every previous value was known.
   */
  reads: ArrayBuffer;
}

/** Sums one packed share into per-table partial lattices, reading unknown previous values first. */
export function sumWrites(buffer: ArrayBuffer, tables: number, read: RowReader | undefined): PartialSums {
  const buf = new Uint8Array(buffer);
  const dv = new DataView(buffer);
  const simd = tables <= 8 ? latticeSimd() : undefined;
  const parts = simd ? undefined : Array.from({ length: tables }, () => new LtHash());
  simd?.reset(tables);
  const mix = (t: number, key: Uint8Array, value: Uint8Array, remove: boolean): void => {
    if (simd) simd.mix(t, key, value, remove);
    else if (remove) parts![t].remove(key, value);
    else parts![t].add(key, value);
  };
  const scratch = new Map<number, Uint8Array>();
  let reads: Uint8Array<ArrayBuffer> | undefined;
  let readsLen = 0;
  const record = (prev: Uint8Array | undefined): void => {
    const need = 4 + (prev?.length ?? 0);
    if (!reads || readsLen + need > reads.length) {
      const grown = new Uint8Array(Math.max(4096, 2 * (reads?.length ?? 0), readsLen + need));
      if (reads) grown.set(reads.subarray(0, readsLen));
      reads = grown;
    }
    new DataView(reads.buffer).setUint32(readsLen, prev ? prev.length : 0xffffffff, true);
    if (prev) reads.set(prev, readsLen + 4);
    readsLen += need;
  };
  let o = 0;
  const take = (): Uint8Array => {
    const n = dv.getUint32(o, true);
    const b = buf.subarray(o + 4, o + 4 + n);
    o += 4 + n;
    return b;
  };
  while (o < buf.length) {
    const t = buf[o];
    const flags = buf[o + 1];
    o += 2;
    const key = take();
    const value = flags & F_VALUE_SET ? take() : undefined;
    let prev: Uint8Array | undefined;
    if (flags & F_PREV_KNOWN) prev = flags & F_PREV_SET ? take() : undefined;
    else {
      if (!read) throw new Error('a previous value is unknown and this share has no KV reader');
      prev = readPrevious(key, read, scratch);
      record(prev);
    }
    if (prev !== undefined && value !== undefined && equal(prev, value)) continue;
    if (prev !== undefined) mix(t, key, prev, true);
    if (value !== undefined) mix(t, key, value, false);
  }
  let sums: Uint16Array;
  if (simd) sums = simd.sums(tables).slice();
  else {
    sums = new Uint16Array(tables * LTHASH_LIMBS);
    parts!.forEach((p, i) => sums.set(p.limbs, i * LTHASH_LIMBS));
  }
  return { sums, reads: reads ? reads.buffer.slice(0, readsLen) : new ArrayBuffer(0) };
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

function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Fills in the previous values a share read (`reads` of sumWrites), in the share's write order. */
export function applyReads(writes: LatticeWrite[], from: number, to: number, reads: ArrayBuffer): void {
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
      w.prev = buf.subarray(o, o + n); // the share's buffer backs all its values, like an arena
      o += n;
    }
    w.prevKnown = true;
  }
}

interface WorkerRequest {
  id: number;
  buffer: ArrayBuffer;
  tables: number;
  /** lmdb directory the worker reads unknown previous values from */
  kvPath: string | undefined;
}

export class LatticePool {
  private readonly workers: Worker[] = [];
  private seq = 0;
  private readonly waiting = new Map<
    number,
    { resolve: (v: PartialSums) => void; reject: (e: Error) => void }
  >();

  private readonly kvPath: string | undefined;

  /** `kvPath`: the lmdb directory workers may read previous values from (none: all must be known). */
  constructor(size: number, kvPath?: string) {
    this.kvPath = kvPath;
    for (let i = 0; i < size; i++) {
      const w = new Worker(new URL('./lattice-worker.ts', import.meta.url));
      w.unref(); // an idle pool must not keep the process alive
      w.on('message', (m: { id: number; sums?: ArrayBuffer; reads?: ArrayBuffer; error?: string }) => {
        const p = this.waiting.get(m.id);
        if (!p) return;
        this.waiting.delete(m.id);
        if (m.sums) p.resolve({ sums: new Uint16Array(m.sums), reads: m.reads! });
        else p.reject(new Error(`lattice worker failed: ${m.error}`));
      });
      w.on('error', (err) => {
        for (const p of this.waiting.values()) p.reject(err);
        this.waiting.clear();
      });
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
   * Per-table sums of `writes` (tables × 1024 limbs), computed on the workers and here with `read`;
   * afterwards every write's previous value is known.
   */
  async sum(
    writes: LatticeWrite[],
    tables: number,
    tableIndex: (w: LatticeWrite) => number,
    read: RowReader | undefined,
  ): Promise<Uint16Array> {
    const shares = this.workers.length + 1;
    const per = Math.ceil(writes.length / shares);
    const pending: Promise<PartialSums>[] = [];
    const ranges: [number, number][] = [];
    for (let i = 0; i < this.workers.length; i++) {
      const from = (i + 1) * per;
      const to = Math.min(writes.length, from + per);
      if (from >= to) break;
      const id = ++this.seq;
      const buffer = packWrites(writes, from, to, tableIndex);
      pending.push(new Promise((resolve, reject) => this.waiting.set(id, { resolve, reject })));
      const req: WorkerRequest = { id, buffer, tables, kvPath: this.kvPath };
      this.workers[i].postMessage(req, [buffer]);
      ranges.push([from, to]);
    }
    const mineTo = Math.min(per, writes.length);
    const mine = sumWrites(packWrites(writes, 0, mineTo, tableIndex), tables, read);
    applyReads(writes, 0, mineTo, mine.reads);
    const total = mine.sums;
    const parts = await Promise.all(pending);
    parts.forEach((part, i) => {
      for (let j = 0; j < total.length; j++) total[j] += part.sums[j];
      applyReads(writes, ranges[i][0], ranges[i][1], part.reads);
    });
    return total;
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
    this.workers.length = 0;
  }
}

export type { WorkerRequest };
