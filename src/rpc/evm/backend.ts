/**
 * What the eth_ methods read, as narrow interfaces that node/ implements over Chain (with its state
 * at a height), BlockStore and Mempool (rpc/ never touches storage: docs/adr/0011-layers-and-narrow-interfaces.md). Heights are block heights;
 * the state "at height h" is the state after block h (h = 0: the genesis state).
 *
 * Implementations answer for any height they hold; whether a height may be served (the watermark) is
 * decided in rpc/evm/resolve.ts, in one place.
 */
import type { SyncStatus } from '../../chain/sync-status.ts';
import type { BlockContext, BlockView, LogView, MinedTx, PendingTx, ReceiptView } from '../codecs/views.ts';

export interface StateAt {
  balance(address: Uint8Array): Promise<bigint>;
  nonce(address: Uint8Array): Promise<bigint>;
  code(address: Uint8Array): Promise<Uint8Array>;
  /** The 32-byte value of a 32-byte slot (zero when unset). */
  storage(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array>;
}

/**
 * Where a state read or a simulation runs: the state after a block height, or `pending` (the latest
 * state with the mempool's executable txs applied, as geth's pending block; the latest state when the
 * pool holds none).
 */
export type StatePoint = number | 'pending';

export interface LogMatch extends LogView {
  blockHeight: number;
  blockHash: Uint8Array;
}

export interface LogSearch {
  fromBlock: number;
  toBlock: number;
  /** empty: any */
  addresses: Uint8Array[];
  topics: (Uint8Array[] | null)[];
  /** At most this many logs; `limitExceeded` says more matched. */
  limit: number;
  /** Logs of `fromBlock` with a lower logIndex are skipped: a filter resuming inside that block. */
  fromLogIndex?: number;
}

/** Where an EVM tx is: its height and its index among the block's EVM txs. */
export interface EvmTxAt {
  height: number;
  evmIndex: number;
}

/**
 * The address appearance index of the block store: for each address, the EVM txs it took part in
 * (sent, received, created by, in the call tree of, or emitting a log of), in block order.
 */
export interface AddressHistory {
  /** The first height whose txs are indexed; undefined while no block was stored with the index. */
  indexedSince(): number | undefined;
  /** The chain's first block (genesis `initial_height`): an index from there holds all history. */
  readonly chainStart: number;
  /**
   * The address's txs below height `height` newest first ('before'), or above it oldest first
   * ('after'): at least `minTxs` when there are, the last block read always whole.
   */
  page(
    address: Uint8Array,
    direction: 'before' | 'after',
    height: number,
    minTxs: number,
  ): { txs: EvmTxAt[]; reachedEnd: boolean };
  /**
   * The first `max` indexed txs that created `address` at any depth, in block order (a creation
   * that failed counts: its constructor reverted, or it ran out of gas).
   */
  creations(address: Uint8Array, max: number): EvmTxAt[];
  /** The indexed tx `sender` sent with `nonce`. */
  bySenderAndNonce(sender: Uint8Array, nonce: bigint): EvmTxAt | undefined;
}

export interface ChainReader {
  readonly chainId: bigint;
  /** The fee collector's EVM address (eth_coinbase). */
  readonly coinbase: Uint8Array;
  /** Height of the last fully committed block: the watermark. */
  latestHeight(): number;
  /** Lowest height whose block is still served (0 while the genesis view is available). */
  earliestBlockHeight(): number;
  /** Lowest height whose state is still readable. */
  earliestStateHeight(): number;
  /** Why state below earliestStateHeight() is gone when it is not pruning (for the error); optional. */
  stateUnavailableReason?(): string | undefined;
  /** The Ethereum view of block `height` (0: the genesis block), or undefined if not stored. */
  block(height: number): Promise<BlockView | undefined>;
  /** Hash and time of a stored height (0: genesis) without reading its txs. */
  blockContext(height: number): BlockContext | undefined;
  heightByHash(hash: Uint8Array): number | undefined;
  /** Where a mined EVM tx is: its height and index among the block's EVM txs. */
  txLocation(hash: Uint8Array): { height: number; evmIndex: number } | undefined;
  receipt(height: number, evmIndex: number): ReceiptView | undefined;
  /** Receipts of a stored height in EVM tx order (empty for genesis). */
  receipts(height: number): ReceiptView[] | undefined;
  /** The raw Ethereum tx at (height, evmIndex) with its receipt. */
  minedTx(height: number, evmIndex: number): MinedTx | undefined;
  getLogs(search: LogSearch): { logs: LogMatch[]; limitExceeded: boolean };
  stateAt(point: StatePoint): StateAt;
  /** The address appearance index; absent: the methods that need it are not served. */
  readonly addressHistory?: AddressHistory;
  /** Base fee of the block after the latest (what a tx must pay to be included next). */
  nextBaseFee(): Promise<bigint>;
  /**
   * Calls `listener` with the new latest height when the chain went back (a dev chain's evm_revert):
   * the heights above it will be other blocks, so what is kept by height above it must go. Absent:
   * this chain never goes back.
   */
  onRewind?(listener: (height: number) => void): () => void;
}

export interface TxPool {
  get(hash: Uint8Array): PendingTx | undefined;
  /** Next nonce counting the sender's pending txs. */
  pendingNonce(address: Uint8Array): Promise<bigint>;
  /** Admits a raw Ethereum tx; returns its hash or throws a ChainError with geth's wording. */
  submit(raw: Uint8Array): Promise<Uint8Array>;
  /** Every sender's pending and queued txs, each list by nonce (txpool_*). */
  contents(): { address: Uint8Array; pending: PendingTx[]; queued: PendingTx[] }[];
}

/** The eth_ namespace's options (`[evm]` in app.toml; node/ maps config onto them). */
export interface EvmRpcOptions {
  /** `web3_clientVersion`, e.g. chaind/v0.1.0/linux-x64/node24.21.0 */
  clientVersion: string;
  /** Widest block range of one eth_getLogs query. */
  maxBlocksForLog: number;
  /** Most logs an open-ended eth_getLogs query (no toBlock) may match. */
  maxLogNoBlock: number;
  /** Most bytes of JSON one answer may take (`[evm] max_response_bytes`; absent: no bound). */
  maxResponseBytes?: number;
}

export interface EvmBackend {
  chain: ChainReader;
  pool: TxPool;
  options: EvmRpcOptions;
  /**
   * The engine's health, as `SyncStatus` (chain/sync-status.ts; the producer's stall rule is
   * producer/health.ts, network mode's cometbft/health.ts): what `eth_syncing` reports.
   */
  sync(): SyncStatus;
}
