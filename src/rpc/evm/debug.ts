/**
 * debug_traceTransaction, debug_traceBlockByNumber, debug_traceBlockByHash and debug_traceCall, with
 * the limits every trace obeys (one place, `Tracing`, which the legacy chain_trace* methods reuse):
 *
 *   - time: the `timeout` option, capped at `[evm] trace_timeout` — the operator's setting is the
 *     most any caller gets (geth lets the option replace its 5 s default; a public node must be able
 *     to bound it). Without the option a call gets trace_timeout. It bounds the whole call (a block
 *     trace included) and ends it with -32000 "execution timeout" (geth's words).
 *   - `[evm] max_concurrent_trace_calls` traces run at once; one more is refused at once (-32000),
 *     not queued, so a burst cannot pile up replays.
 *   - `[evm] max_trace_lookback_blocks`: a block more than that many blocks behind the latest is
 *     refused (-32000 naming the limit); so is a traceCall on such a state.
 *   - block 0 has no transactions to replay: "genesis is not traceable"; an unknown tx hash:
 *     "transaction not found" (geth's words).
 *
 * Block traces answer one entry per Ethereum tx, in block order: {txHash, result}, or {txHash, error}
 * for a tx whose tracer failed. Cosmos txs of the block run in the replay but are not traced.
 */
import type { CallObject } from '../codecs/call.ts';
import { parseCallObject } from '../codecs/call.ts';
import { hash32 } from '../codecs/hex.ts';
import { optional, p, type ParamCodec } from '../codecs/params.ts';
import { method, type MethodTable } from '../server/dispatcher.ts';
import { ChainError } from '../../util/errors.ts';
import type { ChainReader } from './backend.ts';
import {
  parseTraceCallOptions,
  parseTraceOptions,
  type TraceCallOptions,
  type TraceOptions,
} from './debug-options.ts';
import type { Resolver } from './resolve.ts';

export type { TraceCallOptions, TraceOptions } from './debug-options.ts';

export type BlockTraceEntry = { txHash: Uint8Array; result: unknown } | { txHash: Uint8Array; error: string };

/** Traces (node/ implements it with chain/trace-replay.ts and execution/tracing). */
export interface TraceBackend {
  /** The trace of Ethereum tx `evmIndex` of block `height`; throws on timeout or a failed tracer. */
  traceTransaction(
    height: number,
    evmIndex: number,
    options: TraceOptions,
    timeoutMs: number,
  ): Promise<unknown>;
  traceBlock(height: number, options: TraceOptions, timeoutMs: number): Promise<BlockTraceEntry[]>;
  /** A call on the state after block `height` (with the call options' overrides). */
  traceCall(height: number, call: CallObject, options: TraceCallOptions, timeoutMs: number): Promise<unknown>;
}

export interface TraceLimits {
  /** `[evm] trace_timeout` in ms (0: none) */
  timeoutMs: number;
  /** `[evm] max_concurrent_trace_calls` */
  maxConcurrent: number;
  /** `[evm] max_trace_lookback_blocks` */
  maxLookback: number;
}

export class TraceLimitError extends ChainError {}

export class TxNotFoundError extends ChainError {
  constructor() {
    super('TRACE_TX_NOT_FOUND', 'transaction not found');
  }
}

/** The traces with their limits applied, by height (resolution of references is the methods'). */
export class Tracing {
  private readonly backend: TraceBackend;
  private readonly chain: ChainReader;
  readonly limits: TraceLimits;
  private running = 0;

  constructor(backend: TraceBackend, chain: ChainReader, limits: TraceLimits) {
    this.backend = backend;
    this.chain = chain;
    this.limits = limits;
  }

  /** The trace of a mined tx by hash. */
  async traceTransaction(hash: Uint8Array, options: TraceOptions = {}): Promise<unknown> {
    const loc = this.chain.txLocation(hash);
    if (!loc || loc.height > this.chain.latestHeight()) throw new TxNotFoundError();
    return this.limited(loc.height, options, (ms) =>
      this.backend.traceTransaction(loc.height, loc.evmIndex, options, ms),
    );
  }

