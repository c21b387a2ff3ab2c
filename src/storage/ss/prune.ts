import type { KVOp } from '../kv/types.ts';
import { isTombstone, regionEnd, regionOf, versionedKey, versionOf } from './encoding.ts';
import { firstEntry, type MvccDatabase } from './mvcc.ts';

/** Deletes per write batch: small enough that one batch never holds the writer for long. */
export const PRUNE_BATCH = 500;
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
 * key. Work is done in batches of PRUNE_BATCH deletes with an event-loop turn between them, and
 * `shouldStop` is polled so that close() need not wait for a long prune.
 */
export async function pruneBelow(
  db: MvccDatabase,
  height: number,
  shouldStop: () => boolean = () => false,
): Promise<PruneStats> {
  const stats: PruneStats = { deleted: 0, batches: 0, worstBatchMs: 0 };
  let ops: KVOp[] = [];
  const flushOps = async () => {
    if (ops.length === 0) return;
    const started = performance.now();
    await db.kv.write(ops);
    stats.worstBatchMs = Math.max(stats.worstBatchMs, performance.now() - started);
    stats.deleted += ops.length;
    stats.batches++;
    ops = [];
    await new Promise<void>((resolve) => setImmediate(resolve));
  };

  let cursor: Uint8Array = DATA_START;
  while (!shouldStop()) {
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
      if (ops.length >= PRUNE_BATCH) await flushOps();
      if (seen < PRUNE_BATCH || !last) break;
      from = versionedKey(region, versionOf(last) - 1); // continue below the last entry seen
      if (versionOf(last) === 0) break;
    }
  }
  await flushOps();
  return stats;
}
