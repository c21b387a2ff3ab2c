/** Blocks and their receipts; the genesis block (height 0) is a real view, not an error. */
import type { BlockRef } from '../codecs/block-ref.ts';
import { formatBlock, formatReceipt } from '../codecs/format.ts';
import { quantity } from '../codecs/hex.ts';
import { p } from '../codecs/params.ts';
import { method, type MethodTable } from '../server/dispatcher.ts';
import type { EvmBackend } from './backend.ts';
import type { Resolver } from './resolve.ts';

const byHash = (hash: Uint8Array): BlockRef => ({ kind: 'hash', hash, requireCanonical: false });

export function blockMethods({ chain }: EvmBackend, resolve: Resolver): MethodTable {
  const block = async (ref: BlockRef, full: boolean) => {
    const h = resolve.lookup(ref);
    const b = h === undefined ? undefined : await chain.block(h);
    return b ? formatBlock(b, full) : null;
  };
  const txCount = (ref: BlockRef) => {
    const h = resolve.lookup(ref);
    const receipts = h === undefined ? undefined : chain.receipts(h);
    return receipts ? quantity(receipts.length) : null;
  };
  return {
    eth_getBlockByNumber: method([p.blockNumber, p.bool], block),
    eth_getBlockByHash: method([p.hash, p.bool], (hash, full) => block(byHash(hash), full)),
    eth_getBlockTransactionCountByNumber: method([p.blockNumber], txCount),
    eth_getBlockTransactionCountByHash: method([p.hash], (hash) => txCount(byHash(hash))),
    eth_getBlockReceipts: method([p.blockRef], (ref) => {
      const h = resolve.lookup(ref);
      const ctx = h === undefined ? undefined : chain.blockContext(h);
      const receipts = h === undefined ? undefined : chain.receipts(h);
      if (h === undefined || !ctx || !receipts) return null;
      return receipts.map((r) => formatReceipt(r, ctx));
    }),
  };
}
