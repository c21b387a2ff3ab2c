/**
 * What the trace_* methods read: Parity traces and trace results as JSON (rendered by
 * execution/tracing/parity.ts), and the narrow backend node/ implements over block replays and
 * simulations (node/adapters/evm-parity-tracer.ts).
 */
import type { CallObject } from '../codecs/call.ts';

export type TraceType = 'trace' | 'stateDiff';
export const TRACE_TYPES: readonly TraceType[] = ['trace', 'stateDiff'];

/** One Parity trace of a transaction (reth's TransactionTrace). */
export interface ParityTrace {
  action: Record<string, string>;
  error?: string;
  result?: Record<string, string> | null;
  subtraces: number;
  traceAddress: number[];
  type: string;
}

/** A trace with its block and transaction (reth's LocalizedTransactionTrace). */
export interface LocalizedTrace extends ParityTrace {
  blockHash: string | null;
  blockNumber: number;
  transactionHash: string | null;
  transactionPosition: number;
}

/** reth's TraceResults. */
export interface TraceResults {
  output: string;
  stateDiff: unknown;
  trace: ParityTrace[];
  vmTrace: null;
}

/** One Ethereum tx of a replayed block: its results and localized traces, or why it ran nothing. */
export type ReplayedTrace =
  | { evmIndex: number; txHash: Uint8Array; results: TraceResults; traces: LocalizedTrace[] }
  | { evmIndex: number; txHash: Uint8Array; notExecuted: string };

export interface BlockReplay {
  /** the Ethereum txs to trace (by EVM index); absent: all */
  only?: ReadonlySet<number>;
  /** stop after this EVM index */
  lastEvmIndex?: number;
}

/** Parity traces (node/ implements it with chain/trace-replay.ts and execution/tracing). */
export interface ParityTraceBackend {
  /** Ethereum txs of block `height` (≥ 1) replayed once; only the traced ones are listed. */
  replayBlock(
    height: number,
    types: ReadonlySet<TraceType>,
    timeoutMs: number,
    o?: BlockReplay,
  ): Promise<ReplayedTrace[]>;
  /** Calls on the state after block `height`, each on the state the ones before it left. */
  traceCalls(
    height: number,
    calls: { call: CallObject; types: ReadonlySet<TraceType> }[],
    timeoutMs: number,
  ): Promise<TraceResults[]>;
  /** A signed Ethereum tx (its nonce and funds checked) on the state after block `height`. */
  traceRawTransaction(
    height: number,
    raw: Uint8Array,
    types: ReadonlySet<TraceType>,
    timeoutMs: number,
  ): Promise<TraceResults>;
}
