/**
 * The trace_* namespace in the Parity/OpenEthereum format, with reth's semantics: trace_block,
 * trace_transaction, trace_get, trace_filter, trace_replayTransaction, trace_replayBlockTransactions,
 * trace_call, trace_callMany and trace_rawTransaction. The traces are rendered from the same call
 * tree as debug_trace*'s callTracer and flatCallTracer (execution/tracing/parity.ts); every method
 * runs under `Tracing`'s limits (time, concurrency, lookback, genesis), which it shares with
 * debug_trace*.
 *
 * - `traceTypes`: `trace` and `stateDiff`; `vmTrace` is refused (-32602, naming what is supported),
 *   as is any other name. Results are reth's `{output, stateDiff, trace, vmTrace}` (`trace` empty and
 *   `stateDiff` null unless asked; `vmTrace` always null), with `transactionHash` for a block's.
 * - Unknown: trace_transaction, trace_get, trace_block and trace_replayBlockTransactions answer null
 *   for a hash or block the chain does not hold (reth's answers); trace_replayTransaction answers
 *   "transaction not found".
 * - A tx the block includes but that failed before execution (it could not pay when its turn came)
 *   ran nothing: trace_transaction refuses it with the reason; a block's traces hold none for it;
 *   trace_replayBlockTransactions gives it an entry with empty results and `error` saying why.
 * - Cosmos txs of a block run in the replay but are not traced (as debug_traceBlock*).
 */
import type { CallObject } from '../codecs/call.ts';
import { parseCallObject } from '../codecs/call.ts';
import { CodecError } from '../codecs/errors.ts';
import { hash32, parseData, parseSmallQuantity } from '../codecs/hex.ts';
import { optional, p, type ParamCodec } from '../codecs/params.ts';
import type { BlockRef } from '../codecs/block-ref.ts';
import { method, type MethodTable } from '../server/dispatcher.ts';
import { InvalidParamsError } from '../server/errors.ts';
import { ChainError } from '../../util/errors.ts';
import type { ChainReader } from './backend.ts';
import { TxNotFoundError, type Tracing } from './debug.ts';
import type { Resolver } from './resolve.ts';
import { parseTraceFilter, runTraceFilter, type TraceFilterSource } from './trace-filter.ts';
import {
  type BlockReplay,
  type LocalizedTrace,
  type ParityTraceBackend,
  type ReplayedTrace,
  TRACE_TYPES,
  type TraceType,
} from './trace-backend.ts';

export function parseTraceTypes(v: unknown): ReadonlySet<TraceType> {
  if (!Array.isArray(v)) throw new CodecError('traceTypes must be an array of trace types');
  const out = new Set<TraceType>();
  for (const t of v) {
    if (t === 'vmTrace')
      throw new CodecError(
        `trace type "vmTrace" is not supported by this node: supported trace types are ${TRACE_TYPES.join(', ')}`,
      );
    if (typeof t !== 'string' || !(TRACE_TYPES as readonly string[]).includes(t))
      throw new CodecError(
        `unknown trace type ${JSON.stringify(t)}: supported trace types are ${TRACE_TYPES.join(', ')}`,
      );
    out.add(t as TraceType);
  }
  return out;
}

const traceTypes: ParamCodec<ReadonlySet<TraceType>> = { optional: false, parse: parseTraceTypes };
const callObject: ParamCodec<CallObject> = { optional: false, parse: parseCallObject };
const calls: ParamCodec<{ call: CallObject; types: ReadonlySet<TraceType> }[]> = {
  optional: false,
  parse: (v) => {
    if (!Array.isArray(v)) throw new CodecError('want an array of [call, traceTypes] pairs');
    return v.map((pair, i) => {
      if (!Array.isArray(pair) || pair.length !== 2)
        throw new CodecError(`call ${i}: want a [call, traceTypes] pair`);
      try {
        return { call: parseCallObject(pair[0]), types: parseTraceTypes(pair[1]) };
      } catch (err) {
        if (err instanceof CodecError) throw new CodecError(`call ${i}: ${err.message}`);
        throw err;
      }
    });
  },
};
const indices: ParamCodec<number[]> = {
  optional: false,
  parse: (v) => {
    if (!Array.isArray(v)) throw new CodecError('indices must be an array of hex numbers');
    return v.map((x) =>
      typeof x === 'number' && Number.isSafeInteger(x) && x >= 0 ? x : parseSmallQuantity(x),
    );
  },
};
const rawTx: ParamCodec<Uint8Array> = { optional: false, parse: parseData };
const filter = { optional: false, parse: parseTraceFilter };

const NO_OPTIONS = {};

