/** Tx routes: `/tx`, `/tx_search`, `/broadcast_tx_sync|async|commit`. */
import { merkleLeafHash, merkleRoot, txHash } from '../../codec/index.ts';
import { base64, hexUpper, int64, type Json, txResultJson } from './encoding.ts';
import { InvalidParamsError, RequestFailedError } from './errors.ts';
import type { Params } from './params.ts';
import { paging, type Route, type RouteContext } from './route.ts';
import { searchTxs, TxQueryError } from '../codecs/tx-search.ts';
import type { BlockView, ChainView, CheckTxResult, TxLocationView, TxResultView } from './types.ts';

/** CometBFT TxProof: the tx's Merkle path to the block's data_hash (aunts from the leaf upwards). */
function txProof(txs: Uint8Array[], index: number): Json {
  const items = txs.map(txHash);
  const aunts: Uint8Array[] = [];
  let from = 0;
  let to = items.length;
  const path: Uint8Array[] = [];
  while (to - from > 1) {
    let k = 1;
    while (k * 2 < to - from) k *= 2;
    if (index < from + k) {
      path.push(merkleRoot(items.slice(from + k, to)));
      to = from + k;
    } else {
      path.push(merkleRoot(items.slice(from, from + k)));
      from += k;
    }
  }
  for (let i = path.length - 1; i >= 0; i--) aunts.push(path[i]);
  return {
    root_hash: hexUpper(merkleRoot(items)),
    data: base64(txs[index]),
    proof: {
      total: int64(items.length),
      index: int64(index),
      leaf_hash: base64(merkleLeafHash(items[index])),
      aunts: aunts.map(base64),
    },
  };
}

/** Blocks and results read once per request: a page of tx_search often shares one block. */
type BlockCache = Map<number, { block: BlockView | undefined; results: TxResultView[] | undefined }>;

function txJson(chain: ChainView, loc: TxLocationView, prove: boolean, cache: BlockCache = new Map()): Json {
  let cached = cache.get(loc.height);
  if (!cached) {
    cached = { block: chain.block(loc.height), results: chain.txResults(loc.height) };
    cache.set(loc.height, cached);
  }
  const { block } = cached;
  const result = cached.results?.[loc.index];
  const tx = block?.txs[loc.index];
  if (!block || !tx || !result)
    throw new RequestFailedError(`tx at height ${loc.height} index ${loc.index} is not available`);
  const out: Record<string, Json> = {
    hash: hexUpper(txHash(tx)),
    height: int64(loc.height),
    index: loc.index,
    tx_result: txResultJson(result),
    tx: base64(tx),
  };
  if (prove) out.proof = txProof(block.txs, loc.index);
  return out;
}

/** Watermark: a tx counts once its block is at or below the latest committed height. */
function locate(chain: ChainView, hash: Uint8Array): TxLocationView | undefined {
  const loc = chain.txLocation(hash);
  return loc && loc.height <= chain.latestHeight() && loc.height >= chain.earliestHeight() ? loc : undefined;
}

function requiredTx(p: Params): Uint8Array {
  const tx = p.bytes('tx');
  if (!tx || tx.length === 0) throw new InvalidParamsError('tx is required');
  return tx;
}

function checkTxJson(r: CheckTxResult): Json {
  return {
    code: r.code,
    data: null,
    log: r.log,
    info: '',
    gas_wanted: int64(r.gasWanted),
    gas_used: '0',
    events: [],
    codespace: r.codespace,
  };
}

function broadcastJson(r: CheckTxResult): Json {
  return { code: r.code, data: '', log: r.log, codespace: r.codespace, hash: hexUpper(r.hash) };
}

async function broadcastCommit(p: Params, { deps, options }: RouteContext): Promise<Json> {
  const check = await deps.submitter.submit(requiredTx(p));
  const empty = {
    code: 0,
    data: null,
    log: '',
    info: '',
    gas_wanted: '0',
    gas_used: '0',
    events: [],
    codespace: '',
  };
  if (check.code !== 0)
    return { check_tx: checkTxJson(check), tx_result: empty, hash: hexUpper(check.hash), height: '0' };
  let loc: TxLocationView;
  try {
    loc = await deps.submitter.awaitInclusion(
      check.hash,
      AbortSignal.timeout(options.broadcastTxCommitTimeoutMs),
    );
  } catch (err) {
    if ((err as Error).name === 'TimeoutError')
      throw new RequestFailedError('timed out waiting for tx to be included in a block');
    throw err;
  }
  const result = deps.chain.txResults(loc.height)?.[loc.index];
  return {
    check_tx: checkTxJson(check),
    tx_result: result ? txResultJson(result) : empty,
    hash: hexUpper(check.hash),
    height: int64(loc.height),
  };
}

export const txRoutes: Record<string, Route> = {
  tx: {
    params: ['hash', 'prove'],
    handle: (p, { deps }) => {
      const hash = p.bytes('hash');
      if (!hash) throw new InvalidParamsError('hash is required');
      if (hash.length !== 32) throw new InvalidParamsError(`hash must be 32 bytes, got ${hash.length}`);
      const loc = locate(deps.chain, hash);
      if (!loc) throw new RequestFailedError(`tx (${hexUpper(hash)}) not found`);
      return txJson(deps.chain, loc, p.bool('prove') ?? false);
    },
  },

  tx_search: {
    params: ['query', 'prove', 'page', 'per_page', 'order_by'],
    handle: (p, { deps }) => {
      const chain = deps.chain;
      const query = p.string('query');
      if (query === undefined) throw new InvalidParamsError('query is required');
      const order = p.string('order_by') || 'asc';
      if (order !== 'asc' && order !== 'desc')
        throw new InvalidParamsError(`order_by: expected "asc" or "desc", got ${JSON.stringify(order)}`);
      let found: TxLocationView[];
      try {
        found = searchTxs(chain, query, order);
      } catch (err) {
        if (err instanceof TxQueryError) throw new InvalidParamsError(err.message);
        throw err;
      }
      const { skip, perPage } = paging(p, found.length);
      const prove = p.bool('prove') ?? false;
      const cache: BlockCache = new Map();
      return {
        txs: found.slice(skip, skip + perPage).map((loc) => txJson(chain, loc, prove, cache)),
        total_count: int64(found.length),
      };
    },
  },

  broadcast_tx_sync: {
    params: ['tx'],
    handle: async (p, { deps }) => broadcastJson(await deps.submitter.submit(requiredTx(p))),
  },

  broadcast_tx_async: {
    params: ['tx'],
    handle: (p, { deps }) => {
      const tx = requiredTx(p);
      // CometBFT's async broadcast answers before CheckTx; a rejection is only visible in the logs.
      void deps.submitter.submit(tx).catch(() => undefined);
      return { code: 0, data: '', log: '', codespace: '', hash: hexUpper(txHash(tx)) };
    },
  },

  broadcast_tx_commit: { params: ['tx'], handle: broadcastCommit },
};
