/**
 * rpc/evm's TxPool: pending transactions and nonces from the local EVM mempool, and submissions
 * through the engine's TxSubmission (which decides where a transaction goes).
 */
import type { TxSubmission } from '../../chain/engine.ts';
import type { Mempool } from '../../mempool/mempool.ts';
import type { TxPool } from '../../rpc/evm/index.ts';

export function evmTxPool(mempool: Mempool, submission: TxSubmission): TxPool {
  return {
    get: (hash) => mempool.get(hash),
    pendingNonce: (address) => mempool.pendingNonce(address),
    submit: async (raw) => (await submission.submitEthereumTx(raw)).hash,
    contents: () => mempool.contents(),
  };
}
