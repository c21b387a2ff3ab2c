/**
 * What the REST API needs from the rest of the node, as narrow interfaces. rpc/ never imports
 * storage (docs/adr/0011-layers-and-narrow-interfaces.md) nor its peer rpc/consensus: node/ implements these over the same adapters the
 * consensus RPC uses (`src/node/adapters/rest.ts`), so both interfaces read one view of the chain.
 * Everything here is domain data (bytes, numbers, bigints); the JSON encoding lives in `json.ts`.
 */
import type {
  CosmosBlockView,
  CosmosChainView,
  CosmosCheckTxResult,
  CosmosNodeIdentity,
  CosmosTxResultView,
  GrpcQuery,
  TxSimulate,
} from '../codecs/cosmos.ts';

export type RestBlockView = CosmosBlockView;
export type RestTxResultView = CosmosTxResultView;
export type RestChainView = CosmosChainView;
export type RestCheckTxResult = CosmosCheckTxResult;
export type { GrpcQuery };

export interface RestTxSubmitter {
  submit(txRaw: Uint8Array): Promise<RestCheckTxResult>;
}

export type RestNodeIdentity = CosmosNodeIdentity;

export interface RestDeps {
  identity: RestNodeIdentity;
  chain: RestChainView;
  /** The lowest height whose state is still readable (State Store pruning). */
  stateEarliestHeight(): number;
  query: GrpcQuery;
  submitter: RestTxSubmitter;
  /** The tx service's Simulate (the one gRPC and abci_query answer with). */
  simulate: TxSimulate;
  /** True while the node is catching up with the network. */
  syncing(): boolean;
}
