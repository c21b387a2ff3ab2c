import type { KVOp } from '../kv/types.ts';
import { isTombstone, regionEnd, regionOf, versionedKey, versionOf } from './encoding.ts';
import { firstEntry, type MvccDatabase } from './mvcc.ts';

/** Entries read per seek while scanning one key's old versions. */
export const PRUNE_BATCH = 500;
/**
 * Delete batches adapt their size so that one batch holds the engine's writer for about
 * TARGET_BATCH_MS: a block's change set queued behind a prune batch waits at most that long.
 */
const TARGET_BATCH_MS = 10;
const MIN_DELETES = 50;
const MAX_DELETES = 5_000;
/**
 * Longest stretch of scanning without an event-loop turn. With lmdb the seeks are synchronous, and
 * lmdb-js runs a write transaction's callback on this thread: a scan that never yields would hold up
 * every block write queued behind it.
 */
const MAX_SCAN_SLICE_MS = 4;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const DATA_START = Uint8Array.of(0x73); // 's': every data key, never the metadata
const DATA_END = Uint8Array.of(0x74);

export interface PruneStats {
  deleted: number;
  batches: number;
  /** Longest time one delete batch took to write, in ms: the worst stall pruning caused. */
  worstBatchMs: number;
}

/**
 * Deletes every entry that no read at a version ≥ `height` can see: for each key, everything older
 * than its newest entry at or below `height`, and that entry too when it is a tombstone (the key is
 * then absent at every readable version either way). Entries above `height` are never touched, so
 * pruning commutes with concurrent writes of new versions.
 *
 * The caller raises `earliest` to `height` before calling this, so reads never observe a half-pruned
 * key. Work is done in delete batches sized to ~TARGET_BATCH_MS with an event-loop turn between them, and
 * `shouldStop` is polled so that close() need not wait for a long prune.
 */
export async function pruneBelow(
  db: MvccDatabase,
  height: number,
  shouldStop: () => boolean = () => false,
): Promise<PruneStats> {
  const stats: PruneStats = { deleted: 0, batches: 0, worstBatchMs: 0 };
  let ops: KVOp[] = [];
  let batchSize = PRUNE_BATCH;
  const flushOps = async () => {
    if (ops.length === 0) return;
    const started = performance.now();
    await db.kv.write(ops);
    const ms = performance.now() - started;
    stats.worstBatchMs = Math.max(stats.worstBatchMs, ms);
    if (ms > TARGET_BATCH_MS * 2) batchSize = Math.max(MIN_DELETES, batchSize >> 1);
    else if (ms < TARGET_BATCH_MS / 2) batchSize = Math.min(MAX_DELETES, batchSize * 2);
    stats.deleted += ops.length;
    stats.batches++;
    ops = [];
    await nextTurn();
    sliceStart = performance.now();
  };
  let sliceStart = performance.now();

  let cursor: Uint8Array = DATA_START;
  while (!shouldStop()) {
    if (performance.now() - sliceStart > MAX_SCAN_SLICE_MS) {
      await nextTurn();
      sliceStart = performance.now();
    }
    const next = await firstEntry(db.kv, { gte: cursor, lt: DATA_END, limit: 1 });
    if (!next) break;
    const region = regionOf(next[0]);
    const end = regionEnd(region);
    cursor = end;
    // The key's entries at or below the height, newest first; the first one is the keeper.
    let from = versionOf(next[0]) <= height ? next[0] : versionedKey(region, height);
    let keeperSeen = false;
    for (;;) {
      let seen = 0;
      let last: Uint8Array | undefined;
      const chunk = db.kv.iterateSync
        ? db.kv.iterateSync({ gte: from, lt: end, limit: PRUNE_BATCH })
        : db.kv.iterate({ gte: from, lt: end, limit: PRUNE_BATCH });
      for await (const [key, stored] of chunk) {
        seen++;
        last = key;
        if (!keeperSeen) {
          keeperSeen = true;
          if (!isTombstone(stored)) continue;
        }
        ops.push({ type: 'del', key });
      }
      if (ops.length >= batchSize) await flushOps();
      if (seen < PRUNE_BATCH || !last) break;
      from = versionedKey(region, versionOf(last) - 1); // continue below the last entry seen
      if (versionOf(last) === 0) break;
    }
  }
  await flushOps();
  return stats;
}
