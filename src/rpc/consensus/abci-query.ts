/**
 * `/abci_query`: `path` names a gRPC query method, `data` (hex) is its protobuf request, `height`
 * selects the state after that block (0 = latest). Like CometBFT, application-level failures come
 * back as a result with a non-zero `code` and a `log` (not as JSON-RPC errors); only malformed
 * parameters are JSON-RPC errors.
 */
import { SimulateRequest, SimulateResponse } from 'cosmjs-types/cosmos/tx/v1beta1/service';
import { SIMULATE_PATH, simulateResponseOf, simulationFailure } from '../codecs/cosmos.ts';
import { base64, int64 } from './encoding.ts';
import { InvalidParamsError } from './errors.ts';
import { GRPC_QUERIES, QueryError } from './grpc-queries.ts';
import type { Route } from './route.ts';
import type { ChainView, ConsensusRpcDeps } from './types.ts';

/** Cosmos SDK error codes (codespace "sdk") used by the query path. */
const ERR_UNKNOWN_REQUEST = 6;
const ERR_INVALID_REQUEST = 18;
const ERR_INVALID_HEIGHT = 26;

/** The outcome of one query, as CometBFT's ResponseQuery carries it. */
export interface AbciQueryAnswer {
  code: number;
  log: string;
  /** The protobuf response on success. */
  value?: Uint8Array;
  height: number;
  codespace: string;
}

export interface AbciQueryRequest {
  path: string;
  data: Uint8Array;
  /** 0 = latest */
  height: number;
  prove: boolean;
}

const failure = (code: number, log: string, height: number): AbciQueryAnswer => ({
  code,
  log,
  height,
  codespace: 'sdk',
});

/** What a query reads: the latest height, the state at a height, and Simulate. */
export type AbciQueryDeps = Pick<ConsensusRpcDeps, 'state' | 'simulate'> & {
  chain: Pick<ChainView, 'latestHeight'>;
};

/**
 * Answers a query over the Cosmos gRPC query paths: the consensus RPC's `/abci_query` and, in network
 * mode, CometBFT's ABCI Query (so both give the same answers).
 */
export async function answerAbciQuery(deps: AbciQueryDeps, q: AbciQueryRequest): Promise<AbciQueryAnswer> {
  const latest = deps.chain.latestHeight();
  const height = q.height === 0 ? latest : q.height;
  if (q.path === SIMULATE_PATH) return simulateQuery(deps, q.data, latest);
  const handler = GRPC_QUERIES.get(q.path);
  if (!handler) return failure(ERR_UNKNOWN_REQUEST, `unknown query path: ${q.path}: unknown request`, height);
  // The SDK's gRPC query bridge serves no proofs (only /store paths do, which are not served here).
  if (q.prove)
    return failure(
      ERR_INVALID_REQUEST,
      `proofs are not served for gRPC query path ${q.path}: invalid request`,
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
    return { code: 0, log: '', value: await handler(q.data, deps.state, height), height, codespace: '' };
  } catch (err) {
    if (err instanceof QueryError) return failure(err.abciCode, err.message, height);
    throw err;
  }
}

/**
 * The tx service's Simulate through ABCI Query, as the SDK's gRPC query router answers it: on the
 * latest state, and a failure as its gRPC status folded into an sdk error (Unknown → unknown request,
 * InvalidArgument → invalid request) with the status in the log.
 */
function simulateQuery(
  deps: Pick<ConsensusRpcDeps, 'simulate'>,
  data: Uint8Array,
  height: number,
): AbciQueryAnswer {
  let req: SimulateRequest;
  try {
    req = SimulateRequest.decode(data);
  } catch (err) {
    return failure(
      ERR_INVALID_REQUEST,
      `rpc error: code = InvalidArgument desc = failed to decode request: ${(err as Error).message}: invalid request`,
      height,
    );
  }
  if (req.txBytes.length === 0)
    return failure(
      ERR_INVALID_REQUEST,
      'rpc error: code = InvalidArgument desc = empty txBytes is not allowed: send the signed TxRaw in tx_bytes: invalid request',
      height,
    );
  const s = deps.simulate(req.txBytes);
  if (s.code !== 0)
    return failure(
      ERR_UNKNOWN_REQUEST,
      `rpc error: code = Unknown desc = ${simulationFailure(s)}: unknown request`,
      height,
    );
  const value = SimulateResponse.encode(simulateResponseOf(s)).finish();
  return { code: 0, log: '', value, height, codespace: '' };
}

export const abciQueryRoute: Route = {
  params: ['path', 'data', 'height', 'prove'],
  handle: async (p, { deps }) => {
    const requested = p.int('height') ?? 0;
    if (requested < 0) throw new InvalidParamsError(`height must be non-negative, got ${requested}`);
    const a = await answerAbciQuery(deps, {
      path: p.string('path') ?? '',
      data: p.hexBytes('data') ?? new Uint8Array(0),
      height: requested,
      prove: p.bool('prove') ?? false,
    });
    return {
      response: {
        code: a.code,
        log: a.log,
        info: '',
        index: '0',
        key: null,
        value: a.value ? base64(a.value) : null,
        proofOps: null,
        height: int64(a.height),
        codespace: a.codespace,
      },
    };
  },
};
