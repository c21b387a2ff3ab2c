import { open, type Database, type RangeOptions, type Transaction } from 'lmdb';
import { outOfDiskOr } from '../../util/out-of-disk.ts';
import { KVClosedError } from './errors.ts';
import { asBytes, assertValidOps } from './ops.ts';
import type { KVEntry, KVOp, KVOpenOptions, KVRange, KVReader, KVSnapshot, KVStore } from './types.ts';

/**
 * The default engine: one LMDB environment per directory (`data.mdb` + `lock.mdb`), raw binary keys
 * and values, so LMDB's memcmp key order is the order the interface promises.
 *
 * Durability: each `write` is atomic (one LMDB transaction). With `sync` (the default) it is an
 * lmdb-js batch, committed and flushed to disk on lmdb-js's write thread before the promise
 * resolves; with `sync: false` (`noSync`) it is a synchronous transaction on the calling thread and
 * the OS decides when to flush, which survives a process crash but not a power loss: for benchmarks,
 * tests and throwaway homes only.
 */
export async function openLmdbStore(path: string, options: KVOpenOptions = {}): Promise<KVStore> {
  const db = open<Uint8Array, Uint8Array>({
    path,
    keyEncoding: 'binary',
    encoding: 'binary',
    noSync: options.sync === false,
    // Reads after a write must see it at once; lmdb-js otherwise caches the read txn per event turn.
    cache: false,
  });
  return new LmdbStore(db, path, options.sync === false);
}

type LmdbDb = Database<Uint8Array, Uint8Array>;

/**
 * lmdb-js's getBinaryFast answers with its whole reusable buffer and an own `length` property set to
 * the value's size: methods that use the real length (slice, set, subarray without an end) would
 * see all of it, so callers get an exact view (valid until the next read).
 */
function exactView(shared: Uint8Array | undefined): Uint8Array | undefined {
  return shared === undefined ? undefined : new Uint8Array(shared.buffer, shared.byteOffset, shared.length);
}

/**
 * A plain Uint8Array copy of a getBinaryFast answer: one allocation, where getBinary's Buffer copy
 * plus a Uint8Array view of it are two (~0.5 us of a ~2 us read).
 */
function copyOut(shared: Uint8Array | undefined): Uint8Array | undefined {
  if (shared === undefined) return undefined;
  const n = shared.length; // lmdb-js's own length property: the value's size
  const out = new Uint8Array(n);
  if (n <= 64) for (let i = 0; i < n; i++) out[i] = shared[i];
  else out.set(new Uint8Array(shared.buffer, shared.byteOffset, n));
  return out;
}
const EMPTY = new Uint8Array(0);
/** How long the close of a store whose write failed waits for lmdb-js (see close). */
const FAILED_CLOSE_WAIT_MS = 1_000;

class LmdbStore implements KVStore {
  readonly engine = 'lmdb';
  private closed = false;
  private readonly db: LmdbDb;
  private readonly path: string;
  private readonly noSync: boolean;
  /**
   * A write that failed (a full disk, most often): every later write fails with it, untried. After a
   * failed commit lmdb-js fails the next batch with a rejection nobody can catch, which would end the
   * process; the store is whole again once reopened.
   */
  private failed: unknown;

