/**
 * A small least-recently-used map: a Map's insertion order is the recency order. Bounded by entries
 * and, when given a `sizeOf`, by the bytes its values hold (an entry count alone bounds nothing when
 * one value may be a 20-log receipt and the next an empty one).
 */
export class Lru<K, V> {
  private readonly map = new Map<K, V>();
  private readonly max: number;
  private readonly maxBytes: number;
  private readonly sizeOf: ((v: V, k: K) => number) | undefined;
  private bytes = 0;

  constructor(max: number, maxBytes = Infinity, sizeOf?: (v: V, k: K) => number) {
    this.max = max;
    this.maxBytes = maxBytes;
    this.sizeOf = sizeOf;
  }

  get size(): number {
    return this.map.size;
  }

  /** Bytes the values hold, by `sizeOf` (0 without it). */
  get byteSize(): number {
    return this.bytes;
  }

  get(k: K): V | undefined {
    const v = this.map.get(k);
    if (v !== undefined) {
      this.map.delete(k);
      this.map.set(k, v);
    }
    return v;
  }

  set(k: K, v: V): void {
    this.delete(k);
    this.map.set(k, v);
    if (this.sizeOf) this.bytes += this.sizeOf(v, k);
    while (this.map.size > this.max || (this.bytes > this.maxBytes && this.map.size > 0)) {
      this.delete(this.map.keys().next().value as K);
    }
  }

  /** Drops every entry whose key `drop` picks (a dev chain's revert: the heights above its target). */
  deleteWhere(drop: (k: K) => boolean): void {
    for (const k of [...this.map.keys()]) if (drop(k)) this.delete(k);
  }

  delete(k: K): void {
    const old = this.map.get(k);
    if (old === undefined && !this.map.has(k)) return;
    this.map.delete(k);
    if (this.sizeOf) this.bytes -= this.sizeOf(old as V, k);
  }
}
