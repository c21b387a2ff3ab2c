/** The shape of a consensus RPC route and the height rules every height-taking route shares. */
import type { Json } from './encoding.ts';
import { InvalidParamsError, RequestFailedError } from './errors.ts';
import type { Params } from './params.ts';
import type { ChainView, ConsensusRpcDeps } from './types.ts';

export interface ConsensusRpcOptions {
  /** `[rpc] lag-threshold`: `/lag_status` answers 417 when the lag exceeds it. */
  lagThreshold: number;
  /** How long `broadcast_tx_commit` waits for inclusion (CometBFT's timeout_broadcast_tx_commit). */
  broadcastTxCommitTimeoutMs: number;
  /** The address the consensus RPC is bound to, as `tcp://host:port` (node_info.other.rpc_address). */
  rpcAddress(): string;
}

export interface RouteContext {
  deps: ConsensusRpcDeps;
  options: ConsensusRpcOptions;
}

export interface Route {
  /** Parameter names in positional order (JSON-RPC arrays use it). */
  readonly params: readonly string[];
  handle(p: Params, ctx: RouteContext): Json | Promise<Json>;
}

/**
 * CometBFT's height rule: absent or 0 means the latest committed height; otherwise it must lie in
 * [earliest, latest] — the watermark, so no route serves a height some store has not finished.
 */
export function resolveHeight(chain: ChainView, requested: number | undefined, name = 'height'): number {
  const latest = chain.latestHeight();
  if (requested === undefined || requested === 0) {
    if (latest === 0) throw new RequestFailedError('no block has been committed yet');
    return latest;
  }
  if (requested < 0) throw new InvalidParamsError(`${name} must be greater than 0, but got ${requested}`);
  if (requested > latest)
    throw new RequestFailedError(
      `${name} ${requested} must be less than or equal to the current blockchain height ${latest}`,
    );
  const earliest = chain.earliestHeight();
  if (requested < earliest)
    throw new RequestFailedError(`${name} ${requested} is not available, lowest height is ${earliest}`);
  return requested;
}

/** CometBFT's paging: 1-based `page`, `per_page` defaulting to 30 and capped at 100. */
export function paging(p: Params, total: number): { skip: number; perPage: number } {
  const perPageRaw = p.int('per_page') ?? 30;
  if (perPageRaw < 1) throw new InvalidParamsError(`per_page must be positive, got ${perPageRaw}`);
  const perPage = Math.min(perPageRaw, 100);
  const pages = Math.max(1, Math.ceil(total / perPage));
  const page = p.int('page') ?? 1;
  if (page < 1 || page > pages)
    throw new InvalidParamsError(`page should be within [1, ${pages}] range, given ${page}`);
  return { skip: (page - 1) * perPage, perPage };
}
