/**
 * The gRPC server's interfaces (src/rpc/grpc/types.ts) over the consensus RPC's adapters: the same
 * chain view, State Store view and tx submitter, and the query services `/abci_query` and REST
 * answer from (GRPC_QUERIES). rpc/grpc may not import its peers rpc/consensus or rpc/rest, so node/
 * joins them here. TotalSupply is not among GRPC_QUERIES, so it is answered here from the bank
 * module's supply keys; Simulate executes through the app's DeliverTx on a throwaway overlay.
 */
import { status } from '@grpc/grpc-js';
import { QueryTotalSupplyRequest, QueryTotalSupplyResponse } from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { deliverCosmosTx } from '../../app/cosmos-deliver.ts';
import { CosmosTxError } from '../../app/cosmos-errors.ts';
import { decodeCosmosTx } from '../../app/cosmos-tx.ts';
import { bankKeys, STORES } from '../../app/store-keys.ts';
import { type StateReader, StateOverlay } from '../../state/overlay.ts';
import { fromUtf8 } from '../../primitives/bytes.ts';
import { GRPC_QUERIES, type QueryHandler, QueryError } from '../../rpc/consensus/grpc-queries.ts';
import { notCurrent } from '../../rpc/consensus/routes-info.ts';
import type { ConsensusRpcDeps, StateView } from '../../rpc/consensus/types.ts';
import { GrpcStatusError } from '../../rpc/grpc/errors.ts';
import type { GrpcDeps } from '../../rpc/grpc/types.ts';

/** sdk error codes the query services raise → the gRPC codes the SDK's handlers return. */
const GRPC_CODE_OF_SDK: Record<number, status> = {
  18: status.INVALID_ARGUMENT, // ErrInvalidRequest
  22: status.NOT_FOUND, // ErrKeyNotFound
};

/**
 * A QueryError carries the message as it travels through ABCI
 * ("rpc error: code = NotFound desc = account X not found: key not found"); a gRPC client sees only
 * the status message ("account X not found"), so the wrapping is removed.
 */
function grpcErrorOf(e: QueryError): GrpcStatusError {
  const code = GRPC_CODE_OF_SDK[e.abciCode] ?? status.UNKNOWN;
  const m = /^rpc error: code = \w+ desc = (.*?)(?:: (?:invalid request|key not found))?$/s.exec(e.message);
  return new GrpcStatusError(code, m ? m[1] : e.message);
}

/** Every denom's supply (the bank module's `0x00 ‖ denom` keys), in denom order, all in one page. */
const totalSupply: QueryHandler = async (bytes, state: StateView, height) => {
  let req: QueryTotalSupplyRequest;
  try {
    req = QueryTotalSupplyRequest.decode(bytes);
  } catch (err) {
    throw new GrpcStatusError(status.INVALID_ARGUMENT, `failed to decode request: ${(err as Error).message}`);
  }
  if (req.pagination && (req.pagination.key.length > 0 || req.pagination.offset > 0n))
    throw new GrpcStatusError(
      status.INVALID_ARGUMENT,
      'pagination of the total supply is not supported: it fits one page',
    );
  const prefix = bankKeys.supply('');
  const end = Uint8Array.of(prefix[0] + 1);
  const supply: { denom: string; amount: string }[] = [];
  for await (const e of state.range(STORES.bank, prefix, end, height))
    supply.push({ denom: fromUtf8(e.key.subarray(prefix.length)), amount: fromUtf8(e.value) });
  return QueryTotalSupplyResponse.encode({
    supply,
    pagination: { nextKey: new Uint8Array(0), total: BigInt(supply.length) },
  }).finish();
};

const QUERIES: ReadonlyMap<string, QueryHandler> = new Map([
  ...GRPC_QUERIES,
  ['/cosmos.bank.v1beta1.Query/TotalSupply', totalSupply],
]);

/** What Simulate executes against: the latest committed state and the block's context. */
export interface SimulationSource {
  state(): StateReader;
  chainId: string;
  maxBlockGas(): bigint;
}

/**
 * Runs the tx as block execution would (ante checks, fee, sequence, messages) on an overlay that is
 * dropped afterwards, so the chain's state is untouched. The signature is verified like in a block:
 * a tx signed for simulation with an empty signature (CosmJS's way) is refused.
 */
function simulator(src: SimulationSource): GrpcDeps['simulate'] {
  return (raw) => {
    let gasWanted = 0n;
    try {
      const tx = decodeCosmosTx(raw);
      gasWanted = tx.gasLimit;
      const ctx = { chainId: src.chainId, maxBlockGas: src.maxBlockGas() };
      return deliverCosmosTx(tx, new StateOverlay(src.state()), ctx);
    } catch (err) {
      if (!(err instanceof CosmosTxError)) throw err;
      // Ante failures consume nothing the block would keep: gas used 0, as the tx is not includable.
      return {
        code: err.abciCode,
        codespace: err.codespace,
        log: err.message,
        gasWanted,
        gasUsed: 0n,
        events: [],
      };
    }
  };
}

export function grpcDeps(c: ConsensusRpcDeps, rpcAddress: () => string, sim: SimulationSource): GrpcDeps {
  return {
    identity: { ...c.identity, rpcAddress },
    chain: c.chain,
    stateEarliestHeight: () => c.state.earliestHeight(),
    query: async (path, request, height) => {
      const handler = QUERIES.get(path);
      if (!handler) throw new GrpcStatusError(status.UNIMPLEMENTED, `unknown query service method ${path}`);
      try {
        return await handler(request, c.state, height);
      } catch (err) {
        if (err instanceof QueryError) throw grpcErrorOf(err);
        throw err;
      }
    },
    submitter: c.submitter,
    simulate: simulator(sim),
    // As /status reports catching_up: catching up, or halted (the engine's health).
    syncing: () => notCurrent(c.sync()),
  };
}
