/**
 * The domain values the RPC formats, as rpc/ sees them. rpc/ must not import storage/ (docs/adr/0011-layers-and-narrow-interfaces.md), so
 * these are declared here; node/ hands over the block store's objects, which satisfy them
 * structurally. Bytes are Uint8Array, quantities bigint, heights and indexes numbers.
 */

export interface LogView {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
  /** Position among all logs of the block. */
  logIndex: number;
  /** The receipt's txIndex (Ethereum transactionIndex). */
  txIndex: number;
  txHash: Uint8Array;
}

export interface ReceiptView {
  txHash: Uint8Array;
  /** Position among the block's EVM txs. */
  txIndex: number;
  from: Uint8Array;
  to: Uint8Array | null;
  contractAddress: Uint8Array | null;
  status: 0 | 1;
  gasUsed: bigint;
  cumulativeGasUsed: bigint;
  effectiveGasPrice: bigint;
  type: number;
  logs: LogView[];
  logsBloom: Uint8Array;
  /** A failed tx's return data (a revert's reason); absent when empty. */
  revertData?: Uint8Array;
}

/** What identifies a block in tx, receipt and log objects. */
export interface BlockContext {
  height: number;
  hash: Uint8Array;
  /** seconds since the epoch */
  timestamp: number;
}

/**
 * A block as the Ethereum view needs it (docs/adr/0012-every-tx-is-a-cosmos-txraw.md; node/ maps it): `parentHash` = last block
 * id hash (empty at height 1), `stateRoot` = header app hash, `miner` = proposer address.
 */
export interface BlockView extends BlockContext {
  parentHash: Uint8Array;
  stateRoot: Uint8Array;
  miner: Uint8Array;
  gasLimit: bigint;
  baseFeePerGas: bigint;
  /** OR of the receipts' blooms */
  logsBloom: Uint8Array;
  /** bytes of the stored block */
  size: number;
  /** The block's EVM transactions in order: raw Ethereum bytes with their receipts. */
  txs: MinedTx[];
}

export interface MinedTx {
  /** the raw Ethereum transaction (EIP-2718 envelope or legacy RLP) */
  raw: Uint8Array;
  receipt: ReceiptView;
}

/** A transaction waiting in the mempool. */
export interface PendingTx {
  raw: Uint8Array;
  hash: Uint8Array;
  sender: Uint8Array;
}
