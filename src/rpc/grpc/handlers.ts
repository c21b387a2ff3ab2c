/**
 * One handler per served method, by path. The module queries (bank, auth, staking) are the node's
 * query services (`deps.query`, the implementation `/abci_query` and REST answer from) at the height
 * the metadata selects; the tendermint and tx services read committed chain data, submit txs and
 * simulate them.
 */
import { status } from '@grpc/grpc-js';
import {
  BroadcastMode,
  type BroadcastTxRequest,
  type GetTxRequest,
  type GetTxsEventRequest,
  OrderBy,
  type SimulateRequest,
} from 'cosmjs-types/cosmos/tx/v1beta1/service';
import type { GetBlockByHeightRequest } from 'cosmjs-types/cosmos/base/tendermint/v1beta1/query';
import { txHash } from '../../codec/index.ts';
import { simulateResponseOf, simulationFailure } from '../codecs/cosmos.ts';
import { searchTxs, TxQueryError } from '../codecs/tx-search.ts';
import type { Logger } from '../../util/logger.ts';
import { errorMessage } from '../../util/errors.ts';
import { GrpcStatusError, invalidArgument, notFound } from './errors.ts';
import { queryHeight } from './height.ts';
import { blockResponse, checkTxResponse, nodeInfoResponse, txOf, txResponse } from './proto.ts';
import { type MethodSpec, methodPath, SERVICES, type ServiceSpec } from './services.ts';
import type { GrpcDeps } from './types.ts';

export interface CallContext {
  deps: GrpcDeps;
  /** Values of the `x-cosmos-block-height` request metadata. */
  heightHeader: (string | Buffer)[];
  logger: Logger;
}

/** The response message and, for state queries, the height it was read at (echoed as metadata). */
export type Handler = (request: any, ctx: CallContext) => Promise<{ response: unknown; height?: number }>;

/** The SDK's default page size (query.DefaultLimit). */
const DEFAULT_PAGE_LIMIT = 100;

const QUERY_SERVICES = new Set([
  'cosmos.bank.v1beta1.Query',
  'cosmos.auth.v1beta1.Query',
  'cosmos.staking.v1beta1.Query',
  'cosmos.slashing.v1beta1.Query',
]);

function queryHandler(service: ServiceSpec, method: MethodSpec): Handler {
  const path = methodPath(service, method);
  return async (request, { deps, heightHeader }) => {
    const height = queryHeight(heightHeader, deps);
    const out = await deps.query(path, method.request.encode(request).finish(), height);
    return { response: method.response.decode(out), height };
  };
}

async function blockAt(deps: GrpcDeps, height: number) {
  const latest = deps.chain.latestHeight();
  // The SDK's wording for a height past the chain, so clients matching on it keep working.
  if (height > latest)
    throw invalidArgument(
      `requested block height is bigger then the chain length: height ${height}, latest ${latest}`,
    );
  const block = deps.chain.engineBlock ? await deps.chain.engineBlock(height) : deps.chain.block(height);
  if (!block)
    throw invalidArgument(
      `block at height ${height} is not available: the node keeps heights ${deps.chain.earliestHeight()} to ${latest}`,
    );
  return blockResponse(block);
}

