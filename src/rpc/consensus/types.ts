/**
 * What the consensus RPC needs from the rest of the node, as narrow interfaces. rpc/ never imports
 * storage (docs/adr/0011-layers-and-narrow-interfaces.md): node/ implements these over the block store, the State Store, the mempool and
 * the chain (`src/node/adapters/consensus-rpc.ts`). Everything here is domain data (bytes, numbers,
 * bigints); the JSON encoding lives in `encoding.ts`.
 */
import type { BlockID, Commit, Header } from '../../codec/index.ts';
import type { SyncStatus } from '../../chain/sync-status.ts';
import type { StateReader } from '../../state/overlay.ts';
import type { TxSimulate } from '../codecs/cosmos.ts';
import type { TxEventIndex } from '../codecs/tx-search.ts';

export interface BlockView {
  header: Header;
  /** The block ID (hash and part-set header) that commits to this block. */
  blockId: BlockID;
  /** Every tx is a Cosmos TxRaw (docs/adr/0012-every-tx-is-a-cosmos-txraw.md), in block order. */
  txs: Uint8Array[];
  /** The commit of the previous block carried by this one (empty at the first height). */
  lastCommit: Commit;
  /** Size of the encoded block in bytes (`block_size` of a block meta). */
  size: number;
}

export interface TxEventView {
  type: string;
  attributes: { key: string; value: string; index: boolean }[];
}

/** The result of executing one tx (CometBFT ExecTxResult). */
export interface TxResultView {
  code: number;
  codespace: string;
  log: string;
  data: Uint8Array;
  gasWanted: bigint;
  gasUsed: bigint;
  events: TxEventView[];
}

export interface TxLocationView {
  height: number;
  /** Position in the block's txs. */
  index: number;
}

/**
 * Committed chain data. Implementations answer only heights in [earliestHeight, latestHeight]
 * (the watermark: a block counts once every store has it), and undefined outside.
 */
export interface ChainView {
  latestHeight(): number;
  /** The lowest height still stored (≥ 1 once a block exists). */
  earliestHeight(): number;
  block(height: number): BlockView | undefined;
  /** Network mode: the block as CometBFT stores it (the REST and gRPC block endpoints answer with it). */
  engineBlock?(height: number): Promise<Omit<BlockView, 'size'> | undefined>;
  heightByHash(hash: Uint8Array): number | undefined;
  /** One result per tx of the block, in block order. */
  txResults(height: number): TxResultView[] | undefined;
  /** By the Tendermint hash (SHA-256 of the TxRaw bytes). */
  txLocation(hash: Uint8Array): TxLocationView | undefined;
  /** App hash of the state after block `height` (what `abci_info` and `block_results` report). */
  appHashAfter(height: number): Uint8Array | undefined;
  /**
   * The commit for block `height`: from block height+1 when it exists (canonical), otherwise the
   * validator's own precommit for the latest block (not canonical), if available.
   */
  commit(height: number): { commit: Commit; canonical: boolean } | undefined;
  /** The genesis document as loaded (CometBFT's JSON shape). */
  genesis(): unknown;
  /** The block store's event index, which tx search reads (rpc/codecs/tx-search.ts). */
  eventIndex?: TxEventIndex;
}

/** One validator of the consensus set. */
export interface ValidatorView {
  /** 20-byte CometBFT address. */
  address: Uint8Array;
  /** Ed25519 public key, 32 bytes. */
  pubKey: Uint8Array;
  votingPower: bigint;
}

export interface ValidatorSetView {
  /** The validator set that signed block `height` (CometBFT set order). */
  validators(height: number): ValidatorView[];
}

/** Reads of application state as of a committed height (the State Store). */
export interface StateView {
  /** The lowest height whose state is still readable. */
  earliestHeight(): number;
  get(store: string, key: Uint8Array, height: number): Promise<Uint8Array | undefined>;
  /** A read of the app modules' readers (app/) over the state at `height`. */
  read<T>(height: number, fn: (state: StateReader) => T): Promise<T>;
  /** Live entries of `store` with keys in [start, end) (no end: to the last key), in key order, at `height`. */
  range(
    store: string,
    start: Uint8Array,
    end: Uint8Array | undefined,
    height: number,
  ): AsyncIterable<{ key: Uint8Array; value: Uint8Array }>;
}

