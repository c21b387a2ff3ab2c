/** Account state at a block or `pending`: balance, nonce, code, storage (history from the State Store). */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { data, hash32, quantity } from '../codecs/hex.ts';
import { p } from '../codecs/params.ts';
import { method, type MethodTable } from '../server/dispatcher.ts';
import type { EvmBackend } from './backend.ts';
import type { Resolver } from './resolve.ts';

export function stateMethods({ chain, pool }: EvmBackend, resolve: Resolver): MethodTable {
  return {
    eth_getBalance: method([p.address, p.blockRef], async (addr, ref) =>
      quantity(await chain.stateAt(resolve.statePoint(ref)).balance(addr)),
    ),
    eth_getTransactionCount: method([p.address, p.blockRef], async (addr, ref) => {
      // `pending` counts the sender's executable txs in the mempool, as geth does, so a wallet can
      // send several txs in a row (the pool knows it without executing the pending block).
      if (ref.kind === 'tag' && ref.tag === 'pending') return quantity(await pool.pendingNonce(addr));
      return quantity(await chain.stateAt(resolve.statePoint(ref)).nonce(addr));
    }),
    eth_getCode: method([p.address, p.blockRef], async (addr, ref) =>
      data(await chain.stateAt(resolve.statePoint(ref)).code(addr)),
    ),
    eth_getStorageAt: method([p.address, p.storageKey, p.blockRef], async (addr, slot, ref) =>
      data(await chain.stateAt(resolve.statePoint(ref)).storage(addr, slot)),
    ),
    // geth's {balance, nonce, codeHash, storageRoot} without storageRoot: the chain commits its state
    // with IAVL and flatkv, with no storage trie per account, so any root answered would be made up
    // (eth_getProof leaves out the Merkle-Patricia fields for the same reason).
    eth_getAccount: method([p.address, p.blockRef], async (addr, ref) => {
      const state = chain.stateAt(resolve.statePoint(ref));
      const [balance, nonce, code] = await Promise.all([
        state.balance(addr),
        state.nonce(addr),
        state.code(addr),
      ]);
      return { balance: quantity(balance), nonce: quantity(nonce), codeHash: hash32(keccak_256(code)) };
    }),
  };
}
