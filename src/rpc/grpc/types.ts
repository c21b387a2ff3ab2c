/**
 * What the gRPC server needs from the rest of the node, as narrow interfaces. rpc/ never imports
 * storage (docs/adr/0011-layers-and-narrow-interfaces.md) nor its peers rpc/consensus and rpc/rest: node/ implements these over the same
 * adapters the consensus RPC and the REST API use (`src/node/adapters/grpc.ts`), so all three
 * interfaces answer from one view of the chain and one implementation of the query services.
 */
import type {
  CosmosBlockView,
  CosmosChainView,
  CosmosCheckTxResult,
  CosmosNodeIdentity,
  CosmosTxResultView,
  GrpcQuery,
  TxSimulate,
  TxSimulation,
} from '../codecs/cosmos.ts';

export type GrpcBlockView = CosmosBlockView;
export type GrpcTxResultView = CosmosTxResultView;
export type GrpcChainView = CosmosChainView;
export type { GrpcQuery };

/** BroadcastTx also reports the gas the tx asked for. */
export interface GrpcCheckTxResult extends CosmosCheckTxResult {
  gasWanted: bigint;
}

export interface GrpcTxSubmitter {
  submit(txRaw: Uint8Array): Promise<GrpcCheckTxResult>;
}

export type GrpcNodeIdentity = CosmosNodeIdentity;

export type GrpcSimulation = TxSimulation;

export interface GrpcDeps {
  identity: GrpcNodeIdentity;
  chain: GrpcChainView;
  /** The lowest height whose state is still readable (State Store pruning). */
  stateEarliestHeight(): number;
  query: GrpcQuery;
  submitter: GrpcTxSubmitter;
  /** Executes a signed TxRaw on a throwaway copy of the latest state (the signature is verified). */
  simulate: TxSimulate;
  /** True while the node is catching up with the network. */
  syncing(): boolean;
}