/** The outcome of offering a tx to the mempool (CometBFT CheckTx), Cosmos SDK codes (0 = accepted). */
export interface CheckTxResult {
  code: number;
  codespace: string;
  log: string;
  /** SHA-256 of the TxRaw bytes. */
  hash: Uint8Array;
  gasWanted: bigint;
}

/** Where `broadcast_tx_*` sends txs; node/ routes each TxRaw to the right admission path. */
export interface TxSubmitter {
  submit(txRaw: Uint8Array): Promise<CheckTxResult>;
  /**
   * Resolves with the tx's location once a block holding it is committed (at or below the
   * watermark); rejects with the signal's reason when `signal` aborts.
   */
  awaitInclusion(hash: Uint8Array, signal: AbortSignal): Promise<TxLocationView>;
}

export interface MempoolView {
  /** Txs in the pool (executable and waiting). */
  size(): number;
  /** Total bytes of the txs `txs(Infinity)` would list. */
  totalBytes(): number;
  /** Up to `limit` txs as TxRaw bytes, in the order they would be proposed. */
  txs(limit: number): Uint8Array[];
}

export interface PeerView {
  id: string;
  listenAddr: string;
  moniker: string;
  height: number;
}

/** The P2P side: empty while the node has no peer-to-peer layer. */
export interface NetworkView {
  listening(): boolean;
  listeners(): string[];
  peers(): PeerView[];
}

/** Static facts about this node for `/status`. */
export interface NodeIdentity {
  /** Hex node ID (first 20 bytes of SHA-256 of the node key), lower case as CometBFT prints it. */
  nodeId: string;
  /** P2P listen address (CometBFT's node_info.listen_addr). */
  listenAddr: string;
  chainId: string;
  moniker: string;
  /** The CometBFT RPC protocol version the routes follow (clients pick their decoder by it). */
  version: string;
  /** This node's application version. */
  appVersion: string;
  /** This node's own validator key and power in the current set (0 when not a validator). */
  validator: ValidatorView;
}

/** An answer of the engine's own RPC, passed on as it came (status and body). */
export interface UpstreamAnswer {
  status: number;
  body: string;
}

/**
 * In network mode the routes are CometBFT's: the consensus RPC passes requests to the CometBFT RPC
 * the node runs on loopback, and answers `/lag_status` itself and `/status` from CometBFT's answer
 * with this node's health laid over it.
 */
export interface UpstreamRpc {
  get(pathAndQuery: string): Promise<UpstreamAnswer>;
  post(body: string): Promise<UpstreamAnswer>;
  /** The engine's own `/websocket` (`ws://…`), which the consensus RPC's `/websocket` is relayed to. */
  websocketUrl: string;
}

export interface ConsensusRpcDeps {
  /** Set in network mode (see UpstreamRpc). */
  upstream?: UpstreamRpc;
  identity: NodeIdentity;
  chain: ChainView;
  validators: ValidatorSetView;
  state: StateView;
  submitter: TxSubmitter;
  /** The tx service's Simulate, which abci_query, REST and gRPC answer with. */
  simulate: TxSimulate;
  mempool: MempoolView;
  network: NetworkView;
  /**
   * The engine's health, as `SyncStatus` (chain/sync-status.ts; the producer's stall rule is
   * producer/health.ts, network mode's cometbft/health.ts): what `/status`, `/lag_status` and
   * `/commit` report of progress.
   */
  sync(): SyncStatus;
  /**
   * Calls `listener` after each block is committed (at or below the watermark), with its height;
   * returns the unsubscribe. `/websocket` subscriptions publish from it.
   */
  onCommit(listener: (height: number) => void): () => void;
}
