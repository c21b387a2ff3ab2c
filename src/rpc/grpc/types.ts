/**
 * What the gRPC server needs from the rest of the node, as narrow interfaces. rpc/ never imports
 * storage (DESIGN §3) nor its peers rpc/consensus and rpc/rest: node/ implements these over the same
 * adapters the consensus RPC and the REST API use (`src/node/grpc-adapters.ts`), so all three
 * interfaces answer from one view of the chain and one implementation of the query services.
 */
import type { BlockID, Commit, Header } from '../../codec/index.ts';

export interface GrpcBlockView {
  header: Header;
  blockId: BlockID;
  /** Every tx is a Cosmos TxRaw (DESIGN §4), in block order. */
  txs: Uint8Array[];
  lastCommit: Commit;
}

export interface GrpcTxResultView {
  code: number;
  codespace: string;
  log: string;
  data: Uint8Array;
  gasWanted: bigint;
  gasUsed: bigint;
  events: { type: string; attributes: { key: string; value: string; index: boolean }[] }[];
}

/** Committed chain data; heights outside [earliestHeight, latestHeight] answer undefined. */
export interface GrpcChainView {
  latestHeight(): number;
  earliestHeight(): number;
  block(height: number): GrpcBlockView | undefined;
  /** One result per tx of the block, in block order. */
  txResults(height: number): GrpcTxResultView[] | undefined;
  /** By the Tendermint hash (SHA-256 of the TxRaw bytes). */
  txLocation(hash: Uint8Array): { height: number; index: number } | undefined;
}

/**
 * A Cosmos SDK query service method (`/cosmos.bank.v1beta1.Query/AllBalances`, …): protobuf request
 * in, protobuf response out, against the state after block `height`. Failures are thrown as
 * `GrpcStatusError` (errors.ts).
 */
export type GrpcQuery = (path: string, request: Uint8Array, height: number) => Promise<Uint8Array>;

export interface GrpcCheckTxResult {
  code: number;
  codespace: string;
  log: string;
  /** SHA-256 of the TxRaw bytes. */
  hash: Uint8Array;
  gasWanted: bigint;
}

export interface GrpcTxSubmitter {
  submit(txRaw: Uint8Array): Promise<GrpcCheckTxResult>;
}

/** Static facts about this node for GetNodeInfo. */
export interface GrpcNodeIdentity {
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

/** The outcome of executing a tx against the latest state without keeping its effects. */
export interface GrpcSimulation {
  code: number;
  codespace: string;
  log: string;
  gasWanted: bigint;
  gasUsed: bigint;
  events: { type: string; attributes: { key: string; value: string; index: boolean }[] }[];
}

export interface GrpcDeps {
  identity: GrpcNodeIdentity;
  chain: GrpcChainView;
  /** The lowest height whose state is still readable (State Store pruning). */
  stateEarliestHeight(): number;
  query: GrpcQuery;
  submitter: GrpcTxSubmitter;
  /** Executes a signed TxRaw on a throwaway copy of the latest state (the signature is verified). */
  simulate(txRaw: Uint8Array): GrpcSimulation;
  /** True while the node is catching up with the network. */
  syncing(): boolean;
}
