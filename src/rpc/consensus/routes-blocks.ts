/** Block routes: `/block`, `/block_by_hash`, `/block_results`, `/blockchain`, `/commit`. */
import {
  base64,
  blockIdJson,
  blockJson,
  blockMetaJson,
  commitJson,
  headerJson,
  int64,
  type Json,
  txResultJson,
} from './encoding.ts';
import { InvalidParamsError, RequestFailedError } from './errors.ts';
import { resolveHeight, type Route } from './route.ts';
import type { BlockView, ChainView } from './types.ts';

/** CometBFT's /blockchain returns at most this many block metas. */
const BLOCKCHAIN_LIMIT = 20;

function blockAt(chain: ChainView, height: number): BlockView {
  const b = chain.block(height);
  // resolveHeight checked the range, so a miss means the block was pruned in between.
  if (!b) throw new RequestFailedError(`block ${height} is not available`);
  return b;
}

const EMPTY_BLOCK_ID_JSON: Json = { hash: '', parts: { total: 0, hash: '' } };

export const blockRoutes: Record<string, Route> = {
  block: {
    params: ['height'],
    handle: (p, { deps }) => {
      const b = blockAt(deps.chain, resolveHeight(deps.chain, p.int('height')));
      return { block_id: blockIdJson(b.blockId), block: blockJson(b) };
    },
  },

  block_by_hash: {
    params: ['hash'],
    handle: (p, { deps }) => {
      const hash = p.bytes('hash');
      if (!hash) throw new InvalidParamsError('hash is required');
      if (hash.length !== 32) throw new InvalidParamsError(`hash must be 32 bytes, got ${hash.length}`);
      const height = deps.chain.heightByHash(hash);
      const b = height === undefined ? undefined : deps.chain.block(height);
      // CometBFT answers an unknown hash with an empty result rather than an error.
      if (!b) return { block_id: EMPTY_BLOCK_ID_JSON, block: null };
      return { block_id: blockIdJson(b.blockId), block: blockJson(b) };
    },
  },

  block_results: {
    params: ['height'],
    handle: (p, { deps }) => {
      const height = resolveHeight(deps.chain, p.int('height'));
      const results = deps.chain.txResults(height);
      if (!results) throw new RequestFailedError(`results of block ${height} are not available`);
      const appHash = deps.chain.appHashAfter(height);
      return {
        height: int64(height),
        txs_results: results.length > 0 ? results.map(txResultJson) : null,
        finalize_block_events: [],
        validator_updates: [],
        consensus_param_updates: null,
        app_hash: appHash ? base64(appHash) : '',
      };
    },
  },

  blockchain: {
    params: ['minHeight', 'maxHeight'],
    handle: (p, { deps }) => {
      const chain = deps.chain;
      const latest = chain.latestHeight();
      const earliest = latest > 0 ? chain.earliestHeight() : 0;
      let min = p.int('minHeight') ?? 0;
      let max = p.int('maxHeight') ?? 0;
      if (min < 0 || max < 0) throw new InvalidParamsError('heights must be non-negative');
      // CometBFT's filterMinMax: 0 means unbounded; clamp to what is stored; at most 20, newest first.
      if (max === 0) max = latest;
      if (min === 0) min = earliest;
      if (min > max)
        throw new InvalidParamsError(`min height ${min} can't be greater than max height ${max}`);
      max = Math.min(max, latest);
      min = Math.max(min, earliest, max - BLOCKCHAIN_LIMIT + 1);
      const metas: Json[] = [];
      for (let h = max; h >= min && h >= 1; h--) metas.push(blockMetaJson(blockAt(chain, h)));
      return { last_height: int64(latest), block_metas: metas };
    },
  },

  commit: {
    params: ['height'],
    handle: (p, { deps }) => {
      const height = resolveHeight(deps.chain, p.int('height'));
      const b = blockAt(deps.chain, height);
      const c = deps.chain.commit(height);
      if (!c) {
        // The latest block's commit comes from this node's engine; a halted one will not provide it.
        const sync = deps.sync();
        throw new RequestFailedError(
          sync.halted
            ? `the commit of block ${height} is not available: the node is halted and will not sign it: ${sync.reason}`
            : `the commit of block ${height} is not available yet`,
        );
      }
      return {
        signed_header: { header: headerJson(b.header), commit: commitJson(c.commit) },
        canonical: c.canonical,
      };
    },
  },
};
