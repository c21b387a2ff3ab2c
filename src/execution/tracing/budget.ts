/**
 * The byte budget of a trace's output (`[evm] max_trace_response_bytes`): each tracer charges what it
 * keeps, about as many bytes as its JSON will take, as it keeps it, so a trace that would outgrow the
 * budget stops at the step that passes it instead of building the whole answer first (a loop traced
 * with memory snapshots took the node's heap past its limit). One budget may be shared by every
 * transaction of a block trace: the answer is one.
 */
import { ChainError } from '../../util/errors.ts';

export class TraceTooLargeError extends ChainError {
  readonly limit: number;
  constructor(limit: number) {
    super(
      'TRACE_TOO_LARGE',
      `trace too large: its output exceeds max_trace_response_bytes = ${limit} bytes ([evm] max_trace_response_bytes); ` +
        'trace less (the limit option, disableStack, disableStorage, no enableMemory, or a call tracer)',
    );
    this.limit = limit;
  }
}

export class TraceBudget {
  readonly max: number;
  private used = 0;
  /** `max` ≤ 0: no limit */
  constructor(max: number) {
    this.max = max > 0 ? max : Infinity;
  }
  get charged(): number {
    return this.used;
  }
  /** Counts `bytes` more; throws TraceTooLargeError once the total passes the budget. */
  charge(bytes: number): void {
    this.used += bytes;
    if (this.used > this.max) throw new TraceTooLargeError(this.max);
  }
}
