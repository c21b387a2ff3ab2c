/**
 * The `[mempool] cache-size` LRU of transaction hashes the node has seen (CometBFT's tx cache): a hash
 * in it is refused before any decoding or signature recovery, which is what makes re-gossip and
 * resubmission of known transactions cheap. A Map keeps insertion order, so re-inserting on touch and
 * deleting the first key is an O(1) LRU. Capacity 0 disables the cache.
 */
export class SeenCache {
  private readonly entries = new Map<string, true>();
  readonly capacity: number;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 0)
      throw new RangeError(`cache size must be ≥ 0, got ${capacity}`);
    this.capacity = capacity;
  }

  get size(): number {
    return this.entries.size;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** Adds or refreshes `key`, evicting the least recently added/refreshed key when full. */
  add(key: string): void {
    if (this.capacity === 0) return;
    if (this.entries.delete(key)) {
      this.entries.set(key, true);
      return;
    }
    if (this.entries.size >= this.capacity) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, true);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
