/**
 * The time budget of a trace (geth's `timeout` option, `[evm] trace_timeout`). Checked on every traced
 * opcode (a traced run is slow anyway); every 1024 steps it also yields to the event loop when a few
 * milliseconds have passed, so a long trace does not stall block production and an `abort()` from a
 * timer can land; while a block is in progress it waits for the block (util/block-first.ts).
 */
import { yieldToBlocks } from '../../util/block-first.ts';
import { ChainError } from '../../util/errors.ts';

export class TraceTimeoutError extends ChainError {
  constructor() {
    // geth stops the tracer with errors.New("execution timeout")
    super('TRACE_TIMEOUT', 'execution timeout');
  }
}

export class TraceDeadline {
  private readonly at: number;
  private lastYield = performance.now();
  private steps = 0;
  /** `ms` ≤ 0: no limit */
  constructor(ms: number) {
    this.at = ms > 0 ? performance.now() + ms : Infinity;
  }
  expired(): boolean {
    return performance.now() > this.at;
  }
  async tick(): Promise<void> {
    if ((++this.steps & 1023) !== 0) return;
    const now = performance.now();
    if (now > this.at) throw new TraceTimeoutError();
    if (now - this.lastYield > 8) {
      await yieldToBlocks();
      this.lastYield = performance.now();
      if (performance.now() > this.at) throw new TraceTimeoutError();
    }
  }
}
