import type { KVEntry, KVOp } from '../kv/types.ts';
import { dataKey, encodeValue } from './encoding.ts';
import type { MvccDatabase } from './mvcc.ts';
import { pruneBelow, type PruneStats } from './prune.ts';
import type { ImportEntry, StoreChange } from './types.ts';

const IMPORT_BATCH = 10_000;

/**
 * One logical State Store over one or more MVCC databases: the Cosmos SS is one database, the EVM
 * SS one or five (routed by EVM key prefix). Every database records every version, even when the
 * block wrote nothing to it, so that "latest = min, earliest = max" of the databases is exact.
 */
export class MvccGroup {
  readonly name: string;
  readonly databases: readonly MvccDatabase[];
  private readonly route: (store: string, key: Uint8Array) => number;

  constructor(name: string, databases: MvccDatabase[], route: (store: string, key: Uint8Array) => number) {
    this.name = name;
    this.databases = databases;
    this.route = route;
  }

  get latest(): number {
    let v = Infinity;
    for (const db of this.databases) v = Math.min(v, db.latest);
    return v;
  }

  get earliest(): number {
    let v = 0;
    for (const db of this.databases) v = Math.max(v, db.earliest);
    return v;
  }

  /** True when some database holds no version at all. */
  get anyEmpty(): boolean {
    return this.databases.some((db) => db.latest === 0);
  }

  get pruneTarget(): number {
    let v = 0;
    for (const db of this.databases) v = Math.max(v, db.pruneTarget);
    return v;
  }

  read(store: string, key: Uint8Array, version: number): Promise<Uint8Array | undefined> {
    if (version < this.earliest) return Promise.resolve(undefined);
    return this.databases[this.route(store, key)].read(store, key, version);
  }

  get syncReads(): boolean {
    return this.databases.every((db) => db.syncReads);
  }

  /** `read` without a promise; only when `syncReads` (the caller checks `earliest`). */
  readSync(store: string, key: Uint8Array, version: number): Uint8Array | undefined {
    return this.databases[this.route(store, key)].readSync(store, key, version);
  }

  iterate(
    store: string,
    start: Uint8Array | undefined,
    end: Uint8Array | undefined,
    version: number,
    reverse: boolean,
  ): AsyncGenerator<KVEntry> {
    if (this.databases.length !== 1) throw new Error(`${this.name} cannot iterate across databases`);
    return this.databases[0].iterate(store, start, end, version, reverse);
  }

  /**
   * Writes one version to every database that has not recorded it yet, in database order. Replays
   * after a crash therefore skip what a database already has and fill in what it lacks.
   */
  apply(version: number, changes: readonly StoreChange[]): Promise<void> {
    return this.applyMany([{ version, changes }]);
  }

  /** Like `apply` for consecutive versions, each database taking them in one transaction. */
  async applyMany(batch: readonly { version: number; changes: readonly StoreChange[] }[]): Promise<void> {
    const perDb = this.databases.map(() => [] as { version: number; changes: StoreChange[] }[]);
    for (const { version, changes } of batch) {
      const parts = this.partition(changes);
      for (let i = 0; i < this.databases.length; i++) {
        if (this.databases[i].latest < version) perDb[i].push({ version, changes: parts[i] });
      }
    }
    for (let i = 0; i < this.databases.length; i++) {
      if (perDb[i].length) await this.databases[i].applyVersions(perDb[i]);
    }
  }

  /** Raises earliest (recording the prune as in progress) on every database, before any delete. */
  async beginPrune(height: number): Promise<void> {
    for (const db of this.databases) await db.setPruneState(height, height);
  }

  async deleteBelow(height: number, shouldStop: () => boolean): Promise<PruneStats> {
    const total: PruneStats = { deleted: 0, batches: 0, worstBatchMs: 0 };
    for (const db of this.databases) {
      const s = await pruneBelow(db, height, shouldStop);
      total.deleted += s.deleted;
      total.batches += s.batches;
      total.worstBatchMs = Math.max(total.worstBatchMs, s.worstBatchMs);
    }
    return total;
  }

  async endPrune(height: number): Promise<void> {
    for (const db of this.databases) await db.setPruneState(height, 0);
  }

  /** Routes snapshot entries to their databases in bounded batches (metadata is written by finishImport). */
  importWriter(version: number): { add(e: ImportEntry): Promise<void>; done(): Promise<void> } {
    const pending: KVOp[][] = this.databases.map(() => []);
    const write = async (i: number) => {
      const ops = pending[i];
      pending[i] = [];
      if (ops.length) await this.databases[i].kv.write(ops);
    };
    return {
      add: async (e) => {
        const i = this.route(e.store, e.key);
        const db = this.databases[i];
        pending[i].push({
          type: 'put',
          key: dataKey(db.prefix(e.store), e.key, version),
          value: encodeValue(e.value),
        });
        if (pending[i].length >= IMPORT_BATCH) await write(i);
      },
      done: async () => {
        for (let i = 0; i < this.databases.length; i++) await write(i);
      },
    };
  }

  /** See MvccDatabase.keepRecentWrites (each database keeps up to `maxKeys`). */
  keepRecentWrites(maxKeys: number): void {
    for (const db of this.databases) db.keepRecentWrites(maxKeys);
  }

  /** Rolls every database back to `target`; returns the entries removed. */
  async rollback(target: number): Promise<number> {
    let removed = 0;
    for (const db of this.databases) removed += await db.rollback(target);
    return removed;
  }

  async finishImport(version: number): Promise<void> {
    for (const db of this.databases) await db.finishImport(version);
  }

  async close(): Promise<void> {
    const results = await Promise.allSettled(this.databases.map((db) => db.close()));
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }

  private partition(changes: readonly StoreChange[]): StoreChange[][] {
    if (this.databases.length === 1) return [changes as StoreChange[]];
    const parts: StoreChange[][] = this.databases.map(() => []);
    for (const c of changes) parts[this.route(c.store, c.key)].push(c);
    return parts;
  }
}
