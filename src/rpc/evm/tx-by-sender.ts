/**
 * `eth_getTransactionBySenderAndNonce` (reth, Otterscan): the block store's address index keeps each
 * sender's txs with their nonces, so the tx is one index lookup (`txBySenderAndNonce`, which ots_getTransactionBySenderAndNonce shares) and
 * needs no historical state: an answer stays available after the state of its height is pruned.
 */
import { formatMinedTx } from '../codecs/format.ts';
import { p } from '../codecs/params.ts';
import { method, type MethodTable } from '../server/dispatcher.ts';
import type { EvmBackend } from './backend.ts';
import { ChainError } from '../../util/errors.ts';
import type { EvmTxAt } from './backend.ts';
import { AddressIndexIncompleteError, type Resolver } from './resolve.ts';

export function txBySenderMethods(backend: EvmBackend, resolve: Resolver): MethodTable {
  const { chain } = backend;
  return {
    eth_getTransactionBySenderAndNonce: method([p.address, p.uint64], async (sender, nonce) => {
      const at = await txBySenderAndNonce(backend, sender, nonce);
      if (!at) return null;
      resolve.assertBlockRetained(at.height);
      const tx = chain.minedTx(at.height, at.evmIndex);
      const ctx = chain.blockContext(at.height);
      return tx && ctx ? formatMinedTx(tx, ctx) : null;
    }),
  };
}

/**
 * The tx `sender` sent with `nonce`, from the address index: undefined when the sender has not used
 * that nonce (also when a contract's CREATE or an EIP-7702 authorization used it: no tx of its own).
 * A nonce the index cannot rule out (its first height is above the chain's first block) is refused.
 */
export async function txBySenderAndNonce(
  backend: EvmBackend,
  sender: Uint8Array,
  nonce: bigint,
): Promise<EvmTxAt | undefined> {
  const { chain } = backend;
  const h = chain.addressHistory;
  if (!h) throw new ChainError('RPC_ADDRESS_INDEX_INCOMPLETE', 'no address index');
  const latest = chain.latestHeight();
  if ((await chain.stateAt(latest).nonce(sender)) <= nonce) return undefined;
  const at = h.bySenderAndNonce(sender, nonce);
  if (at && at.height <= latest) return at;
  const since = h.indexedSince();
  if (since !== undefined && since <= h.chainStart) return undefined;
  throw new AddressIndexIncompleteError(`the tx of nonce ${nonce}`, since);
}
