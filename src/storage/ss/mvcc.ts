import { join } from 'node:path';
import { acquireDirLock, type DirLock } from '../../util/dir-lock.ts';
import type { KVEntry, KVOp, KVOpener, KVOpenOptions, KVRange, KVReader, KVStore } from '../kv/types.ts';
import {
  DATA_RANGE,
  dataKey,
  decodeU64,
  decodeValue,
  encodeU64,
  encodeValue,
  keyRegion,
  logicalKeyOf,
  metaKey,
  pointSeek,
  regionEnd,
  regionOf,
  storeEnd,
  storePrefix,
  versionedKey,
  versionOf,
} from './encoding.ts';
import { SSRollbackRangeError } from './errors.ts';
import type { StoreChange } from './types.ts';

const LATEST = metaKey('latest');
const EARLIEST = metaKey('earliest');
const PRUNE_TARGET = metaKey('prune-target');
/** Deletions per engine transaction during a rollback. */
const ROLLBACK_BATCH = 10_000;

/**
 * One MVCC database: a KV engine in `<dir>/db/`, locked by `<dir>/LOCK` for as long as it is open.
 * It knows the encoding and its metadata; ordering of versions across databases, the changelog and
 * the latest-version guard on reads belong to the store that owns it.
 */
export class MvccDatabase {
  readonly dir: string;
  readonly kv: KVStore;
  /** Absent: opened for reading from another thread of the process that holds it (openReader). */
  private readonly lock: DirLock | undefined;
  private readonly prefixes = new Map<string, Uint8Array>();
  private latestV: number;
  private earliestV: number;
  private pruneTargetV: number;
  /**
   * The entry keys each recent version wrote, oldest first (keepRecentWrites): a rollback within
   * them deletes exactly those entries instead of scanning every entry of the database.
   */
  private recent: Map<number, Uint8Array[]> | undefined;
  private recentKeys = 0;
  private maxRecentKeys = 0;

  private constructor(
    dir: string,
    kv: KVStore,
    lock: DirLock | undefined,
    latest: number,
    earliest: number,
    target: number,
  ) {
    this.dir = dir;
    this.kv = kv;
    this.lock = lock;
    this.latestV = latest;
    this.earliestV = earliest;
    this.pruneTargetV = target;
  }

  static async open(dir: string, openEngine: KVOpener, options: KVOpenOptions = {}): Promise<MvccDatabase> {
    const lock = acquireDirLock(dir);
    let kv: KVStore | undefined;
    try {
      kv = await openEngine(join(dir, 'db'), options);
      const [latest, earliest, target] = await Promise.all([
        kv.get(LATEST),
        kv.get(EARLIEST),
        kv.get(PRUNE_TARGET),
      ]);
      return new MvccDatabase(dir, kv, lock, decodeU64(latest), decodeU64(earliest), decodeU64(target));
    } catch (err) {
      await kv?.close().catch(() => {});
      lock.release();
      throw err;
    }
  }

  /**
   * The database in `dir` for reading only, from another thread of the process that has it open
   * (an RPC reader thread): no lock (the process holds it); `reload` follows the writer's commits.
   */
  static async openReader(dir: string, openEngine: KVOpener): Promise<MvccDatabase> {
    const kv = await openEngine(join(dir, 'db'));
    const db = new MvccDatabase(dir, kv, undefined, 0, 0, 0);
    try {
      db.reload();
    } catch (err) {
      await kv.close().catch(() => {});
      throw err;
    }
    return db;
  }

  /**
   * A reader reads the watermarks again, from the view its reads have now. `renew`: that view first
   * moves to everything committed until now (lmdb moves it by itself once per turn of the event loop).
   */
  reload(renew = false): void {
    const kv = this.kv;
    if (!kv.getSync) throw new TypeError(`an MVCC reader needs synchronous reads, ${kv.engine} has none`);
    if (renew) kv.renewReads?.();
    this.latestV = decodeU64(kv.getSync(LATEST));
    this.earliestV = decodeU64(kv.getSync(EARLIEST));
    this.pruneTargetV = decodeU64(kv.getSync(PRUNE_TARGET));
  }

  /** Newest version written (0 = none). */
  get latest(): number {
    return this.latestV;
  }

  /** Oldest version readable (0 = none). */
  get earliest(): number {
    return this.earliestV;
  }

  /** Height of a prune that raised `earliest` and may not have finished deleting (0 = none). */
  get pruneTarget(): number {
    return this.pruneTargetV;
  }

  prefix(store: string): Uint8Array {
    let p = this.prefixes.get(store);
    if (!p) {
      p = storePrefix(store);
      this.prefixes.set(store, p);
    }
    return p;
  }