  /** Traces of every Ethereum tx of block `height` (≤ latest). */
  traceBlock(height: number, options: TraceOptions = {}): Promise<BlockTraceEntry[]> {
    return this.limited(height, options, (ms) => this.backend.traceBlock(height, options, ms));
  }

  traceCall(height: number, call: CallObject, options: TraceCallOptions = {}): Promise<unknown> {
    return this.limited(height, options, (ms) => this.backend.traceCall(height, call, options, ms), false);
  }

  /** The time a call with these options may take (ms; 0: none): the option capped at trace_timeout. */
  timeoutOf(options: TraceOptions): number {
    const cap = this.limits.timeoutMs;
    const asked = options.timeoutMs;
    if (asked === undefined) return cap;
    return cap > 0 ? Math.min(asked, cap) : asked;
  }

  /**
   * Runs a trace of block `height` (or, with `replaysBlock` false, a call on the state after it) under
   * every limit; `run` gets the time it may take. The trace_* methods use it too.
   */
  async limited<T>(
    height: number,
    options: TraceOptions,
    run: (timeoutMs: number) => Promise<T>,
    replaysBlock = true,
  ): Promise<T> {
    if (replaysBlock && height === 0) throw new TraceLimitError('TRACE_GENESIS', 'genesis is not traceable');
    const latest = this.chain.latestHeight();
    const behind = latest - height;
    if (behind > this.limits.maxLookback) {
      throw new TraceLimitError(
        'TRACE_LOOKBACK',
        `block ${height} is ${behind} blocks behind the latest block ${latest}: tracing reaches back at most ` +
          `max_trace_lookback_blocks = ${this.limits.maxLookback} blocks`,
      );
    }
    if (this.running >= this.limits.maxConcurrent) {
      throw new TraceLimitError(
        'TRACE_BUSY',
        `busy: ${this.running} trace calls (debug_trace*, trace_*) are running, the most this node serves at once ` +
          `(max_concurrent_trace_calls = ${this.limits.maxConcurrent}); try again later`,
      );
    }
    this.running++;
    try {
      return await run(this.timeoutOf(options));
    } finally {
      this.running--;
    }
  }
}

const traceOptions: ParamCodec<TraceOptions> = { optional: false, parse: (v) => parseTraceOptions(v) };
const traceCallOptions: ParamCodec<TraceCallOptions> = { optional: false, parse: parseTraceCallOptions };
const callObject: ParamCodec<CallObject> = { optional: false, parse: parseCallObject };

function blockEntries(entries: BlockTraceEntry[]) {
  return entries.map((e) =>
    'error' in e
      ? { txHash: hash32(e.txHash), error: e.error }
      : { txHash: hash32(e.txHash), result: e.result },
  );
}

export function debugMethods(tracing: Tracing, resolve: Resolver, chain: ChainReader): MethodTable {
  const blockAt = (height: number, what: string): number => {
    if (height > chain.latestHeight())
      throw new ChainError('TRACE_BLOCK_NOT_FOUND', `block ${what} not found`);
    resolve.assertBlockRetained(height);
    return height;
  };
  return {
    debug_traceTransaction: method([p.hash, optional(traceOptions)], (hash, options) =>
      tracing.traceTransaction(hash, options),
    ),
    debug_traceBlockByNumber: method([p.blockNumber, optional(traceOptions)], async (ref, options) => {
      const h = resolve.number(ref);
      return blockEntries(await tracing.traceBlock(blockAt(h, `#${h}`), options));
    }),
    debug_traceBlockByHash: method([p.hash, optional(traceOptions)], async (hash, options) => {
      const h = chain.heightByHash(hash);
      if (h === undefined) throw new ChainError('TRACE_BLOCK_NOT_FOUND', `block ${hash32(hash)} not found`);
      return blockEntries(await tracing.traceBlock(blockAt(h, hash32(hash)), options));
    }),
    debug_traceCall: method(
      [callObject, optional(p.blockRef), optional(traceCallOptions)],
      (call, ref, options) =>
        tracing.traceCall(resolve.state(ref ?? { kind: 'tag', tag: 'latest' }), call, options),
    ),
  };
}
