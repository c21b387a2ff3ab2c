/**
 * The REST API's interfaces (src/rpc/rest/types.ts) over the consensus RPC's adapters: the same
 * chain view, State Store view and tx submitter, and the same gRPC query services `/abci_query`
 * answers from. rpc/rest may not import its peer rpc/consensus, so node/ joins them here.
 */
import { GRPC_QUERIES, QueryError } from '../../rpc/consensus/grpc-queries.ts';
import { notCurrent } from '../../rpc/consensus/routes-info.ts';
import type { ConsensusRpcDeps } from '../../rpc/consensus/types.ts';
import { GrpcCode, RestError } from '../../rpc/rest/errors.ts';
import type { RestDeps } from '../../rpc/rest/types.ts';

/** sdk error codes the query services raise → the gRPC codes the SDK's handlers return. */
const GRPC_CODE_OF_SDK: Record<number, GrpcCode> = {
  18: GrpcCode.INVALID_ARGUMENT, // ErrInvalidRequest
  22: GrpcCode.NOT_FOUND, // ErrKeyNotFound
};

/**
 * A QueryError carries the message as it travels through ABCI
 * ("rpc error: code = NotFound desc = account X not found: key not found"); a gateway client sees
 * only the gRPC status message ("account X not found"), so the wrapping is removed.
 */
function restErrorOf(e: QueryError): RestError {
  const code = GRPC_CODE_OF_SDK[e.abciCode] ?? GrpcCode.UNKNOWN;
  const m = /^rpc error: code = \w+ desc = (.*?)(?:: (?:invalid request|key not found))?$/s.exec(e.message);
  return new RestError(code, m ? m[1] : e.message);
}

export function restDeps(c: ConsensusRpcDeps, rpcAddress: () => string): RestDeps {
  return {
    identity: { ...c.identity, rpcAddress },
    chain: c.chain,
    stateEarliestHeight: () => c.state.earliestHeight(),
    query: async (path, request, height) => {
      const handler = GRPC_QUERIES.get(path);
      if (!handler) throw new RestError(GrpcCode.UNIMPLEMENTED, `unknown query service method ${path}`);
      try {
        return await handler(request, c.state, height);
      } catch (err) {
        if (err instanceof QueryError) throw restErrorOf(err);
        throw err;
      }
    },
    submitter: c.submitter,
    simulate: c.simulate,
    // As /status reports catching_up: catching up, or halted (the engine's health).
    syncing: () => notCurrent(c.sync()),
  };
}
