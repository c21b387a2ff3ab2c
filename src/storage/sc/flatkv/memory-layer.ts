/**
 * flatkv's memory layer: the committed rows newer than the KV store, by evm key, and the versions
 * they belong to, until a background flush writes them to the KV store — repeated keys coalesced,
 * sorted, in chunks (lmdb applies a transaction on the calling thread, so a chunk bounds how long a
 * flush holds up the next block). The last chunk carries the undo records, roots, version and
 * lattices: it is what makes a flush count.
 */
import { sortByBytes } from '../../../primitives/bytes.ts';
import { BytesMap, hashBytes } from '../../../util/bytes-map.ts';
import type { Logger } from '../../../util/logger.ts';
import type { KVOp, KVStore } from '../../kv/types.ts';
import type { BlockLog } from './block-log.ts';
import { decodeAccount, encodeAccount, physicalKey, undoKey, type Table } from './layout.ts';
import type { LtHash } from './lthash.ts';
import { metaOps, rootKey } from './meta.ts';
import { encodeUndo } from './undo.ts';
import type { Pending } from './working-set.ts';

/** A committed version not yet recorded in the KV store. */
export interface VersionRecord {
  version: number;
  /** the block's writes (their `prev` is the undo record) */
  writes: Pending[];
  root: Uint8Array;
  lattices: Map<Table, LtHash>;
}

export interface MemoryLayerOptions {
  db: KVStore;
  /** Rows per KV transaction of a chunked flush. */
  flushChunk: number;
  undoWindow: number;
  /** The log whose segments a finished flush deletes (none: every commit is flushed at once). */
  blockLog: BlockLog | undefined;
  /** The store's oldest undoable version now: a flush records at least this. */
  oldest: () => number;
  logger: Logger;
}

export class MemoryLayer {
  private readonly opts: MemoryLayerOptions;
  private readonly getSync: (k: Uint8Array) => Uint8Array | undefined;
  /**
   * Committed values newer than the KV store, by evm key, not by physical row: a commit then
   * only links its pending writes in, and the account rows (nonce and code hash) are merged at flush.
   */
  private rows = new BytesMap<Pending>();
  private records: VersionRecord[] = [];
  /** Rows and versions of the flush in progress: readable until it has landed. */
  private flushingRows: BytesMap<Pending> | undefined;
  private flushingRecords: VersionRecord[] = [];
  private flushing: Promise<void> | undefined;
  /** The first flush failure; the log still holds every block, so the next open replays them. */
  failure: Error | undefined;
  /** Version and oldest version recorded in the KV store. */
  kvVersion: number;
  kvOldest: number;

  constructor(opts: MemoryLayerOptions, kvVersion: number, kvOldest: number) {
    this.opts = opts;
    this.getSync = opts.db.getSync!.bind(opts.db);
    this.kvVersion = kvVersion;
    this.kvOldest = kvOldest;
  }

  /** The key's committed entry (newest first), if it is newer than the KV store. */
  find(key: Uint8Array, h?: number): Pending | undefined {
    if (this.rows.size === 0 && !this.flushingRows) return undefined;
    h ??= hashBytes(key);
    return this.rows.get(key, h) ?? this.flushingRows?.get(key, h);
  }

  /** Versions committed and not yet taken by a flush. */
  get queued(): number {
    return this.records.length;
  }

  /** Rows committed and not yet taken by a flush. */
  get unflushedRows(): number {
    return this.rows.size;
  }

  /** Links a committed block's writes in. */
  add(version: number, writes: Iterable<Pending>, root: Uint8Array, lattices: Map<Table, LtHash>): void {
    const list: Pending[] = [];
    for (const p of writes) {
      this.rows.set(p.key, p, p.hash);
      list.push(p);
    }
    this.records.push({ version, writes: list, root, lattices });
  }

  /**
   * The rows `version` has over the KV store: the committed writes of the versions up to it still in
   * memory (being flushed or queued), the newest per key. Undefined when the KV store may already
   * hold a later version's rows (a flush reached past `version`, or is writing past it), so that the
   * KV store read now plus these rows is exactly `version`.
   */
  rowsAt(version: number): BytesMap<Pending> | undefined {
    if (this.kvVersion > version) return undefined;
    if (this.flushingRecords.some((r) => r.version > version)) return undefined;
    const out = new BytesMap<Pending>();
    for (const r of [...this.flushingRecords, ...this.records]) {
      if (r.version > version) break;
      for (const p of r.writes) out.set(p.key, p, p.hash);
    }
    return out;
  }

