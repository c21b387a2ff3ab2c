/**
 * `cosmos.tx.v1beta1.Service`'s Simulate (`POST /cosmos/tx/v1beta1/simulate`) and GetTxsEvent
 * (`GET /cosmos/tx/v1beta1/txs?query=…`): the same simulation gRPC and `abci_query` answer with, and
 * the same tx search as the consensus RPC's `/tx_search` (rpc/codecs/tx-search.ts).
 */
import { TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { simulationFailure } from '../codecs/cosmos.ts';
import { searchTxs, TxQueryError } from '../codecs/tx-search.ts';
import { GrpcCode, invalidArgument, RestError } from './errors.ts';
import { bytesJson, type Json, timestampJson, txJson } from './json.ts';
import type { Route } from './route.ts';
import { txBytesOf, txResponseJson } from './routes-node.ts';

/** The SDK's default page size (query.DefaultLimit). */
const DEFAULT_LIMIT = 100;

function positiveInt(value: string | null, name: string, fallback: number): number {
  if (value === null || value === '') return fallback;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)))
    throw invalidArgument(`${name}: ${JSON.stringify(value)} is not a non-negative integer`);
  return Number(value) === 0 ? fallback : Number(value);
}

/** OrderBy by name or number; unspecified is ascending, as in the SDK. */
function orderOf(value: string | null): 'asc' | 'desc' {
  if (value === null || value === '' || value === 'ORDER_BY_UNSPECIFIED' || value === '0') return 'asc';
  if (value === 'ORDER_BY_ASC' || value === '1') return 'asc';
  if (value === 'ORDER_BY_DESC' || value === '2') return 'desc';
  throw invalidArgument(
    `order_by: ${JSON.stringify(value)} is not one of ORDER_BY_UNSPECIFIED, ORDER_BY_ASC, ORDER_BY_DESC`,
  );
}

export const TX_ROUTES: Route[] = [
  {
    method: 'POST',
    template: '/cosmos/tx/v1beta1/simulate',
    handle: async (r, { deps }) => {
      let raw: Uint8Array;
      try {
        raw = txBytesOf(r.body);
      } catch (err) {
        if (err instanceof RestError && err.message === 'invalid empty tx')
          throw invalidArgument('empty txBytes is not allowed: send the signed TxRaw in tx_bytes');
        throw err;
      }
      const s = deps.simulate(raw);
      if (s.code !== 0) throw new RestError(GrpcCode.UNKNOWN, simulationFailure(s));
      return {
        body: {
          gas_info: { gas_wanted: String(s.gasWanted), gas_used: String(s.gasUsed) },
          result: {
            data: bytesJson(new Uint8Array(0)),
            log: '',
            events: s.events.map((e) => ({
              type: e.type,
              attributes: e.attributes.map((a) => ({ key: a.key, value: a.value, index: a.index })),
            })),
            msg_responses: [],
          },
        },
      };
    },
  },
  {
    method: 'GET',
    template: '/cosmos/tx/v1beta1/txs',
    handle: async (r, { deps }) => {
      // `events` (repeated, joined by AND) is what clients before SDK v0.50 send instead of `query`
      const query = r.query.get('query') || r.query.getAll('events').join(' AND ');
      if (query === '') throw invalidArgument('query cannot be empty');
      const page = positiveInt(r.query.get('page'), 'page', 1);
      const limit = positiveInt(
        r.query.get('limit') ?? r.query.get('pagination.limit'),
        'limit',
        DEFAULT_LIMIT,
      );
      const chain = deps.chain;
      let found;
      try {
        found = searchTxs(chain, query, orderOf(r.query.get('order_by')));
      } catch (err) {
        if (err instanceof TxQueryError) throw invalidArgument(err.message);
        throw err;
      }
      const txs: Json[] = [];
      const responses: Json[] = [];
      for (const loc of found.slice((page - 1) * limit, page * limit)) {
        const block = chain.block(loc.height);
        const raw = block?.txs[loc.index];
        const result = chain.txResults(loc.height)?.[loc.index];
        if (!block || !raw || !result) continue;
        const tx = txJson(TxRaw.decode(raw));
        txs.push(tx);
        responses.push(txResponseJson(raw, tx, loc.height, timestampJson(block.header.time), result));
      }
      return { body: { txs, tx_responses: responses, pagination: null, total: String(found.length) } };
    },
  },
];
