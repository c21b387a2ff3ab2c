/**
 * The node's block data model: blocks as committed, EVM receipts and logs, and the
 * results of Cosmos txs. Bytes are Uint8Array, quantities bigint; heights and indexes are JS numbers
 * (safe integers), like the versions of SC and SS.
 */
import type { Commit, Header, Timestamp } from '../../codec/index.ts';

export interface Block {
  header: Header;
  /** headerHash(header); putBlock checks it. */
  hash: Uint8Array;
  /** Every tx is a Cosmos TxRaw; an Ethereum tx is wrapped in one (docs/adr/0012-every-tx-is-a-cosmos-txraw.md). Block order. */
  txs: Uint8Array[];
  /** The commit (validator signatures) of the previous block; empty signatures at the first height. */
  lastCommit: Commit;
  /**
   * Decided by CometBFT (network mode): `hash` is CometBFT's block hash, and the header holds what
   * FinalizeBlock hands the application (height, time, proposer, next validators hash; the previous
   * block's hash as last_block_id.hash, the app hash and data hash this node knows). The fields CometBFT
   * keeps to itself (last commit hash, part set header, ...) are empty, so the hash cannot be recomputed
   * from them; the consensus RPC serves those blocks from CometBFT. lastCommit carries the votes
   * without signatures.
   */
  hashFromEngine?: true;
  /**
   * Each lastCommit signature's voting power, in the same order: what replay hands the block's
   * begin-block hook with each vote. Absent when the commit is empty, and in records written before
   * powers were kept.
   */
  lastCommitPowers?: bigint[];
  /** The evidence the block committed (ABCI Misbehavior); absent when none. */
  misbehavior?: BlockMisbehavior[];
}

/** Evidence of a validator's misbehavior committed in a block. */
export interface BlockMisbehavior {
  kind: 'duplicate_vote' | 'light_client_attack';
  /** 20-byte consensus address. */
  address: Uint8Array;
  /** Its power at the infraction. */
  power: bigint;
  /** The infraction's height and time. */
  height: number;
  time: Timestamp;
  totalVotingPower: bigint;
}

export interface Log {
  /** 20 bytes */
  address: Uint8Array;
  /** 0 to 4 topics of 32 bytes */
  topics: Uint8Array[];
  data: Uint8Array;
  /** Position of the log among all logs of its block (Ethereum `logIndex`). */
  logIndex: number;
  /** The receipt's `txIndex`. */
  txIndex: number;
  /** The receipt's `txHash`. */
  txHash: Uint8Array;
}

/** A log as eth_getLogs returns it: with the block it belongs to. */
export interface BlockLog extends Log {
  blockHeight: number;
  blockHash: Uint8Array;
}

export interface Receipt {
  /** keccak-256 of the raw Ethereum tx. */
  txHash: Uint8Array;
  /**
   * Ethereum `transactionIndex`: position among the block's EVM txs (0, 1, 2, ... in block order),
   * which is also the position in the block's receipt list.
   */
  txIndex: number;
  /** Position of the wrapping TxRaw in `Block.txs`. */
  blockTxIndex: number;
  /** 20 bytes */
  from: Uint8Array;
  /** null for contract creation */
  to: Uint8Array | null;
  /** the created contract, or null */
  contractAddress: Uint8Array | null;
  /** 1 success, 0 failure */
  status: 0 | 1;
  gasUsed: bigint;
  cumulativeGasUsed: bigint;
  effectiveGasPrice: bigint;
  /** EIP-2718 type: 0 legacy, 1 access list, 2 dynamic fee, 4 set code */
  type: number;
  logs: Log[];
  /** 256 bytes: the Ethereum bloom of this receipt's logs (as execution computes it; the block bloom ORs them). */
  logsBloom: Uint8Array;
  /** A failed tx's VM error as the VM words it ("revert", "out of gas", …); absent on success. */
  vmError?: string;
  /** A failed tx's return data (the revert data of a revert); absent when empty. */
  revertData?: Uint8Array;
  /**
   * Included but failed before execution (it could not pay when its turn came): nonce consumed,
   * nothing executed, status 0, gasUsed 0, no logs; `vmError` holds the reason.
   */
  failedBeforeExecution?: true;
}

export interface EventAttribute {
  key: string;
  value: string;
  index: boolean;
}

export interface TxEvent {
  type: string;
  attributes: EventAttribute[];
}

/** The execution result of one Cosmos tx (CometBFT ExecTxResult, minus data). */
export interface CosmosTxResult {
  /** Position of the tx in `Block.txs`. */
  index: number;
  /** 0 = success */
  code: number;
  codespace: string;
  log: string;
  gasWanted: bigint;
  gasUsed: bigint;
  events: TxEvent[];
}

export interface TxLocation {
  height: number;
  /** Position in `Block.txs`. */
  index: number;
}

export interface EvmTxLocation extends TxLocation {
  /** The receipt's `txIndex` (Ethereum `transactionIndex`). */
  evmIndex: number;
  blockHash: Uint8Array;
}

/** A receipt with the block it belongs to (eth_getTransactionReceipt needs both). */
export interface StoredReceipt {
  receipt: Receipt;
  height: number;
  blockHash: Uint8Array;
}

export interface LogQuery {
  /** Inclusive; clamped to the stored range. */
  fromBlock: number;
  /** Inclusive; clamped to the stored range. */
  toBlock: number;
  /** A log matches if its address is any of these; empty or absent = any address. */
  addresses?: Uint8Array[];
  /**
   * Position-wise topic filter (geth semantics): position i matches if the list is null/empty or
   * contains the log's i-th topic; a log with fewer topics than the filter has positions fails.
   */
  topics?: (Uint8Array[] | null)[];
  /** Maximum number of logs returned (default DEFAULT_LOG_LIMIT). */
  limit?: number;
  /**
   * Logs of `fromBlock` whose logIndex is below this are skipped (not counted against `limit`): a
   * reader that stopped inside a block resumes where it stopped. Default 0.
   */
  fromLogIndex?: number;
}

export interface LogQueryResult {
  /** In block order, then logIndex order. */
  logs: BlockLog[];
  /** More than `limit` logs matched; `logs` holds the first `limit`. */
  limitExceeded: boolean;
}

/**
 * What block execution saw of one EVM tx beyond its receipt, for the address index
 * (address-index.ts): the tx's nonce and the addresses of its call tree.
 */
export interface TxAppearances {
  /** The tx's nonce (its sender's index entry keeps it). */
  nonce: bigint;
  /** Contracts the tx created at any depth (the receipt names only a top-level creation's). */
  created: Uint8Array[];
  /**
   * Every caller and callee of the tx's internal calls and creations (CALL, CALLCODE, DELEGATECALL,
   * STATICCALL, CREATE, CREATE2: the executing and the code address) and its selfdestructs' beneficiaries.
   */
  internal: Uint8Array[];
}

/** An address's txs, a page at a time (ots_searchTransactionsBefore/After). */
export interface AppearancePage {
  /** In the order asked for: newest first when searching before a height, oldest first after. */
  txs: { height: number; txIndex: number; flags: number }[];
  /** No tx of the address lies beyond the page in the direction searched. */
  reachedEnd: boolean;
}
