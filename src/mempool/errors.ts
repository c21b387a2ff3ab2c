/**
 * Why the mempool refused a transaction. `reason` is the stable code the RPC layer and metrics key on;
 * the message is the wording clients already recognise (geth's; CometBFT's for the
 * seen-hash cache), so `eth_sendRawTransaction` can pass it through unchanged as a -32000 error.
 */
import type { EthTxError, EthTxErrorReason } from '../execution/transactions.ts';
import { ChainError } from '../util/errors.ts';

export type MempoolRejectReason =
  | EthTxErrorReason
  | 'oversized'
  | 'not_replay_protected'
  | 'intrinsic_gas_too_low'
  | 'gas_limit_exceeded'
  | 'fee_cap_below_base_fee'
  | 'nonce_too_low'
  | 'insufficient_funds'
  /** The same hash is in the pool right now (geth: `already known`). */
  | 'already_known'
  /** Not in the pool, but in the seen-hash cache: committed, evicted, or rejected with keep-invalid. */
  | 'already_in_cache'
  | 'replacement_underpriced'
  | 'txpool_full';

export class MempoolError extends ChainError {
  readonly reason: MempoolRejectReason;
  constructor(reason: MempoolRejectReason, message: string, options?: { cause?: unknown }) {
    super('TX_REJECTED', message, options);
    this.reason = reason;
  }

  /** Carries a decoding/stateless failure from execution/ through with the same reason and text. */
  static fromEthTxError(err: EthTxError): MempoolError {
    return new MempoolError(err.reason, err.message, { cause: err });
  }
}

/** The messages, in one place so tests and the RPC mapping can refer to them. */
export const rejectMessages = {
  oversized: (size: number, limit: number) => `oversized data: transaction size ${size}, limit ${limit}`,
  notReplayProtected: () => 'only replay-protected (EIP-155) transactions allowed over RPC',
  intrinsicGasTooLow: () => 'intrinsic gas too low',
  gasLimitExceeded: () => 'exceeds block gas limit',
  feeCapBelowBaseFee: () => 'max fee per gas less than block base fee',
  nonceTooLow: (next: bigint, nonce: bigint) => `nonce too low: next nonce ${next}, tx nonce ${nonce}`,
  insufficientFunds: (balance: bigint, cost: bigint) =>
    `insufficient funds for gas * price + value: balance ${balance}, tx cost ${cost}`,
  alreadyKnown: () => 'already known',
  alreadyInCache: () => 'tx already exists in cache',
  replacementUnderpriced: () => 'replacement transaction underpriced',
  txpoolFull: () => 'txpool is full',
} as const;
