/**
 * What the Cosmos-facing servers (REST and gRPC) read from the node, and the one rule for the
 * `x-cosmos-block-height` header they share. rpc/rest and rpc/grpc are peers that may not import each
 * other, so their common interfaces live here, one layer below both; node/ implements them once.
 */
import type { BlockID, Commit, Header } from '../../codec/index.ts';
import { ChainError } from '../../util/errors.ts';
import type { TxEventIndex } from './tx-search.ts';

export interface CosmosBlockView {
  header: Header;
  blockId: BlockID;
  /** Every tx is a Cosmos TxRaw (docs/adr/0012-every-tx-is-a-cosmos-txraw.md), in block order. */
  txs: Uint8Array[];
  lastCommit: Commit;
}

export interface CosmosTxResultView {
  code: number;
  codespace: string;
  log: string;
  data: Uint8Array;
  gasWanted: bigint;
  gasUsed: bigint;
  events: { type: string; attributes: { key: string; value: string; index: boolean }[] }[];
}

/** Committed chain data; heights outside [earliestHeight, latestHeight] answer undefined. */
export interface CosmosChainView {
  latestHeight(): number;
  earliestHeight(): number;
  block(height: number): CosmosBlockView | undefined;
  /**
   * Network mode: the block as the consensus engine stores it (whole header, last commit with its
   * signatures), which the block endpoints answer with instead of the stored copy.
   */
  engineBlock?(height: number): Promise<CosmosBlockView | undefined>;
  /** One result per tx of the block, in block order. */
  txResults(height: number): CosmosTxResultView[] | undefined;
  /** By the Tendermint hash (SHA-256 of the TxRaw bytes). */
  txLocation(hash: Uint8Array): { height: number; index: number } | undefined;
  /** The block store's event index, which tx search reads (tx-search.ts). */
  eventIndex?: TxEventIndex;
}

/**
 * The Cosmos SDK gRPC query services (`/cosmos.bank.v1beta1.Query/AllBalances`, …): a protobuf
 * request in, a protobuf response out, against the state after block `height`. REST is a JSON
 * gateway over them (as the SDK's grpc-gateway is), so REST, gRPC and `abci_query` answer from one
 * implementation. Each server maps the failures to its own error shape.
 */
export type GrpcQuery = (path: string, request: Uint8Array, height: number) => Promise<Uint8Array>;

export interface CosmosCheckTxResult {
  code: number;
  codespace: string;
  log: string;
  /** SHA-256 of the TxRaw bytes. */
  hash: Uint8Array;
}

/** Static facts about this node for node-info answers. */
export interface CosmosNodeIdentity {
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

export const HEIGHT_HEADER = 'x-cosmos-block-height';

/** A height header the node cannot answer; each server reports it as its invalid-argument error. */
export class QueryHeightError extends ChainError {
  constructor(message: string) {
    super('QUERY_HEIGHT', message);
  }
}

/**
 * The height a state query reads, as the Cosmos SDK decides it: the header, or the latest committed
 * height when absent or 0. Heights above the latest or below what the State Store still keeps are
 * refused, not silently answered from another height.
 */
export function queryHeightOf(value: string | undefined, latest: number, earliest: () => number): number {
  if (value === undefined) return latest;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new QueryHeightError(
      `invalid height header ${JSON.stringify(HEIGHT_HEADER)}: ${JSON.stringify(value)} is not a non-negative integer`,
    );
  }
  const height = Number(value);
  if (height === 0) return latest;
  if (height > latest) {
    throw new QueryHeightError(
      `cannot query with height in the future; please provide a valid height: height ${height} is above the latest height ${latest}`,
    );
  }
  const first = earliest();
  if (height < first) {
    throw new QueryHeightError(
      `failed to load state at height ${height}; version does not exist (earliest height: ${first})`,
    );
  }
  return height;
}

/** The outcome of executing a tx against the latest state without keeping its effects. */
export interface TxSimulation {
  code: number;
  codespace: string;
  log: string;
  gasWanted: bigint;
  gasUsed: bigint;
  events: { type: string; attributes: { key: string; value: string; index: boolean }[] }[];
}

/**
 * Executes a TxRaw on a throwaway copy of the latest state: the tx service's Simulate, which gRPC,
 * REST (`POST /cosmos/tx/v1beta1/simulate`) and `abci_query` (`/cosmos.tx.v1beta1.Service/Simulate`)
 * all answer with.
 */
export type TxSimulate = (txRaw: Uint8Array) => TxSimulation;

export const SIMULATE_PATH = '/cosmos.tx.v1beta1.Service/Simulate';

/** The SDK's wording for a failed simulation (clients parse the gas out of it). */
export function simulationFailure(s: TxSimulation): string {
  return `${s.log} With gas wanted: '${s.gasWanted}' and gas used: '${s.gasUsed}' `;
}

/** A successful simulation as cosmos.tx.v1beta1.SimulateResponse's fields. */
export function simulateResponseOf(s: TxSimulation) {
  return {
    gasInfo: { gasWanted: s.gasWanted, gasUsed: s.gasUsed },
    result: { data: new Uint8Array(0), log: '', events: s.events, msgResponses: [] },
  };
}
