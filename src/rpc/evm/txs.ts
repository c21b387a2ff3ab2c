/**
 * Sending and transaction lookup. A mined tx is served once its block is under the watermark; until
 * then (and before inclusion) it is answered from the mempool with null block fields.
 */
import { formatMinedTx, formatPendingTx, formatReceipt } from '../codecs/format.ts';
import { data, hash32 } from '../codecs/hex.ts';
import { p } from '../codecs/params.ts';
import { method, type MethodTable } from '../server/dispatcher.ts';
import type { BlockRef } from '../codecs/block-ref.ts';
import type { EvmBackend } from './backend.ts';
import type { Resolver } from './resolve.ts';
import { Lru } from '../../util/lru.ts';
import { RawJson } from '../server/serialize.ts';
import { type InclusionWaits, sendSyncMethods } from './send-sync.ts';

/** Formatted receipts kept: at most this many, and at most RECEIPT_CACHE_BYTES of their JSON. */
const RECEIPT_CACHE_SIZE = 4096;
/** A receipt is about 1.3 KB of JSON with its bloom, plus about 450 bytes per log. */
const RECEIPT_CACHE_BYTES = 8 * 1024 * 1024;

/** `waits`: eth_sendRawTransactionSync is served only where committed blocks are reported. */
export function txMethods(
  { chain, pool }: EvmBackend,
  resolve: Resolver,
  waits?: InclusionWaits,
): MethodTable {
  /** The location of a mined tx under the watermark. */
  const located = (hash: Uint8Array) => {
    const loc = chain.txLocation(hash);
    if (!loc || loc.height > chain.latestHeight()) return undefined;
    resolve.assertBlockRetained(loc.height);
    return loc;
  };
  // A committed receipt never changes (geth keeps a receipts cache too). The location lookup above
  // still runs first, so the watermark and block pruning apply exactly as without the cache; the
  // cached receipt is kept as its JSON text (RawJson), which the collector does not walk.
  const receipts = new Lru<string, RawJson>(RECEIPT_CACHE_SIZE, RECEIPT_CACHE_BYTES, (r) => r.text.length);
  // keyed by height: a rewound height is another block
  chain.onRewind?.((height) =>
    receipts.deleteWhere((key) => Number(key.slice(0, key.indexOf(':'))) > height),
  );
  const txAt = (ref: BlockRef, index: number) => {
    const h = resolve.lookup(ref);
    const tx = h === undefined ? undefined : chain.minedTx(h, index);
    const ctx = h === undefined ? undefined : chain.blockContext(h);
    return tx && ctx ? formatMinedTx(tx, ctx) : null;
  };
  const receipt = (hash: Uint8Array): RawJson | null => {
    const loc = located(hash);
    if (!loc) return null;
    const key = `${loc.height}:${loc.evmIndex}`;
    let formatted = receipts.get(key);
    if (!formatted) {
      const receipt = chain.receipt(loc.height, loc.evmIndex);
      const ctx = chain.blockContext(loc.height);
      if (!receipt || !ctx) return null;
      formatted = new RawJson(JSON.stringify(formatReceipt(receipt, ctx)));
      receipts.set(key, formatted);
    }
    return formatted;
  };
  return {
    eth_sendRawTransaction: method([p.data], async (raw) => hash32(await pool.submit(raw))),
    eth_getTransactionByHash: method([p.hash], (hash) => {
      const loc = located(hash);
      if (loc) {
        const tx = chain.minedTx(loc.height, loc.evmIndex);
        const ctx = chain.blockContext(loc.height);
        if (tx && ctx) return formatMinedTx(tx, ctx);
      }
      const pending = pool.get(hash);
      return pending ? formatPendingTx(pending) : null;
    }),
    eth_getTransactionByBlockNumberAndIndex: method([p.blockNumber, p.index], txAt),
    eth_getTransactionByBlockHashAndIndex: method([p.hash, p.index], (hash, index) =>
      txAt({ kind: 'hash', hash, requireCanonical: false }, index),
    ),
    eth_getTransactionReceipt: method([p.hash], receipt),
    // a mined tx, else one in the pool, as geth looks it up; an unknown hash is "0x", geth's empty
    // bytes (its answer is a byte string, never null)
    debug_getRawTransaction: method([p.hash], (hash) => {
      const loc = located(hash);
      const raw = loc ? chain.minedTx(loc.height, loc.evmIndex)?.raw : pool.get(hash)?.raw;
      return data(raw ?? new Uint8Array(0));
    }),
    ...(waits ? sendSyncMethods(pool, waits, receipt) : {}),
  };
}
