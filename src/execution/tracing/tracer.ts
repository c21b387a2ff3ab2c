/** The base of every tracer: one transaction's hooks, its result, and the abort/deadline plumbing. */
import { ChainError } from '../../util/errors.ts';
import type { TraceBudget } from './budget.ts';
import type { TraceDeadline } from './deadline.ts';
import type { TracerHooks } from './types.ts';

export interface TraceTxContext {
  /** hash of the traced transaction (flatCallTracer's transactionHash; null for debug_traceCall) */
  txHash?: Uint8Array;
  /** its index in the block (flatCallTracer's transactionPosition; 0 when absent) */
  txIndex?: number;
  blockHeight: bigint;
  /** flatCallTracer's blockHash (null when absent, as geth for a call) */
  blockHash?: Uint8Array;
  /** time budget of this transaction's trace; past it the run throws TraceTimeoutError */
  deadline?: TraceDeadline;
  /** bytes of output this trace may keep; past them the run throws TraceTooLargeError */
  budget?: TraceBudget;
}

// the hooks are optional members: each tracer implements the ones it needs
export interface TxTracer extends TracerHooks {}

export abstract class TxTracer {
  abstract readonly name: string;
  readonly ctx: TraceTxContext;
  private stopped?: Error;
  private attached = false;

  constructor(ctx: TraceTxContext) {
    this.ctx = ctx;
  }

  /** The geth JSON of this transaction's trace (call after the traced run returned). */
  abstract result(): unknown;

  /**
   * Stops the traced execution at its next opcode: the run then throws `reason` (the executor and
   * the simulation rethrow it rather than treating the transaction as failed or rejected).
   */
  abort(reason: Error): void {
    this.stopped ??= reason;
  }

  /** Counts `bytes` of output against the trace's budget (throws once it is exceeded). */
  protected charge(bytes: number): void {
    this.ctx.budget?.charge(bytes);
  }

  get abortReason(): Error | undefined {
    return this.stopped;
  }

  /** @internal a tracer traces exactly one execution */
  claim(): void {
    if (this.attached) throw new ChainError('TRACE_REUSED', `a ${this.name} tracer was attached twice`);
    this.attached = true;
  }
}
