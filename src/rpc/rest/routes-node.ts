/**
 * `cosmos.base.tendermint.v1beta1.Service` (node info, syncing, blocks) and
 * `cosmos.tx.v1beta1.Service` (broadcast, get tx) over committed chain data and the tx submitter.
 */
import { TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { txHash } from '../../codec/index.ts';
import { errorMessage } from '../../util/errors.ts';
import { invalidArgument, notFound } from './errors.ts';
import { type Json, timestampJson, txJson } from './json.ts';
import { blockResponseJson, nodeInfoJson } from './json-tendermint.ts';
import type { Route } from './route.ts';
import type { RestChainView, RestTxResultView } from './types.ts';

const hexUpper = (b: Uint8Array) => Buffer.from(b).toString('hex').toUpperCase();

async function blockAt(chain: RestChainView, height: number): Promise<Json> {
  const block = chain.engineBlock ? await chain.engineBlock(height) : chain.block(height);
  if (!block) {
    // Below the earliest height the block was pruned (or never existed at 0).
    throw invalidArgument(
      `block at height ${height} is not available: the node keeps heights ${chain.earliestHeight()} to ${chain.latestHeight()}`,
    );
  }
  return blockResponseJson(block);
}

/** TxResponse of a committed tx (`tx` inlined as an Any of cosmos.tx.v1beta1.Tx). */
export function txResponseJson(
  raw: Uint8Array,
  tx: { [key: string]: Json },
  height: number,
  time: string,
  r: RestTxResultView,
): Json {
  return {
    height: String(height),
    txhash: hexUpper(txHash(raw)),
    codespace: r.codespace,
    code: r.code,
    data: hexUpper(r.data),
    raw_log: r.log,
    logs: [],
    info: '',
    gas_wanted: String(r.gasWanted),
    gas_used: String(r.gasUsed),
    tx: { '@type': '/cosmos.tx.v1beta1.Tx', ...tx },
    timestamp: time,
    events: r.events.map((e) => ({
      type: e.type,
      attributes: e.attributes.map((a) => ({ key: a.key, value: a.value, index: a.index })),
    })),
  };
}

/** BroadcastMode by name or number; BLOCK (1) was removed from the SDK in v0.47. */
function broadcastMode(mode: unknown): 'sync' | 'async' {
  if (mode === 'BROADCAST_MODE_SYNC' || mode === 2) return 'sync';
  if (mode === 'BROADCAST_MODE_ASYNC' || mode === 3) return 'async';
  if (mode === 'BROADCAST_MODE_BLOCK' || mode === 1)
    throw invalidArgument(
      'BROADCAST_MODE_BLOCK is not supported (removed in Cosmos SDK v0.47): broadcast with BROADCAST_MODE_SYNC and query the tx by hash',
    );
  throw invalidArgument(
    `unsupported broadcast mode ${JSON.stringify(mode ?? 'BROADCAST_MODE_UNSPECIFIED')}; supported: BROADCAST_MODE_SYNC, BROADCAST_MODE_ASYNC`,
  );
}

export function txBytesOf(body: unknown): Uint8Array {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalidArgument('the request body must be a JSON object {"tx_bytes": "<base64>", "mode": "…"}');
  const b64 = (body as Record<string, unknown>).tx_bytes;
  if (b64 === undefined || b64 === null || b64 === '') throw invalidArgument('invalid empty tx');
  if (typeof b64 !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(b64))
    throw invalidArgument('tx_bytes must be a base64 string');
  return new Uint8Array(Buffer.from(b64.replace(/-/g, '+').replace(/_/g, '/'), 'base64'));
}

export const NODE_ROUTES: Route[] = [
  {
    method: 'GET',
    template: '/cosmos/base/tendermint/v1beta1/node_info',
    handle: async (_r, { deps }) => ({ body: nodeInfoJson(deps.identity) }),
  },
  {
    method: 'GET',
    template: '/cosmos/base/tendermint/v1beta1/syncing',
    handle: async (_r, { deps }) => ({ body: { syncing: deps.syncing() } }),
  },
  {
    method: 'GET',
    template: '/cosmos/base/tendermint/v1beta1/blocks/latest',
    handle: async (_r, { deps }) => ({ body: await blockAt(deps.chain, deps.chain.latestHeight()) }),
  },
  {
    method: 'GET',
    template: '/cosmos/base/tendermint/v1beta1/blocks/{height}',
    handle: async (r, { deps }) => {
      const v = r.path.height;
      if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v)))
        throw invalidArgument(`height: ${JSON.stringify(v)} is not a non-negative integer`);
      const height = Number(v);
      const latest = deps.chain.latestHeight();
      // The SDK's wording for a height past the chain, so clients matching on it keep working.
      if (height > latest)
        throw invalidArgument(
          `requested block height is bigger then the chain length: height ${height}, latest ${latest}`,
        );
      return { body: await blockAt(deps.chain, height) };
    },
  },
  {
    method: 'POST',
    template: '/cosmos/tx/v1beta1/txs',
    handle: async (r, { deps, logger }) => {
      const raw = txBytesOf(r.body);
      const mode = broadcastMode((r.body as Record<string, unknown>).mode);
      const base = { height: '0', data: '', logs: [], info: '', gas_wanted: '0', gas_used: '0' };
      const rest = { tx: null, timestamp: '', events: [] };
      if (mode === 'async') {
        // Like CometBFT's broadcast_tx_async: the answer does not wait for the mempool's check.
        deps.submitter
          .submit(raw)
          .catch((err) => logger.error({ err: errorMessage(err) }, 'async broadcast failed'));
        const txhash = hexUpper(txHash(raw));
        return { body: { tx_response: { ...base, txhash, codespace: '', code: 0, raw_log: '', ...rest } } };
      }
      const c = await deps.submitter.submit(raw);
      const txhash = hexUpper(c.hash);
      return {
        body: {
          tx_response: { ...base, txhash, codespace: c.codespace, code: c.code, raw_log: c.log, ...rest },
        },
      };
    },
  },
  {
    method: 'GET',
    template: '/cosmos/tx/v1beta1/txs/{hash}',
    handle: async (r, { deps }) => {
      const h = r.path.hash;
      if (!/^[0-9a-fA-F]{64}$/.test(h))
        throw invalidArgument(`tx hash ${JSON.stringify(h)} is not 32 bytes of hex`);
      const chain = deps.chain;
      const loc = chain.txLocation(new Uint8Array(Buffer.from(h, 'hex')));
      const block = loc && chain.block(loc.height);
      const result = loc && chain.txResults(loc.height)?.[loc.index];
      const raw = loc && block?.txs[loc.index];
      if (!loc || !block || !result || !raw) throw notFound(`tx not found: ${h.toUpperCase()}`);
      const tx = txJson(TxRaw.decode(raw));
      return {
        body: {
          tx,
          tx_response: txResponseJson(raw, tx, loc.height, timestampJson(block.header.time), result),
        },
      };
    },
  },
];
