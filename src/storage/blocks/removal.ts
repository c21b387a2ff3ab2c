/**
 * What truncateAbove and pruneBelow delete for one height: the block, its hash entry, receipts,
 * results, bloom record, and the tx-hash, logs-index and event-index entries derived from the block's txs and
 * receipts' logs (re-derived from the stored records, so nothing needs a separate undo list), and the
 * address index entries the height's address list names.
 */
import { sha256 } from '../../crypto/hash.ts';
import type { KVOp } from '../kv/types.ts';
import { decodeBlock } from './block-codec.ts';
import {
  hashKey,
  heightKey,
  P_BLOCK,
  P_BLOOM,
  P_COSMOS_TX,
  P_EVM_TX,
  P_HASH,
  P_RESULTS,
  readHeightAt,
  receiptKey,
} from './keys.ts';
import { LogIndexBuilder } from './log-index.ts';
import { EventIndexBuilder } from './event-index.ts';
import { collectAddressIndexDeletes } from './address-index.ts';
import type { SyncReader } from './log-query.ts';
import { decodeCosmosResults, receiptTxHash, scanReceiptLogs } from './receipt-codec.ts';
import type { Log } from './types.ts';

/** Appends the deletes of everything stored for `height`; tx-hash entries only if they point there. */
export function collectHeightDeletes(kv: SyncReader, height: number, ops: KVOp[]): void {
  const del = (key: Uint8Array) => ops.push({ type: 'del', key });
  const delIndexIfAt = (key: Uint8Array) => {
    const v = kv.getSync(key);
    // a later block may have re-indexed the same hash; that entry is not ours to remove
    if (v && readHeightAt(v, 0) === height) del(key);
  };
  const blockKey = heightKey(P_BLOCK, height);
  const rec = kv.getSync(blockKey);
  if (rec) {
    const block = decodeBlock(rec);
    delIndexIfAt(hashKey(P_HASH, block.hash));
    for (const tx of block.txs) delIndexIfAt(hashKey(P_COSMOS_TX, sha256(tx)));
    del(blockKey);
  }
  const logIndex = new LogIndexBuilder();
  // the event index entries are re-derived from the Cosmos results' events
  const eventIndex = new EventIndexBuilder();
  const logs: Log[] = [];
  for (const [key, value] of kv.iterateSync({ gte: receiptKey(height, 0), lt: receiptKey(height + 1, 0) })) {
    delIndexIfAt(hashKey(P_EVM_TX, receiptTxHash(value)));
    logs.length = 0;
    scanReceiptLogs(value, () => true, logs);
    if (logs.length > 0) logIndex.addLogs(logs, logs[0].txIndex);
    del(key);
  }
  const results = kv.getSync(heightKey(P_RESULTS, height));
  if (results) for (const r of decodeCosmosResults(results)) eventIndex.addTx(r.index, r.events);
  for (const op of logIndex.deletes(height)) ops.push(op);
  for (const op of eventIndex.deletes(height)) ops.push(op);
  // the address index holds call-tree addresses no stored record has: its per-height list names them
  collectAddressIndexDeletes(kv, height, ops);
  del(heightKey(P_BLOOM, height));
  del(heightKey(P_RESULTS, height));
}
