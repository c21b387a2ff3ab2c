/**
 * Runs a block's transactions on top of the last committed state and turns the outcomes into the
 * block's receipts and change sets. The proposer uses it to choose which candidates go in (a
 * candidate that cannot be included is left out); replay after a crash uses it on a stored block,
 * where every transaction must execute exactly as it did.
 */
import type { Common } from '../execution/chain-config.ts';
import { readDecimal, decimal } from '../app/state-access.ts';
import { STORES } from '../app/store-keys.ts';
import {
  BlockExecutor,
  isRejection,
  type EthTxOutcome,
  type EthTxRejection,
} from '../execution/block-executor.ts';
import type { DecodedEthTx } from '../execution/transactions.ts';
import { wrapEthTransaction } from '../execution/tx-wrap.ts';
import { StateOverlay, type StateReader } from '../state/overlay.ts';
import { logsBloom } from '../storage/blocks/bloom.ts';
import type { Log, Receipt } from '../storage/blocks/types.ts';
import { ChainError } from '../util/errors.ts';
import { type BaseFeeParams, nextBaseFee } from './base-fee.ts';

/** The base fee of the next block, kept in state so that replay and every node derive the same one. */
const BASE_FEE_KEY = Uint8Array.of(0x0c);

export function readBaseFee(state: StateReader, params: BaseFeeParams): bigint {
  const stored = state.get(STORES.evm, BASE_FEE_KEY);
  return stored ? readDecimal(stored) : params.initialBaseFee;
}

export interface BlockContext {
  height: number;
  /** seconds since the epoch (the header time, truncated) */
  timestamp: bigint;
  gasLimit: bigint;
  coinbase: Uint8Array;
  parentAppHash: Uint8Array;
  blockHash(height: bigint): Uint8Array | undefined;
}

export interface ExecutedBlock {
  baseFee: bigint;
  /** TxRaw bytes in block order */
  txs: Uint8Array[];
  receipts: Receipt[];
  /** gas limit of each included tx, in block order (CometBFT's gas_wanted) */
  gasLimits: bigint[];
  rejected: EthTxRejection[];
  gasUsed: bigint;
  overlay: StateOverlay;
}

export async function executeBlock(
  common: Common,
  state: StateReader,
  ctx: BlockContext,
  feeParams: BaseFeeParams,
  candidates: DecodedEthTx[],
  mode: 'propose' | 'replay',
): Promise<ExecutedBlock> {
  const overlay = new StateOverlay(state);
  const baseFee = readBaseFee(overlay, feeParams);
  const executor = await BlockExecutor.create(
    common,
    {
      height: BigInt(ctx.height),
      timestamp: ctx.timestamp,
      gasLimit: ctx.gasLimit,
      baseFee,
      coinbase: ctx.coinbase,
      parentAppHash: ctx.parentAppHash,
      blockHash: ctx.blockHash,
    },
    overlay,
  );
  const outcomes: EthTxOutcome[] = [];
  const rejected: EthTxRejection[] = [];
  for (const tx of candidates) {
    const r = await executor.execute(tx);
    if (!isRejection(r)) outcomes.push(r);
    else if (mode === 'replay') {
      throw new ChainError(
        'REPLAY_DIVERGED',
        `replaying block ${ctx.height}: tx 0x${Buffer.from(tx.hash).toString('hex')} no longer executes: ${r.reason}`,
      );
    } else rejected.push(r);
  }
  const gasUsed = executor.blockGasUsed;
  overlay.set(STORES.evm, BASE_FEE_KEY, decimal(nextBaseFee(feeParams, baseFee, gasUsed, ctx.gasLimit)));

  let logIndex = 0;
  const receipts = outcomes.map((o, txIndex): Receipt => {
    const logs: Log[] = o.logs.map((l) => ({ ...l, logIndex: logIndex++, txIndex, txHash: o.tx.hash }));
    return {
      txHash: o.tx.hash,
      txIndex,
      blockTxIndex: txIndex,
      from: o.tx.sender,
      to: o.tx.to,
      contractAddress: o.contractAddress,
      status: o.status,
      gasUsed: o.gasUsed,
      cumulativeGasUsed: o.cumulativeGasUsed,
      effectiveGasPrice: o.effectiveGasPrice,
      type: o.tx.type,
      logs,
      logsBloom: logsBloom(logs),
    };
  });
  return {
    baseFee,
    txs: outcomes.map((o) => wrapEthTransaction(o.tx.raw)),
    receipts,
    gasLimits: outcomes.map((o) => o.tx.gasLimit),
    rejected,
    gasUsed,
    overlay,
  };
}
