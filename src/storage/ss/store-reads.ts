/**
 * What every State Store answers alike, whatever holds its versions (the databases, a read-only view of
 * them, or State Commit with a window in memory): a point read is a promise that rejects rather than
 * throws, since callers chain on it; `has` is whether that read found a value; and a listing's
 * arguments, where each store only says how it lists a range.
 */
import type { KVEntry } from '../kv/types.ts';

/** What a listing covers: keys in [start, end) (an undefined end is open), in key order or reverse. */
export interface KeyRange {
  start: Uint8Array | undefined;
  end: Uint8Array | undefined;
  reverse: boolean;
}
export abstract class StateStoreReads {
  /** The value at `version`, at once where the store can; may throw (a refused version). */
  protected abstract valueAt(
    store: string,
    key: Uint8Array,
    version: number,
  ): Uint8Array | undefined | Promise<Uint8Array | undefined>;

  /** Not `async`: a read the store answers with a promise of its own adds none. */
  get(store: string, key: Uint8Array, version: number): Promise<Uint8Array | undefined> {
    try {
      const v = this.valueAt(store, key, version);
      return v instanceof Promise ? v : Promise.resolve(v);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  async has(store: string, key: Uint8Array, version: number): Promise<boolean> {
    return (await this.get(store, key, version)) !== undefined;
  }

  /** Live entries of `store` in `range` at `version`; may throw at once (a refused version or store). */
  protected abstract entries(store: string, range: KeyRange, version: number): AsyncIterable<KVEntry>;

  iterator(
    store: string,
    start: Uint8Array | undefined,
    end: Uint8Array | undefined,
    version: number,
    reverse = false,
  ): AsyncIterable<KVEntry> {
    return this.entries(store, { start, end, reverse }, version);
  }
}
