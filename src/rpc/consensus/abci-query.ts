/**
 * `/abci_query`: `path` names a gRPC query method, `data` (hex) is its protobuf request, `height`
 * selects the state after that block (0 = latest). Like CometBFT, application-level failures come
 * back as a result with a non-zero `code` and a `log` (not as JSON-RPC errors); only malformed
 * parameters are JSON-RPC errors.
 */
import { base64, int64, type Json } from './encoding.ts';
import { InvalidParamsError } from './errors.ts';
import { GRPC_QUERIES, QueryError } from './grpc-queries.ts';
import type { Route } from './route.ts';

/** Cosmos SDK error codes (codespace "sdk") used by the query path. */
const ERR_UNKNOWN_REQUEST = 6;
const ERR_INVALID_REQUEST = 18;
const ERR_INVALID_HEIGHT = 26;

function failure(code: number, log: string, height: number): Json {
  return {
    response: {
      code,
      log,
      info: '',
      index: '0',
      key: null,
      value: null,
      proofOps: null,
      height: int64(height),
      codespace: 'sdk',
    },
  };
}

export const abciQueryRoute: Route = {
  params: ['path', 'data', 'height', 'prove'],
  handle: async (p, { deps }) => {
    const path = p.string('path') ?? '';
    const data = p.hexBytes('data') ?? new Uint8Array(0);
    const requested = p.int('height') ?? 0;
    if (requested < 0) throw new InvalidParamsError(`height must be non-negative, got ${requested}`);
    const latest = deps.chain.latestHeight();
    const height = requested === 0 ? latest : requested;
    const handler = GRPC_QUERIES.get(path);
    if (!handler) return failure(ERR_UNKNOWN_REQUEST, `unknown query path: ${path}: unknown request`, height);
    // The SDK's gRPC query bridge serves no proofs (only /store paths do, which are not served here).
    if (p.bool('prove'))
      return failure(
        ERR_INVALID_REQUEST,
        `proofs are not served for gRPC query path ${path}: invalid request`,
        height,
      );
    if (height > latest)
      return failure(
        ERR_INVALID_HEIGHT,
        `cannot query with height in the future; please provide a valid height: invalid height`,
        height,
      );
    const earliest = deps.state.earliestHeight();
    if (height < earliest)
      return failure(
        ERR_INVALID_HEIGHT,
        `failed to load state at height ${height}; version does not exist (earliest height: ${earliest}): invalid height`,
        height,
      );
    try {
      const value = await handler(data, deps.state, height);
      return {
        response: {
          code: 0,
          log: '',
          info: '',
          index: '0',
          key: null,
          value: base64(value),
          proofOps: null,
          height: int64(height),
          codespace: '',
        },
      };
    } catch (err) {
      if (err instanceof QueryError) return failure(err.abciCode, err.message, height);
      throw err;
    }
  },
};
