/**
 * A map keyed by byte strings, for hot paths with many short keys (flatkv's per-block writes and its
 * not yet flushed rows). A `Map` keyed by a latin1 string of the bytes pays a string allocation, a
 * string hash and a large-map probe per operation: about 0.5 µs on a 53-byte storage key, most of a
 * flatkv commit's per-key cost outside hashing. This one hashes the bytes into an integer and
 * compares bytes only where the hashes match.
 *
 * The hash is seeded per process, so that keys ground offline to collide (and turn a block's apply
 * quadratic) do not collide on a running node. Iteration is in insertion order. Keys are stored as
 * given: a caller that may reuse a key's buffer passes a copy. There is no single-key delete.
 */
import { randomInt } from 'node:crypto';
import { equalBytes } from '../primitives/bytes.ts';

const SEED = randomInt(0x7fffffff);

/** Every byte, four at a time, multiply-rotate mixed from a random basis (murmur3's steps). */
export function hashBytes(key: Uint8Array): number {
  const n = key.length;
  let h = SEED ^ n;
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    let w = key[i] | (key[i + 1] << 8) | (key[i + 2] << 16) | (key[i + 3] << 24);
    w = Math.imul(w, 0xcc9e2d51);
    w = Math.imul((w << 15) | (w >>> 17), 0x1b873593);
    h ^= w;
    h = Math.imul((h << 13) | (h >>> 19), 5) + 0xe6546b64;
  }
  for (; i < n; i++) h = Math.imul(h ^ key[i], 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h | 0;
}

export class BytesMap<V> {
  // Open addressing with linear probing over one typed array of (index + 1 into keys/vals, 0 =
  // empty; hash) pairs: a probe touches one cache line and, on a hash match, one key; there are no
  // bucket objects for the collector to trace.
  private table = new Int32Array(32);
  private mask = 15;
  private readonly keys: Uint8Array[] = [];
  private readonly vals: V[] = [];

  get size(): number {
    return this.keys.length;
  }

  /** Index of the key in keys/vals, or -1 - (the empty slot where it would go). */
  private find(key: Uint8Array, h: number): number {
    const { table, mask, keys } = this;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const s = table[2 * i];
      if (s === 0) return -1 - i;
      if (table[2 * i + 1] === h && equalBytes(keys[s - 1], key)) return s - 1;
    }
  }

  /** `hash`: hashBytes(key), for a caller probing several maps with one key. */
  get(key: Uint8Array, hash = hashBytes(key)): V | undefined {
    const at = this.find(key, hash);
    return at >= 0 ? this.vals[at] : undefined;
  }

  has(key: Uint8Array): boolean {
    return this.find(key, hashBytes(key)) >= 0;
  }

  set(key: Uint8Array, value: V, h = hashBytes(key)): this {
    const at = this.find(key, h);
    if (at >= 0) {
      this.vals[at] = value;
      return this;
    }
    const slot = -1 - at;
    this.keys.push(key);
    this.vals.push(value);
    this.table[2 * slot] = this.keys.length;
    this.table[2 * slot + 1] = h;
    if (this.keys.length * 2 > this.mask) this.grow();
    return this;
  }

  private grow(): void {
    const old = this.table;
    const mask = this.mask * 2 + 1;
    const table = new Int32Array(2 * (mask + 1));
    for (let j = 0; j < old.length; j += 2) {
      const s = old[j];
      if (s === 0) continue;
      const h = old[j + 1];
      let i = h & mask;
      while (table[2 * i] !== 0) i = (i + 1) & mask;
      table[2 * i] = s;
      table[2 * i + 1] = h;
    }
    this.table = table;
    this.mask = mask;
  }

  clear(): void {
    this.table = new Int32Array(32);
    this.mask = 15;
    this.keys.length = 0;
    this.vals.length = 0;
  }

  values(): IterableIterator<V> {
    return this.vals.values();
  }

  *entries(): IterableIterator<[Uint8Array, V]> {
    for (let i = 0; i < this.keys.length; i++) yield [this.keys[i], this.vals[i]];
  }

  [Symbol.iterator](): IterableIterator<[Uint8Array, V]> {
    return this.entries();
  }
}
