/** Blocks and their receipts; the genesis block (height 0) is a real view, not an error. */
import type { BlockRef } from '../codecs/block-ref.ts';
import { encodeReceipt, formatBlock, formatHeader, formatReceipt } from '../codecs/format.ts';
import type { BlockView } from '../codecs/views.ts';
import { data, quantity } from '../codecs/hex.ts';
import { p } from '../codecs/params.ts';
import { method, type MethodTable } from '../server/dispatcher.ts';
import { RawJson } from '../server/serialize.ts';
import { toHex } from '../../primitives/bytes.ts';
import { Lru } from '../../util/lru.ts';
import type { EvmBackend } from './backend.ts';
import type { Resolver } from './resolve.ts';

type Shape = 'full' | 'hashes' | 'header';

const byHash = (hash: Uint8Array): BlockRef => ({ kind: 'hash', hash, requireCanonical: false });

/** Formatted blocks kept: at most this many, and at most BLOCK_CACHE_BYTES of their JSON. */
const BLOCK_CACHE_SIZE = 256;
const BLOCK_CACHE_BYTES = 16 * 1024 * 1024;

export function blockMethods({ chain }: EvmBackend, resolve: Resolver): MethodTable {
  // A block's answer never changes once it is committed, and formatting one recomputes its
  // transactions and receipts roots (tries over every tx): the same block, above all `latest`, is
  // asked for again and again (a dapp polls it), so each is formatted once and kept as its JSON
  // text. The height is still resolved first, so the watermark and pruning apply as without it.
  const formatted = new Lru<string, RawJson>(BLOCK_CACHE_SIZE, BLOCK_CACHE_BYTES, (r) => r.text.length);
  // the last answer, by the chain's view object (kept while the block is cached): a poll of
  // `latest` skips the hash's hex key and the cache's reordering
  let last: { view: BlockView; shape: Shape; json: RawJson } | undefined;
  const answer = async (ref: BlockRef, shape: Shape) => {
    const h = resolve.lookup(ref);
    const b = h === undefined ? undefined : await chain.block(h);
    if (!b) return null;
    if (last !== undefined && last.view === b && last.shape === shape) return last.json;
    const key = `${toHex(b.hash)}:${shape}`;
    let json = formatted.get(key);
    if (!json) {
      json = new RawJson(
        JSON.stringify(shape === 'header' ? formatHeader(b) : formatBlock(b, shape === 'full')),
      );
      formatted.set(key, json);
    }
    last = { view: b, shape, json };
    return json;
  };
  const block = (ref: BlockRef, full: boolean) => answer(ref, full ? 'full' : 'hashes');
  const txCount = (ref: BlockRef) => {
    const h = resolve.lookup(ref);
    const receipts = h === undefined ? undefined : chain.receipts(h);
    return receipts ? quantity(receipts.length) : null;
  };
  return {
    eth_getBlockByNumber: method([p.blockNumber, p.bool], block),
    eth_getBlockByHash: method([p.hash, p.bool], (hash, full) => block(byHash(hash), full)),
    eth_getHeaderByNumber: method([p.blockNumber], (ref) => answer(ref, 'header')),
    eth_getHeaderByHash: method([p.hash], (hash) => answer(byHash(hash), 'header')),
    eth_getBlockTransactionCountByNumber: method([p.blockNumber], txCount),
    eth_getBlockTransactionCountByHash: method([p.hash], (hash) => txCount(byHash(hash))),
    eth_getBlockReceipts: method([p.blockRef], (ref) => {
      const h = resolve.lookup(ref);
      const ctx = h === undefined ? undefined : chain.blockContext(h);
      const receipts = h === undefined ? undefined : chain.receipts(h);
      if (h === undefined || !ctx || !receipts) return null;
      return receipts.map((r) => formatReceipt(r, ctx));
    }),
    // the receipts' consensus encodings, the very bytes the block view's receiptsRoot commits to
    debug_getRawReceipts: method([p.blockRef], (ref) => {
      const h = resolve.lookup(ref);
      const receipts = h === undefined ? undefined : chain.receipts(h);
      return receipts ? receipts.map((r) => data(encodeReceipt(r))) : null;
    }),
  };
}
