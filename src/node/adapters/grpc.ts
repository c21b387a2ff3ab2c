/**
 * The gRPC server's interfaces (src/rpc/grpc/types.ts) over the consensus RPC's adapters: the same
 * chain view, State Store view and tx submitter, and the query services `/abci_query` and REST
 * answer from (GRPC_QUERIES). rpc/grpc may not import its peers rpc/consensus or rpc/rest, so node/
 * joins them here. TotalSupply is not among GRPC_QUERIES, so it is answered here from the bank
 * module's supply listing.
 */
import { status } from '@grpc/grpc-js';
import { QueryTotalSupplyRequest, QueryTotalSupplyResponse } from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { listSupplies } from '../../app/bank.ts';
import { GRPC_QUERIES, type QueryHandler, QueryError, rangesAt } from '../../rpc/consensus/grpc-queries.ts';
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

/** Every denom's supply, in denom order, all in one page. */
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
  const supply = (await listSupplies(rangesAt(state, height))).map((s) => ({
    denom: s.denom,
    amount: s.amount.toString(),
  }));
  return QueryTotalSupplyResponse.encode({
    supply,
    pagination: { nextKey: new Uint8Array(0), total: BigInt(supply.length) },
  }).finish();
};

const QUERIES: ReadonlyMap<string, QueryHandler> = new Map([
  ...GRPC_QUERIES,
  ['/cosmos.bank.v1beta1.Query/TotalSupply', totalSupply],
]);

export function grpcDeps(c: ConsensusRpcDeps, rpcAddress: () => string): GrpcDeps {
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
    simulate: c.simulate,
    // As /status reports catching_up: catching up, or halted (the engine's health).
    syncing: () => notCurrent(c.sync()),
  };
}