const CHAIN_HANDLERS: Record<string, Handler> = {
  '/cosmos.base.tendermint.v1beta1.Service/GetNodeInfo': async (_r, { deps }) => ({
    response: nodeInfoResponse(deps.identity),
  }),
  '/cosmos.base.tendermint.v1beta1.Service/GetSyncing': async (_r, { deps }) => ({
    response: { syncing: deps.syncing() },
  }),
  '/cosmos.base.tendermint.v1beta1.Service/GetLatestBlock': async (_r, { deps }) => ({
    response: await blockAt(deps, deps.chain.latestHeight()),
  }),
  '/cosmos.base.tendermint.v1beta1.Service/GetBlockByHeight': async (
    r: GetBlockByHeightRequest,
    { deps },
  ) => {
    if (r.height > BigInt(Number.MAX_SAFE_INTEGER) || r.height < 0n)
      throw invalidArgument(`height ${r.height} is out of range`);
    return { response: await blockAt(deps, Number(r.height)) };
  },

  '/cosmos.tx.v1beta1.Service/BroadcastTx': async (r: BroadcastTxRequest, { deps, logger }) => {
    if (r.txBytes.length === 0) throw invalidArgument('invalid empty tx');
    if (r.mode === BroadcastMode.BROADCAST_MODE_ASYNC) {
      // Like CometBFT's broadcast_tx_async: the answer does not wait for the mempool's check.
      deps.submitter
        .submit(r.txBytes)
        .catch((err) => logger.error({ err: errorMessage(err) }, 'async broadcast failed'));
      return {
        response: {
          txResponse: checkTxResponse({ code: 0, codespace: '', log: '', hash: txHash(r.txBytes) }),
        },
      };
    }
    if (r.mode === BroadcastMode.BROADCAST_MODE_BLOCK)
      throw invalidArgument(
        'BROADCAST_MODE_BLOCK is not supported (removed in Cosmos SDK v0.47): broadcast with BROADCAST_MODE_SYNC and query the tx by hash',
      );
    if (r.mode !== BroadcastMode.BROADCAST_MODE_SYNC)
      throw invalidArgument(
        `unsupported broadcast mode ${r.mode}; supported: BROADCAST_MODE_SYNC (2), BROADCAST_MODE_ASYNC (3)`,
      );
    return { response: { txResponse: checkTxResponse(await deps.submitter.submit(r.txBytes)) } };
  },

  '/cosmos.tx.v1beta1.Service/GetTx': async (r: GetTxRequest, { deps }) => {
    if (!/^[0-9a-fA-F]{64}$/.test(r.hash))
      throw invalidArgument(`tx hash ${JSON.stringify(r.hash)} is not 32 bytes of hex`);
    const chain = deps.chain;
    const loc = chain.txLocation(new Uint8Array(Buffer.from(r.hash, 'hex')));
    const block = loc && chain.block(loc.height);
    const result = loc && chain.txResults(loc.height)?.[loc.index];
    const raw = loc && block?.txs[loc.index];
    if (!loc || !block || !result || !raw) throw notFound(`tx not found: ${r.hash.toUpperCase()}`);
    const tx = txOf(raw);
    return { response: { tx, txResponse: txResponse(raw, tx, loc.height, block.header.time, result) } };
  },

  '/cosmos.tx.v1beta1.Service/GetTxsEvent': async (r: GetTxsEventRequest, { deps }) => {
    // `events` (joined by AND) is what clients before SDK v0.50 send instead of `query`
    const query = r.query || r.events.join(' AND ');
    if (query === '') throw invalidArgument('query cannot be empty');
    if (r.page > BigInt(Number.MAX_SAFE_INTEGER) || r.limit > BigInt(Number.MAX_SAFE_INTEGER))
      throw invalidArgument('page and limit must be safe integers');
    const page = r.page === 0n ? 1 : Number(r.page);
    const limit = r.limit === 0n ? DEFAULT_PAGE_LIMIT : Number(r.limit);
    if (
      r.orderBy !== OrderBy.ORDER_BY_UNSPECIFIED &&
      r.orderBy !== OrderBy.ORDER_BY_ASC &&
      r.orderBy !== OrderBy.ORDER_BY_DESC
    )
      throw invalidArgument(`unknown order_by ${r.orderBy}`);
    const chain = deps.chain;
    let found;
    try {
      found = searchTxs(chain, query, r.orderBy === OrderBy.ORDER_BY_DESC ? 'desc' : 'asc');
    } catch (err) {
      if (err instanceof TxQueryError) throw invalidArgument(err.message);
      throw err;
    }
    const txs = [];
    const txResponses = [];
    for (const loc of found.slice((page - 1) * limit, page * limit)) {
      const block = chain.block(loc.height);
      const raw = block?.txs[loc.index];
      const result = chain.txResults(loc.height)?.[loc.index];
      if (!block || !raw || !result) continue;
      const tx = txOf(raw);
      txs.push(tx);
      txResponses.push(txResponse(raw, tx, loc.height, block.header.time, result));
    }
    return { response: { txs, txResponses, total: BigInt(found.length) } };
  },

  '/cosmos.tx.v1beta1.Service/Simulate': async (r: SimulateRequest, { deps }) => {
    // The deprecated `tx` field would need re-encoding the signed bytes exactly; the SDK prefers tx_bytes.
    if (r.txBytes.length === 0)
      throw invalidArgument('empty txBytes is not allowed: send the signed TxRaw in tx_bytes');
    const s = deps.simulate(r.txBytes);
    if (s.code !== 0) throw new GrpcStatusError(status.UNKNOWN, simulationFailure(s));
    return { response: simulateResponseOf(s) };
  },
};

/** Every method of SERVICES, by path; a method without a handler is a programming error. */
export function handlers(): Map<string, Handler> {
  const out = new Map<string, Handler>();
  for (const service of SERVICES)
    for (const method of service.methods) {
      const path = methodPath(service, method);
      const h = QUERY_SERVICES.has(service.name) ? queryHandler(service, method) : CHAIN_HANDLERS[path];
      if (!h) throw new Error(`no handler for ${path}`);
      out.set(path, h);
    }
  return out;
}