  /** The value of (store, key) at `version`: one seek to the newest entry at or below it. */
  read(
    store: string,
    key: Uint8Array,
    version: number,
    reader: KVReader = this.kv,
  ): Promise<Uint8Array | undefined> {
    const { gte, lt } = pointSeek(this.prefix(store), key, version);
    const range = { gte, lt, limit: 1 };
    if (reader.iterateSync) {
      for (const [, stored] of reader.iterateSync(range))
        return Promise.resolve(decodeValue(stored) ?? undefined);
      return Promise.resolve(undefined);
    }
    return firstEntry(reader, range).then((e) => (e ? (decodeValue(e[1]) ?? undefined) : undefined));
  }

  /** Whether `readSync` works: the engine reads from memory or a memory map (lmdb, memory). */
  get syncReads(): boolean {
    return this.kv.iterateSync !== undefined;
  }

  /** `read` without a promise, for engines with synchronous iteration (see `syncReads`). */
  readSync(store: string, key: Uint8Array, version: number): Uint8Array | undefined {
    const { gte, lt } = pointSeek(this.prefix(store), key, version);
    for (const [, stored] of this.kv.iterateSync!({ gte, lt, limit: 1 }))
      return decodeValue(stored) ?? undefined;
    return undefined;
  }

  /**
   * Live keys of `store` in [start, end) at `version`, on a snapshot so that concurrent pruning and
   * writes cannot tear the view. Each logical key costs one seek (two if its newest entry is above
   * `version`), however many versions it has.
   */
  async *iterate(
    store: string,
    start: Uint8Array | undefined,
    end: Uint8Array | undefined,
    version: number,
    reverse: boolean,
  ): AsyncGenerator<KVEntry> {
    const prefix = this.prefix(store);
    const low = start ? keyRegion(prefix, start) : prefix;
    const high = end ? keyRegion(prefix, end) : storeEnd(prefix);
    const snap = this.kv.snapshot();
    try {
      let cursor = reverse ? high : low;
      for (;;) {
        const range: KVRange = reverse
          ? { gte: low, lt: cursor, reverse, limit: 1 }
          : { gte: cursor, lt: high, limit: 1 };
        const found = await firstEntry(snap, range);
        if (!found) return;
        const region = regionOf(found[0]);
        let stored: Uint8Array | null | undefined;
        if (!reverse && versionOf(found[0]) <= version) stored = decodeValue(found[1]);
        else {
          const at = await firstEntry(snap, {
            gte: versionedKey(region, version),
            lt: regionEnd(region),
            limit: 1,
          });
          stored = at ? decodeValue(at[1]) : null;
        }
        if (stored) yield [logicalKeyOf(found[0], prefix.length), stored];
        // Forward: skip the key's remaining versions. Reverse: everything of this key is at or above
        // region ‖ 0x00, and every smaller key below it.
        cursor = reverse ? versionedKeyFloor(region) : regionEnd(region);
      }
    } finally {
      snap.release();
    }
  }

  /** Writes one version's changes and the new `latest` (and the first `earliest`) in one batch. */
  applyVersion(version: number, changes: readonly StoreChange[]): Promise<void> {
    return this.applyVersions([{ version, changes }]);
  }

  /**
   * Writes several consecutive versions (ascending) in one engine transaction with `latest` = the
   * last of them: the background writer's group commit, one fsync for a whole backlog. All of the
   * versions land or none do.
   */
  async applyVersions(batch: readonly { version: number; changes: readonly StoreChange[] }[]): Promise<void> {
    const ops: KVOp[] = [];
    let last = 0;
    const written: [number, Uint8Array[]][] | undefined = this.recent && [];
    for (const { version, changes } of batch) {
      const keys: Uint8Array[] | undefined = written && [];
      for (let i = 0; i < changes.length; i++) {
        const c = changes[i];
        const key = dataKey(this.prefix(c.store), c.key, version);
        ops.push({ type: 'put', key, value: encodeValue(c.value) });
        keys?.push(key);
      }
      if (keys) written!.push([version, keys]);
      last = version;
    }
    if (batch.length === 0) return;
    ops.push({ type: 'put', key: LATEST, value: encodeU64(last) });
    const first = this.latestV === 0 && this.earliestV === 0;
    const firstVersion = batch[0].version;
    if (first) ops.push({ type: 'put', key: EARLIEST, value: encodeU64(firstVersion) });
    await this.kv.write(ops);
    this.latestV = last;
    if (first) this.earliestV = firstVersion;
    if (written) for (const [version, keys] of written) this.remember(version, keys);
  }