  /** Resolves once no flush is running (one could only start again with the next commit). */
  async idle(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /**
   * Forgets the committed versions above `version` when every one of them is still here and none is
   * being flushed (the KV store holds nothing above `version`): the rows are rebuilt from the
   * versions kept. Returns the lattices of `version` (undefined: the KV store's own, which is at
   * `version`), or false when the KV store may already hold a later version's rows.
   */
  dropAbove(version: number): { lattices: Map<Table, LtHash> | undefined } | false {
    if (this.flushing || this.kvVersion > version) return false;
    this.records = this.records.filter((r) => r.version <= version);
    this.rows = new BytesMap();
    for (const r of this.records) for (const p of r.writes) this.rows.set(p.key, p, p.hash);
    return { lattices: this.records.at(-1)?.lattices };
  }

  /** Root of a version still in memory. */
  rootOf(version: number): Uint8Array | undefined {
    return (
      this.records.find((r) => r.version === version)?.root ??
      this.flushingRecords.find((r) => r.version === version)?.root
    );
  }

  /**
   * Starts a background flush once `interval` versions are queued; with 4 × `interval` queued and a
   * flush still running, first waits for it: a flush that cannot keep up must not let the memory
   * layer grow without bound.
   */
  async flushEvery(interval: number): Promise<void> {
    if (this.records.length < interval) return;
    if (this.flushing && this.records.length >= 4 * interval) await this.flushing;
    this.startFlush(true);
  }

  /** Writes every committed row and version record to the KV store and waits for it. */
  async flushAll(chunked = true): Promise<void> {
    while (this.flushing || this.records.length > 0) {
      if (this.flushing) await this.flushing;
      else this.startFlush(chunked);
      if (this.failure) throw this.failure;
    }
  }

  /**
   * KV ops writing these values over the KV store's rows, in key order; an account row merges the
   * nonce and code hash written here with the field the KV row holds.
   */
  rowOps(values: Iterable<Pending>): KVOp[] {
    const ops: KVOp[] = [];
    const accounts = new BytesMap<Pending[]>();
    for (const p of values) {
      const key = physicalKey(p.key, p.loc);
      if (p.loc.field !== undefined) {
        const list = accounts.get(key);
        if (list) list.push(p);
        else accounts.set(key, [p]);
      } else ops.push(p.value === undefined ? { type: 'del', key } : { type: 'put', key, value: p.value });
    }
    for (const [key, ps] of accounts) {
      const cur = decodeAccount(this.getSync(key));
      for (const p of ps) cur[p.loc.field!] = p.value;
      const row = encodeAccount(cur);
      ops.push(row ? { type: 'put', key, value: row } : { type: 'del', key });
    }
    // sorted, so that each chunk of a flush touches one region of the B-tree and its pages once
    return sortByBytes(ops, (op) => op.key);
  }

  /** Starts a background flush of everything committed so far (unless one is running). */
  private startFlush(chunked: boolean): void {
    if (this.flushing || this.records.length === 0) return;
    this.flushing = this.flush(chunked)
      .catch((err: Error) => {
        this.failure ??= err;
        this.opts.logger.error({ err }, 'flatkv flush failed');
      })
      .finally(() => {
        this.flushing = undefined;
      });
  }

  private async flush(chunked: boolean): Promise<void> {
    const { db, blockLog, flushChunk, undoWindow } = this.opts;
    const rows = this.rows;
    const records = this.records;
    this.rows = new BytesMap();
    this.records = [];
    this.flushingRows = rows;
    this.flushingRecords = records;
    const to = records[records.length - 1];
    // later blocks go to a new segment, so that this flush can delete the old ones whole (queued:
    // appends of earlier blocks may still be in flight)
    blockLog?.roll(to.version + 1);
    try {
      let ops = this.rowOps(rows.values());
      if (chunked) {
        while (ops.length > flushChunk) {
          await db.write(ops.slice(0, flushChunk));
          ops = ops.slice(flushChunk);
        }
      }
      // the last transaction makes the flush count: undo records, roots, version and lattices
      for (const r of records) {
        ops.push({ type: 'put', key: undoKey(r.version), value: encodeUndo(r.version, r.writes) });
        ops.push({ type: 'put', key: rootKey(r.version), value: r.root });
      }
      const oldest = Math.max(this.kvOldest, this.opts.oldest(), to.version - undoWindow);
      for (let v = this.kvOldest; v < oldest; v++) {
        ops.push({ type: 'del', key: rootKey(v) });
        ops.push({ type: 'del', key: undoKey(v + 1) });
      }
      ops.push(...metaOps(to.version, oldest, to.lattices));
      await db.write(ops);
      this.kvVersion = to.version;
      this.kvOldest = oldest;
    } catch (err) {
      // keep the rows readable and the records queued: nothing of this flush is known to have landed
      for (const [k, r] of this.rows) rows.set(k, r);
      this.rows = rows;
      this.records = [...records, ...this.records];
      throw err;
    } finally {
      this.flushingRows = undefined;
      this.flushingRecords = [];
    }
    blockLog?.truncateBefore(to.version + 1);
  }
}