export function traceMethods(
  tracing: Tracing,
  backend: ParityTraceBackend,
  resolve: Resolver,
  chain: ChainReader,
  filterSource: TraceFilterSource,
  maxFilterBlocks: number,
): MethodTable {
  /** A block reference's height, or undefined when the chain holds no such block (yet). */
  const blockHeight = (ref: BlockRef): number | undefined => {
    const h = ref.kind === 'hash' ? chain.heightByHash(ref.hash) : resolve.number(ref);
    if (h === undefined || h > chain.latestHeight()) return undefined;
    resolve.assertBlockRetained(h);
    return h;
  };
  const replay = (height: number, types: ReadonlySet<TraceType>, o?: BlockReplay) =>
    tracing.limited(height, NO_OPTIONS, (ms) => backend.replayBlock(height, types, ms, o));
  const located = (hash: Uint8Array) => {
    const loc = chain.txLocation(hash);
    return loc && loc.height <= chain.latestHeight() ? loc : undefined;
  };
  /** The traced tx of a one-tx replay; a tx that ran nothing is refused with the reason. */
  const executed = (r: ReplayedTrace[]) => {
    const t = r[r.length - 1];
    if (!t) throw new ChainError('TRACE_TX_MISSING', 'the replay did not reach the transaction');
    if ('notExecuted' in t) throw new ChainError('TRACE_TX_NOT_EXECUTED', t.notExecuted);
    return t;
  };
  const txTraces = async (hash: Uint8Array): Promise<LocalizedTrace[] | null> => {
    const loc = located(hash);
    if (!loc) return null;
    resolve.assertBlockRetained(loc.height);
    const r = await replay(loc.height, TRACE_ONLY, {
      only: new Set([loc.evmIndex]),
      lastEvmIndex: loc.evmIndex,
    });
    return executed(r).traces;
  };
  const stateHeight = (ref: BlockRef | undefined) => resolve.state(ref ?? { kind: 'tag', tag: 'latest' });

  return {
    trace_block: method([p.blockRef], async (ref) => {
      const h = blockHeight(ref);
      if (h === undefined) return null;
      const r = await replay(h, TRACE_ONLY);
      return r.flatMap((t) => ('traces' in t ? t.traces : []));
    }),
    trace_transaction: method([p.hash], (hash) => txTraces(hash)),
    trace_get: method([p.hash, indices], async (hash, idx) => {
      if (idx.length !== 1)
        throw new InvalidParamsError(
          `invalid argument 1: trace_get takes one index (a position in the transaction's trace list), got ${idx.length}`,
        );
      const traces = await txTraces(hash);
      return traces?.[idx[0]] ?? null;
    }),
    trace_filter: method([filter], (f) =>
      runTraceFilter(f, {
        tracing,
        backend,
        resolve,
        chain,
        source: filterSource,
        maxBlocks: maxFilterBlocks,
      }),
    ),
    trace_replayTransaction: method([p.hash, traceTypes], async (hash, types) => {
      const loc = located(hash);
      if (!loc) throw new TxNotFoundError();
      resolve.assertBlockRetained(loc.height);
      const r = await replay(loc.height, types, {
        only: new Set([loc.evmIndex]),
        lastEvmIndex: loc.evmIndex,
      });
      return executed(r).results;
    }),
    trace_replayBlockTransactions: method([p.blockRef, traceTypes], async (ref, types) => {
      const h = blockHeight(ref);
      if (h === undefined) return null;
      const r = await replay(h, types);
      return r.map((t) =>
        'results' in t
          ? { ...t.results, transactionHash: hash32(t.txHash) }
          : {
              output: '0x',
              stateDiff: null,
              trace: [],
              vmTrace: null,
              transactionHash: hash32(t.txHash),
              error: t.notExecuted,
            },
      );
    }),
    trace_call: method([callObject, traceTypes, optional(p.blockRef)], async (call, types, ref) => {
      const h = stateHeight(ref);
      const [r] = await tracing.limited(
        h,
        NO_OPTIONS,
        (ms) => backend.traceCalls(h, [{ call, types }], ms),
        false,
      );
      return r;
    }),
    trace_callMany: method([calls, optional(p.blockRef)], (list, ref) => {
      const h = stateHeight(ref);
      return tracing.limited(h, NO_OPTIONS, (ms) => backend.traceCalls(h, list, ms), false);
    }),
    trace_rawTransaction: method([rawTx, traceTypes, optional(p.blockRef)], (raw, types, ref) => {
      const h = stateHeight(ref);
      return tracing.limited(h, NO_OPTIONS, (ms) => backend.traceRawTransaction(h, raw, types, ms), false);
    }),
  };
}

const TRACE_ONLY: ReadonlySet<TraceType> = new Set(['trace']);