  /**
   * From now on, remembers the entry keys of the versions written, up to `maxKeys` keys over the
   * newest versions (a dev chain, whose evm_revert rolls back a few recent blocks again and again).
   */
  keepRecentWrites(maxKeys: number): void {
    this.recent ??= new Map();
    this.maxRecentKeys = maxKeys;
  }

  private remember(version: number, keys: Uint8Array[]): void {
    const recent = this.recent!;
    recent.set(version, keys);
    this.recentKeys += keys.length;
    for (const [v, old] of recent) {
      if (this.recentKeys <= this.maxRecentKeys || v === version) break;
      recent.delete(v);
      this.recentKeys -= old.length;
    }
  }

  /** The entry keys written above `target`, when every version above it is remembered. */
  private writtenAbove(target: number): Uint8Array[] | undefined {
    const recent = this.recent;
    if (!recent) return undefined;
    const keys: Uint8Array[] = [];
    for (let v = target + 1; v <= this.latestV; v++) {
      const written = recent.get(v);
      if (!written) return undefined;
      for (const k of written) keys.push(k);
    }
    return keys;
  }

  private forgetAbove(target: number): void {
    if (!this.recent) return;
    for (const [v, keys] of [...this.recent]) {
      if (v <= target) continue;
      this.recent.delete(v);
      this.recentKeys -= keys.length;
    }
  }

  /** Raises `earliest` (never lowers it) and records or clears the prune in progress, atomically. */
  async setPruneState(earliest: number, pruneTarget: number): Promise<void> {
    const next = Math.max(this.earliestV, earliest);
    const ops: KVOp[] = [{ type: 'put', key: EARLIEST, value: encodeU64(next) }];
    ops.push(
      pruneTarget > 0
        ? { type: 'put', key: PRUNE_TARGET, value: encodeU64(pruneTarget) }
        : { type: 'del', key: PRUNE_TARGET },
    );
    await this.kv.write(ops);
    this.earliestV = next;
    this.pruneTargetV = pruneTarget;
  }

  /**
   * Completes an import: latest = earliest = `version`. Data batches are written before this
   * metadata, so a crash mid-import leaves a database that holds no version (startup check b).
   */
  async finishImport(version: number, ops: KVOp[] = []): Promise<void> {
    ops.push(
      { type: 'put', key: LATEST, value: encodeU64(version) },
      { type: 'put', key: EARLIEST, value: encodeU64(version) },
      { type: 'del', key: PRUNE_TARGET },
    );
    await this.kv.write(ops);
    this.latestV = version;
    this.earliestV = version;
    this.pruneTargetV = 0;
  }

  /**
   * Discards every version above `target` (an operator rollback, node stopped). Versions are spread
   * over every key, so this is a full scan; deletions go in bounded batches and `latest` is written
   * last, so an interrupted rollback leaves the database readable and is simply run again.
   */
  async rollback(target: number): Promise<number> {
    if (target >= this.latestV) return 0;
    if (target < this.earliestV) throw new SSRollbackRangeError(target, this.earliestV, this.latestV);
    const known = this.writtenAbove(target);
    if (known) {
      // every entry above `target` is known: one atomic write removes them with `latest`
      const ops: KVOp[] = known.map((key) => ({ type: 'del', key }));
      ops.push({ type: 'put', key: LATEST, value: encodeU64(target) });
      await this.kv.write(ops);
      this.latestV = target;
      this.forgetAbove(target);
      return known.length;
    }
    this.forgetAbove(target);
    let removed = 0;
    let batch: KVOp[] = [];
    for await (const [key] of this.kv.iterate(DATA_RANGE)) {
      if (versionOf(key) <= target) continue;
      batch.push({ type: 'del', key });
      if (batch.length >= ROLLBACK_BATCH) {
        await this.kv.write(batch);
        removed += batch.length;
        batch = [];
      }
    }
    removed += batch.length;
    batch.push({ type: 'put', key: LATEST, value: encodeU64(target) });
    await this.kv.write(batch);
    this.latestV = target;
    return removed;
  }

  async close(): Promise<void> {
    try {
      await this.kv.close();
    } finally {
      this.lock?.release();
    }
  }
}

/** region ‖ 0x00: the lowest possible entry of a key (the exclusive bound below it in reverse). */
function versionedKeyFloor(region: Uint8Array): Uint8Array {
  const out = new Uint8Array(region.length + 1);
  out.set(region, 0);
  return out;
}

export async function firstEntry(reader: KVReader, range: KVRange): Promise<KVEntry | undefined> {
  if (reader.iterateSync) {
    for (const e of reader.iterateSync(range)) return e;
    return undefined;
  }
  for await (const e of reader.iterate(range)) return e;
  return undefined;
}
