/**
 * Parallel lattice hashing for flatkv commits. Every changed row costs one or two 2048-byte BLAKE3
 * expansions, which is the whole per-key cost of a flatkv commit, and the lattice is a sum: the rows
 * can be split across worker threads, each returning its partial sums per table, and added up in any
 * order with the same result. The calling thread hashes its own share while the workers run.
 */
import { Worker } from 'node:worker_threads';
import { LtHash, LTHASH_LIMBS } from './lthash.ts';
import { latticeSimd } from './lattice-simd.ts';

export interface LatticeRow {
  table: number;
  /** true: the row is removed (old value), false: added (new value) */
  remove: boolean;
  key: Uint8Array;
  value: Uint8Array;
}

/** rows -> one buffer: u8 table, u8 remove, u32le klen, key, u32le vlen, value */
export function packRows(rows: LatticeRow[], from: number, to: number): ArrayBuffer {
  let size = 0;
  for (let i = from; i < to; i++) size += 10 + rows[i].key.length + rows[i].value.length;
  const buf = new Uint8Array(size);
  const dv = new DataView(buf.buffer);
  let o = 0;
  for (let i = from; i < to; i++) {
    const r = rows[i];
    buf[o] = r.table;
    buf[o + 1] = r.remove ? 1 : 0;
    dv.setUint32(o + 2, r.key.length, true);
    buf.set(r.key, o + 6);
    o += 6 + r.key.length;
    dv.setUint32(o, r.value.length, true);
    buf.set(r.value, o + 4);
    o += 4 + r.value.length;
  }
  return buf.buffer;
}

/** Sums packed rows into `tables` partial lattices; returns their limbs back to back. */
export function sumPacked(buffer: ArrayBuffer, tables: number): Uint16Array {
  const buf = new Uint8Array(buffer);
  const dv = new DataView(buffer);
  const simd = tables <= 8 ? latticeSimd() : undefined;
  const parts = simd ? undefined : Array.from({ length: tables }, () => new LtHash());
  simd?.reset(tables);
  let o = 0;
  while (o < buf.length) {
    const t = buf[o];
    const remove = buf[o + 1] === 1;
    const kl = dv.getUint32(o + 2, true);
    const key = buf.subarray(o + 6, o + 6 + kl);
    o += 6 + kl;
    const vl = dv.getUint32(o, true);
    const value = buf.subarray(o + 4, o + 4 + vl);
    o += 4 + vl;
    if (simd) simd.mix(t, key, value, remove);
    else if (remove) parts![t].remove(key, value);
    else parts![t].add(key, value);
  }
  if (simd) return simd.sums(tables).slice();
  const out = new Uint16Array(tables * LTHASH_LIMBS);
  parts!.forEach((p, i) => out.set(p.limbs, i * LTHASH_LIMBS));
  return out;
}

export class LatticePool {
  private readonly workers: Worker[] = [];
  private seq = 0;
  private readonly waiting = new Map<
    number,
    { resolve: (v: Uint16Array) => void; reject: (e: Error) => void }
  >();

  constructor(size: number) {
    for (let i = 0; i < size; i++) {
      const w = new Worker(new URL('./lattice-worker.ts', import.meta.url));
      w.unref(); // an idle pool must not keep the process alive
      w.on('message', (m: { id: number; out?: ArrayBuffer; error?: string }) => {
        const p = this.waiting.get(m.id);
        if (!p) return;
        this.waiting.delete(m.id);
        if (m.out) p.resolve(new Uint16Array(m.out));
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

  /** Per-table partial sums of `rows` (tables × 1024 limbs), computed on the workers and here. */
  async sum(rows: LatticeRow[], tables: number): Promise<Uint16Array> {
    const shares = this.workers.length + 1;
    const per = Math.ceil(rows.length / shares);
    const pending: Promise<Uint16Array>[] = [];
    for (let i = 0; i < this.workers.length; i++) {
      const from = (i + 1) * per;
      const to = Math.min(rows.length, from + per);
      if (from >= to) break;
      const id = ++this.seq;
      const buffer = packRows(rows, from, to);
      pending.push(new Promise((resolve, reject) => this.waiting.set(id, { resolve, reject })));
      this.workers[i].postMessage({ id, buffer, tables }, [buffer]);
    }
    const total = sumPacked(packRows(rows, 0, Math.min(per, rows.length)), tables);
    for (const part of await Promise.all(pending)) {
      for (let i = 0; i < total.length; i++) total[i] += part[i];
    }
    return total;
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
    this.workers.length = 0;
  }
}
