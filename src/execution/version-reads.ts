/**
 * Reads of committed state versions, kept across requests. The bytes of (store, key) at a version
 * never change once the version is committed, whichever store answers (State Commit for the latest,
 * the State Store for any retained one), so a read made for one request (an eth_call, an
 * eth_getBalance at the same height) answers the next without another engine seek. Values are
 * shared: nothing may write into them.
 */
import { Lru } from '../util/lru.ts';

/** One character per key byte (a prefix of a key gives a prefix of its id); about half the cost of hex. */
export const readId = (store: string, key: Uint8Array): string =>
  `${store}\0${String.fromCharCode.apply(null, key as unknown as number[])}`;

/** The reads of one state version. */
export class VersionReadCache {
  readonly version: number;
  readonly entries = new Map<string, Uint8Array | undefined>();
  /**
   * Accounts as the native simulator reads them (balance, nonce, code hash packed; null: none), by
   * address id: derived from `entries`' keys of the same version, so as immutable; cleared with them.
   */
  readonly nativeAccounts = new Map<string, Uint8Array | null>();
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private bytes = 0;
  constructor(version: number, maxEntries = 100_000, maxBytes = 16 * 1024 * 1024) {
    this.version = version;
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
  }
  /**
   * Drops everything once full, by entries or by bytes (a value may be a 24 KB contract code): a
   * simple bound for a cache that mostly serves hot keys.
   */
  set(id: string, v: Uint8Array | undefined): void {
    // the key's characters (two bytes each), the value, and the Map's and array's own overhead
    const size = 2 * id.length + (v?.length ?? 0) + 96;
    if (this.entries.size >= this.maxEntries || this.bytes + size > this.maxBytes) {
      this.entries.clear();
      this.nativeAccounts.clear();
      this.bytes = 0;
    }
    this.entries.set(id, v);
    this.bytes += size;
  }
}

/** The caches of the few most recently read versions (latest, and a few historical ones). */
export class VersionReadCaches {
  private readonly caches: Lru<number, VersionReadCache>;
  constructor(maxVersions = 4) {
    this.caches = new Lru(maxVersions);
  }

  /**
   * Forgets the versions above `version`: a dev chain's revert rolled them back, and the versions
   * committed after it under the same numbers hold other bytes.
   */
  dropAbove(version: number): void {
    this.caches.deleteWhere((v) => v > version);
  }

  /** The cache of `version`, made the most recently used. */
  at(version: number): VersionReadCache {
    let c = this.caches.get(version);
    if (!c) {
      c = new VersionReadCache(version);
      this.caches.set(version, c);
    }
    return c;
  }
}
