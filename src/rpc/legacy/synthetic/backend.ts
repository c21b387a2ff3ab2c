/**
 * What the synthetic legacy views (chain_/chain2_ block, tx, receipt, log and filter methods) read
 * beyond the eth_ ChainReader: the Cosmos-originated txs of a block in block order. node/ implements it
 * over the block store, the Cosmos tx decoder and the tx results (rpc/ never touches storage).
 */
import type { ChainReader, EvmRpcOptions, TxPool } from '../../evm/backend.ts';

/** A log a Cosmos-originated tx shows on the EVM side. */
export interface SyntheticLog {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
}

/** One bank MsgSend of uchain, with both ends as EVM addresses (associated or cast). */
export interface BankTransfer {
  from: Uint8Array;
  to: Uint8Array;
  /** uchain */
  amount: bigint;
}

/** A Cosmos-originated tx of a stored block. */
export interface CosmosTxView {
  /** SHA-256 of the TxRaw (the Tendermint tx hash) */
  hash: Uint8Array;
  /** The first signer's EVM address (associated or cast). */
  from: Uint8Array;
  /** The first message's recipient as an EVM address, when the message has one. */
  to: Uint8Array | null;
  /** The signer's account sequence the tx was signed with. */
  nonce: bigint;
  gasLimit: bigint;
  /** Fee paid, in wei. */
  fee: bigint;
  /** The Cosmos result code: 0 success. */
  code: number;
  gasUsed: bigint;
  logs: SyntheticLog[];
  /** 256-byte bloom of `logs`. */
  logsBloom: Uint8Array;
  /** The tx's bank MsgSends of uchain, in message order. */
  transfers: BankTransfer[];
}

/** One tx of a block in the order the block stores them. */
export type BlockTxRef =
  | {
      kind: 'evm';
      /** Index among the block's EVM txs (the eth_ transactionIndex). */
      evmIndex: number;
      /**
       * Included, nonce consumed, nothing executed: on this chain, an EVM tx that could not pay when
       * its turn in the block came (its receipt: status 0, gasUsed 0, the reason as its VM error).
       */
      failedBeforeExecution: boolean;
    }
  | { kind: 'cosmos'; tx: CosmosTxView };

/** debug_traceBlockBy*'s answer for a block: one entry per EVM tx, in EVM order. */
export interface BlockTrace {
  txHash: string;
  result?: unknown;
  error?: string;
}

/** The debug block tracer (debug_traceBlockBy*'s, with its limits), as the trace variants use it. */
export interface BlockTracer {
  /** Decodes a trace config param as debug_trace* does; throws CodecError naming the problem. */
  parseConfig(v: unknown): unknown;
  /** `config`: what parseConfig returned, or undefined when the param was absent. */
  traceBlock(height: number, config: unknown): Promise<BlockTrace[]>;
}

export interface SyntheticBackend {
  chain: ChainReader;
  options: EvmRpcOptions;
  /** Answers chain_getTransactionByHash for txs not mined yet (as eth_ does); optional. */
  pool?: Pick<TxPool, 'get'>;
  /** The block's txs in block order; undefined when the block is not stored. Height 0: []. */
  blockTxs(height: number): Promise<BlockTxRef[] | undefined>;
  /** Where a Cosmos-originated tx is, by its SHA-256; undefined for unknown hashes and wrapped EVM txs. */
  cosmosTxLocation(hash: Uint8Array): { height: number } | undefined;
  /** Heights in [from, to] whose Cosmos-originated txs carry synthetic logs, ascending. */
  syntheticLogHeights(from: number, to: number): number[];
  /** debug block tracing (debug_traceBlockBy*); absent: the trace variants answer an error naming it. */
  tracer?: BlockTracer;
}
