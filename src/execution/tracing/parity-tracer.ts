/**
 * The tracer of the trace_* methods: one transaction's call tree (the callTracer's, rendered by
 * parity.ts in its Parity style) and, when asked, its state diff (state-diff.ts), from one run. Its
 * result is reth's TraceResults without the transaction hash: `{output, stateDiff, trace, vmTrace}`
 * (`trace` empty and `stateDiff` null unless asked; `vmTrace` is not produced: rpc/ refuses it).
 */
import { CallTracer } from './call-tracer.ts';
import { hexBytes } from './hex.ts';
import { localized, parityTraces, type LocalizedTraceJson, type ParityTraceJson } from './parity.ts';
import { StateDiffTracer, type StateDiffJson } from './state-diff.ts';
import { TxTracer, type TraceTxContext } from './tracer.ts';
import type { Enter, Exit, OpStep, TraceState, TxEnd, TxStart } from './types.ts';

export type ParityTraceType = 'trace' | 'stateDiff';

export interface ParityTraceResult {
  output: string;
  stateDiff: StateDiffJson | null;
  trace: ParityTraceJson[];
  vmTrace: null;
}

export class ParityTracer extends TxTracer {
  readonly name = 'parity';
  private readonly calls: CallTracer;
  private readonly diff?: StateDiffTracer;
  private readonly withTrace: boolean;
  private readonly includePrecompiles: boolean;

  /** `includePrecompiles`: list calls to precompiles (anvil does; reth does not) */
  constructor(types: ReadonlySet<ParityTraceType>, ctx: TraceTxContext, includePrecompiles = false) {
    super(ctx);
    this.calls = new CallTracer({ onlyTopCall: false, withLog: false }, ctx);
    if (types.has('stateDiff')) this.diff = new StateDiffTracer(ctx);
    this.withTrace = types.has('trace');
    this.includePrecompiles = includePrecompiles;
  }

  override async onTxStart(tx: TxStart, state: TraceState): Promise<void> {
    this.calls.onTxStart(tx);
    await this.diff?.onTxStart(tx, state);
  }

  override async onEnter(e: Enter): Promise<void> {
    this.calls.onEnter(e);
    await this.diff?.onEnter(e);
  }

  override onExit(e: Exit): void {
    this.calls.onExit(e);
  }

  override async onOpcode(s: OpStep): Promise<void> {
    await this.diff?.onOpcode(s);
  }

  override async onTxEnd(end: TxEnd): Promise<void> {
    this.calls.onTxEnd(end);
    await this.diff?.onTxEnd();
  }

  /** The transaction's traces (Parity style), whether or not `trace` was asked for. */
  traces(): ParityTraceJson[] {
    const top = this.calls.frames();
    return top ? parityTraces(top, { style: 'parity', includePrecompiles: this.includePrecompiles }) : [];
  }

  /** The traces with the transaction's block and position (trace_transaction, trace_block, ...). */
  localizedTraces(): LocalizedTraceJson[] {
    return this.traces().map((t) => localized(t, this.ctx));
  }

  /** The top frame's output: the return data, the revert data, or the deployed code. */
  output(): string {
    return hexBytes(this.calls.frames()?.output ?? new Uint8Array(0));
  }

  result(): ParityTraceResult {
    return {
      output: this.output(),
      stateDiff: this.diff ? this.diff.stateDiff() : null,
      trace: this.withTrace ? this.traces() : [],
      vmTrace: null,
    };
  }
}
