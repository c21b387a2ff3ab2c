/**
 * What the REST API needs from the rest of the node, as narrow interfaces. rpc/ never imports
 * storage (DESIGN §3) nor its peer rpc/consensus: node/ implements these over the same adapters the
 * consensus RPC uses (`src/node/rest-adapters.ts`), so both interfaces read one view of the chain.
 * Everything here is domain data (bytes, numbers, bigints); the JSON encoding lives in `json.ts`.
 */
import type { BlockID, Commit, Header } from '../../codec/index.ts';

export interface RestBlockView {
  header: Header;
  blockId: BlockID;
  /** Every tx is a Cosmos TxRaw (DESIGN §4), in block order. */
  txs: Uint8Array[];
  lastCommit: Commit;
}

export interface RestTxResultView {
  code: number;
  codespace: string;
  log: string;
  data: Uint8Array;
  gasWanted: bigint;
  gasUsed: bigint;
  events: { type: string; attributes: { key: string; value: string; index: boolean }[] }[];
}

/** Committed chain data; heights outside [earliestHeight, latestHeight] answer undefined. */
export interface RestChainView {
  latestHeight(): number;
  earliestHeight(): number;
  block(height: number): RestBlockView | undefined;
  /** One result per tx of the block, in block order. */
  txResults(height: number): RestTxResultView[] | undefined;
  /** By the Tendermint hash (SHA-256 of the TxRaw bytes). */
  txLocation(hash: Uint8Array): { height: number; index: number } | undefined;
}

/**
 * The Cosmos SDK gRPC query services (`/cosmos.bank.v1beta1.Query/AllBalances`, …): a protobuf
 * request in, a protobuf response out, against the state after block `height`. The REST routes
 * are a JSON gateway over them, as the SDK's grpc-gateway is, so REST, gRPC and `abci_query` answer
 * from one implementation. Failures are thrown as `RestError` (see errors.ts).
 */
export type GrpcQuery = (path: string, request: Uint8Array, height: number) => Promise<Uint8Array>;

export interface RestCheckTxResult {
  code: number;
  codespace: string;
  log: string;
  /** SHA-256 of the TxRaw bytes. */
  hash: Uint8Array;
}

export interface RestTxSubmitter {
  submit(txRaw: Uint8Array): Promise<RestCheckTxResult>;
}

/** Static facts about this node for `node_info`. */
export interface RestNodeIdentity {
  nodeId: string;
  /** P2P listen address. */
  listenAddr: string;
  chainId: string;
  moniker: string;
  /** The CometBFT version the node's consensus RPC follows. */
  version: string;
  appVersion: string;
  /** The consensus RPC address (bound, else `[rpc] laddr`), reported in `other.rpc_address`. */
  rpcAddress(): string;
}

export interface RestDeps {
  identity: RestNodeIdentity;
  chain: RestChainView;
  /** The lowest height whose state is still readable (State Store pruning). */
  stateEarliestHeight(): number;
  query: GrpcQuery;
  submitter: RestTxSubmitter;
  /** True while the node is catching up with the network. */
  syncing(): boolean;
}