  constructor(db: LmdbDb, path: string, noSync = false) {
    this.db = db;
    this.path = path;
    this.noSync = noSync;
  }

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    return this.getSync(key);
  }

  getSync(key: Uint8Array): Uint8Array | undefined {
    this.assertOpen();
    return copyOut(this.db.getBinaryFast(key));
  }

  getSyncView(key: Uint8Array): Uint8Array | undefined {
    this.assertOpen();
    return exactView(this.db.getBinaryFast(key));
  }

  async has(key: Uint8Array): Promise<boolean> {
    return this.getSync(key) !== undefined;
  }

  iterate(range: KVRange = {}): AsyncIterable<KVEntry> {
    return toAsync(this.iterateSync(range));
  }

  iterateSync(range: KVRange = {}): Iterable<KVEntry> {
    this.assertOpen();
    return rangeOf(this.db, range, undefined);
  }

  async write(ops: KVOp[]): Promise<void> {
    this.assertOpen();
    assertValidOps(ops);
    if (ops.length === 0) return;
    if (this.failed) throw this.failed;
    const db = this.db;
    const apply = () => {
      for (const op of ops) {
        if (op.type === 'put') db.put(op.key, op.value);
        else db.remove(op.key);
      }
    };
    if (this.noSync) {
      // Without fsync the write is only LMDB's own page updates, tens of µs for a block: done here it
      // costs less than the hand-over to lmdb-js's write thread and the wait for its answer, which
      // held every block's commit back (a one-transfer dev block's store write: ~580 -> ~180 µs).
      try {
        db.transactionSync(apply);
      } catch (err) {
        throw (this.failed = outOfDiskOr(err, this.path));
      }
      return;
    }
    // One atomic block of the write queue, encoded now: a transaction() callback instead waits for
    // lmdb-js's write thread to call back into this thread before its ops are even encoded (~70 us
    // more per write here, and later still when this thread is busy).
    try {
      await db.batch(apply);
    } catch (err) {
      dropLmdbCommitFailures();
      throw (this.failed = outOfDiskOr(await commitCause(err), this.path));
    }
  }

  snapshot(): KVSnapshot {
    this.assertOpen();
    const db = this.db;
    // lmdb-js reuses one read transaction until a timer resets it, so a snapshot taken before this
    // thread's event loop turns would miss commits made meanwhile by another thread or process
    // (flatkv's hash workers read previous values right after the committing thread's flush)
    db.resetReadTxn();
    const txn = db.useReadTransaction();
    let released = false;
    const check = () => {
      if (released) throw new KVClosedError('lmdb snapshot', this.path);
    };
    // lmdb-js accepts read options at run time; its typings omit the parameter.
    const getBinaryFastIn = db.getBinaryFast.bind(db) as (
      k: Uint8Array,
      o: { transaction: Transaction },
    ) => Uint8Array | undefined;
    const getSync = (key: Uint8Array) => {
      check();
      return copyOut(getBinaryFastIn(key, { transaction: txn }));
    };
    const reader: KVReader & { iterateSync(range?: KVRange): Iterable<KVEntry> } = {
      get: async (key) => getSync(key),
      getSync,
      getSyncView: (key) => {
        check();
        return exactView(getBinaryFastIn(key, { transaction: txn }));
      },
      has: async (key) => getSync(key) !== undefined,
      iterateSync: (range = {}) => {
        check();
        return rangeOf(db, range, txn);
      },
      iterate: (range = {}) => toAsync(reader.iterateSync(range)),
    };
    return {
      ...reader,
      release: () => {
        if (released) return;
        released = true;
        txn.done();
      },
    };
  }

  renewReads(): void {
    this.assertOpen();
    this.db.resetReadTxn();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (!this.failed) return this.db.close();
    // after a failed commit lmdb-js's close waits for a flush that never ends: the environment is
    // left to the process's exit instead of holding the node's stop
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.db.close().catch(() => undefined),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, FAILED_CLOSE_WAIT_MS))),
    ]);
    clearTimeout(timer);
  }

  private assertOpen(): void {
    if (this.closed) throw new KVClosedError(this.engine, this.path);
  }
}

/**
 * After a failed commit lmdb-js also rejects a promise of its own that nobody holds (with the same
 * "Commit failed" error), which would end the process as an unhandled rejection. Once a store of
 * this process has failed a write (and reported it to its caller), those rejections are dropped;
 * any other unhandled rejection still ends the process, as it would without this listener.
 */
let failedCommits = false;
function dropLmdbCommitFailures(): void {
  if (failedCommits) return;
  failedCommits = true;
  process.on('unhandledRejection', (reason) => {
    const commitError = (reason as { commitError?: unknown } | undefined)?.commitError;
    if (reason instanceof Error && commitError instanceof Promise && /^Commit failed/.test(reason.message)) {
      commitError.catch(() => undefined);
      return;
    }
    throw reason;
  });
}

/**
 * lmdb-js rejects a failed batch with "Commit failed" and the cause in `commitError`, a promise that
 * rejects with the engine's error (errno 28 when the disk is full) once its write thread reports it,
 * and that nobody else awaits: awaited here (bounded, in case it never settles), so that the cause
 * is known and its rejection is never unhandled.
 */
async function commitCause(err: unknown): Promise<unknown> {
  const pending = (err as { commitError?: Promise<unknown> } | undefined)?.commitError;
  if (!(pending instanceof Promise)) return err;
  let timer: NodeJS.Timeout | undefined;
  const cause = await Promise.race([
    pending.then(
      () => err,
      (cause: unknown) => cause,
    ),
    new Promise<unknown>((resolve) => (timer = setTimeout(() => resolve(err), 1_000))),
  ]);
  clearTimeout(timer);
  return cause;
}

/**
 * lmdb-js ranges run from `start` (inclusive) to `end` (exclusive) in the direction of travel, so a
 * reverse range [gte, lt) starts at `lt` exclusively and ends at `gte` inclusively.
 */
function* rangeOf(db: LmdbDb, range: KVRange, transaction: Transaction | undefined): Generator<KVEntry> {
  const options: RangeOptions = range.reverse
    ? {
        start: range.lt,
        end: range.gte,
        reverse: true,
        exclusiveStart: range.lt !== undefined,
        inclusiveEnd: true,
      }
    : { start: range.gte, end: range.lt };
  if (range.limit !== undefined) options.limit = range.limit;
  if (transaction) options.transaction = transaction;
  // A point seek (limit 1) needs no long-lived snapshot; skipping it saves a read-txn renewal per call.
  else if (range.limit === 1) options.snapshot = false;
  if (range.limit === 0) return;
  for (const { key, value } of db.getRange(options)) {
    // lmdb-js reports a zero-length value as `undefined` in ranges.
    const v = value as Uint8Array | undefined;
    yield [asBytes(key as Uint8Array), v === undefined ? EMPTY : asBytes(v)];
  }
}

async function* toAsync<T>(it: Iterable<T>): AsyncIterable<T> {
  yield* it;
}
