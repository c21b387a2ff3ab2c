/**
 * Admission of a TxRaw, whichever way it arrives (a broadcast, eth_sendRawTransaction, CometBFT's
 * CheckTx): a TxRaw wrapping an Ethereum tx goes to the EVM mempool, any other to the Cosmos pool, and
 * a refusal becomes a CheckTx result. The result keeps the refusal's geth wording in `log` and, for
 * EVM txs, the mempool's reason in `info`, so a node that received the refusal from elsewhere (an RPC
 * node forwarding through CometBFT) can answer exactly as the admitting node would.
 */
import { cosmosTxHash } from '../app/cosmos-tx.ts';
import { CosmosTxError } from '../app/cosmos-errors.ts';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { unwrapEthTransaction } from '../execution/tx-wrap.ts';
import type { CosmosPool } from './cosmos-pool.ts';
import { MempoolError, type MempoolRejectReason } from './errors.ts';
import type { Mempool } from './mempool.ts';

export interface CheckTxResult {
  /** 0 = admitted; otherwise a Cosmos SDK error code (codespace `sdk`). */
  code: number;
  codespace: string;
  /** The refusal in the admitting pool's words (geth's for Ethereum txs). */
  log: string;
  /** The EVM mempool's reject reason (`nonce_too_low`, …); empty for admitted and Cosmos txs. */
  info: string;
  /** The tx's gas limit when admitted. */
  gasWanted: bigint;
  /** SHA-256 of the TxRaw (the CometBFT tx hash). */
  hash: Uint8Array;
}

/** Cosmos SDK error codes for the EVM mempool's refusals (ErrTxInMempoolCache, ErrMempoolIsFull, …). */
const SDK_CODE: Partial<Record<MempoolRejectReason, number>> = {
  already_known: 19,
  already_in_cache: 19,
  txpool_full: 20,
  oversized: 21,
  insufficient_funds: 5,
  nonce_too_low: 32,
  intrinsic_gas_too_low: 11,
  gas_limit_exceeded: 11,
  fee_cap_below_base_fee: 13,
};
const ERR_INVALID_REQUEST = 18;

export interface AdmissionPools {
  mempool: Mempool;
  cosmosPool: CosmosPool;
}

export async function checkTxRaw(pools: AdmissionPools, txRaw: Uint8Array): Promise<CheckTxResult> {
  const hash = cosmosTxHash(txRaw);
  const eth = unwrapEthTransaction(txRaw);
  if (!eth) {
    try {
      const tx = pools.cosmosPool.checkTx(txRaw);
      return { code: 0, codespace: '', log: '', info: '', hash, gasWanted: tx.gasLimit };
    } catch (err) {
      if (!(err instanceof CosmosTxError)) throw err;
      return {
        code: err.abciCode,
        codespace: err.codespace,
        log: err.message,
        info: '',
        hash,
        gasWanted: 0n,
      };
    }
  }
  try {
    const tx = await pools.mempool.checkTx(eth);
    return { code: 0, codespace: '', log: '', info: '', hash, gasWanted: tx.gasLimit };
  } catch (err) {
    if (!(err instanceof MempoolError)) throw err;
    const code = SDK_CODE[err.reason] ?? ERR_INVALID_REQUEST;
    return { code, codespace: 'sdk', log: err.message, info: err.reason, hash, gasWanted: 0n };
  }
}

/** The refusal a CheckTx result carries, as the EVM mempool would have thrown it. */
export function mempoolErrorOf(result: Pick<CheckTxResult, 'code' | 'log' | 'info'>): MempoolError {
  const reason = (result.info || 'already_known') as MempoolRejectReason;
  return new MempoolError(reason, result.log);
}

/** Whether the pool that would admit `txRaw` holds it now (CometBFT's recheck after a block). */
export function poolHolds(pools: AdmissionPools, txRaw: Uint8Array): boolean {
  const eth = unwrapEthTransaction(txRaw);
  return eth ? pools.mempool.has(keccak_256(eth)) : pools.cosmosPool.get(cosmosTxHash(txRaw)) !== undefined;
}
