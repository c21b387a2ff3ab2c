/**
 * `eth_getTransactionBySenderAndNonce` (reth, Otterscan) without an index by sender: the nonce an
 * account has after each block only grows, so the block that used `nonce` is the lowest height whose
 * state holds a nonce above it, found by bisecting state reads; that block's txs are then scanned.
 */
import { formatMinedTx } from '../codecs/format.ts';
import { parseEthTx } from '../codecs/eth-tx.ts';
import { p } from '../codecs/params.ts';
import { method, type MethodTable } from '../server/dispatcher.ts';
import { equalBytes } from '../../primitives/bytes.ts';
import type { ChainReader } from './backend.ts';
import { HeightPrunedError, type Resolver } from './resolve.ts';

export function txBySenderMethods(chain: ChainReader, resolve: Resolver): MethodTable {
  const nonceAt = (address: Uint8Array, height: number) => chain.stateAt(height).nonce(address);

  /** The tx of `sender` with `nonce` among block `height`'s EVM txs, formatted; null if none. */
  const find = (sender: Uint8Array, nonce: bigint, height: number) => {
    resolve.assertBlockRetained(height);
    const ctx = chain.blockContext(height);
    const count = chain.receipts(height)?.length ?? 0;
    for (let i = 0; ctx && i < count; i++) {
      const tx = chain.minedTx(height, i);
      if (tx && equalBytes(tx.receipt.from, sender) && parseEthTx(tx.raw).nonce === nonce)
        return formatMinedTx(tx, ctx);
    }
    // The nonce also rises without a tx of the sender's: a contract's CREATE, an EIP-7702
    // authorization it signed.
    return null;
  };

  return {
    eth_getTransactionBySenderAndNonce: method([p.address, p.uint64], async (sender, nonce) => {
      const latest = chain.latestHeight();
      if ((await nonceAt(sender, latest)) <= nonce) return null;
      let lo = resolve.state({ kind: 'tag', tag: 'earliest' });
      if ((await nonceAt(sender, lo)) > nonce) {
        // Used in block `lo` or below: only `lo` itself can still be read.
        const inLowest = lo > 0 ? find(sender, nonce, lo) : null;
        if (inLowest || lo === 0) return inLowest;
        throw new HeightPrunedError(lo - 1, lo, 'state', chain.stateUnavailableReason?.());
      }
      // nonce(lo) <= nonce < nonce(hi): the block that used it is in (lo, hi]
      let hi = latest;
      while (hi - lo > 1) {
        const mid = lo + Math.floor((hi - lo) / 2);
        if ((await nonceAt(sender, mid)) > nonce) hi = mid;
        else lo = mid;
      }
      return find(sender, nonce, hi);
    }),
  };
}
